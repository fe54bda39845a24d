# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What an ownership-spec entry does, in plain words: the nouns of its
arguments and one clause per effect, for the page tools/gen_ownership_doc.py
writes (docs/ownership.md). A kind of effect without words here stops the
page (DocError), so that no new effect reaches it undescribed."""

from typing import Optional

from wrapgen import api_profile
from wrapgen.model import NO_ARG, RET, Effect, Function, GenError
from wrapgen.spec import effect_type_name


class DocError(GenError):
    """A problem that stops generation (main prints it as one line)."""


# LLVMValueRef covers functions, globals, instructions...; the header's
# parameter name says which (only names the spec's functions use).
VALUE_NOUNS = {
    "Fn": "function",
    "F": "function",
    "GlobalVar": "global variable",
    "Global": "global",
    "IFunc": "global ifunc",
    "Inst": "instruction",
    "Instr": "instruction",
    "Mask": "shuffle mask",
    "MaskConstant": "shuffle mask",
}




def type_noun(typedef: str) -> str:
    """`LLVMExecutionEngineRef` -> "execution engine",
    `LLVMMCJITMemoryManagerRef` -> "mcjit memory manager".

    The rule reports name a C type by (HandleTypeNoun in
    src/core/object_record.cpp; see src/profiles/llvm_c/handle_types.def): the page
    says what a report would say. The API's prefix is dropped in any case
    (`MlirPassManager` -> "pass manager"; HandleTypeNoun keeps `Mlir`)."""
    t = typedef.replace("*", "").replace("const", "").strip() or "object"
    prefix = api_profile.CONVENTIONS.prefix
    if t.lower().startswith(prefix.lower()):
        t = t[len(prefix):]
    if len(t) > 3 and t.endswith("Ref"):
        t = t[:-3]
    out = []
    for i, c in enumerate(t):
        # A word starts at a capital after a small letter, or at the last
        # capital of an acronym ("MCJITMemory": before the M of Memory).
        if c.isupper() and i > 0 and (
                not t[i - 1].isupper() or
                (i + 1 < len(t) and t[i + 1].islower())):
            out.append(" ")
        out.append(c.lower())
    return "".join(out)


def arg_text(fn: Optional[Function], index: int) -> str:
    """"arg 0 (the module)" for handles, "arg 3 (`OutMessage`)" otherwise."""
    if fn is None or index >= len(fn.params):
        return f"arg {index}"
    param = fn.params[index]
    if param.handle is not None:
        typedef = param.spelling.replace("const", "").strip()
        if typedef == "LLVMValueRef":
            noun = VALUE_NOUNS.get(param.name, "value")
        else:
            noun = type_noun(typedef)
        return f"arg {index} (the {noun})"
    if param.name:
        return f"arg {index} (`{param.name}`)"
    return f"arg {index}"


def out_text(fn: Optional[Function], index: int) -> str:
    """What the call writes through out-parameter `index` (the `*` is
    escaped: it would start emphasis)."""
    return "\\*" + arg_text(fn, index)


def when_prefix(effect: Effect) -> str:
    """The condition of an out-parameter effect, as a leading clause."""
    return {1: "if the call succeeds, ",
            2: "if the call fails, ",
            0: "whether the call succeeds or not, "}[effect.extra]


def new_object_noun(fn: Optional[Function], effect: Effect) -> str:
    """"execution engine" for the object a new(...) effect creates."""
    if fn is None:
        return "object"
    return type_noun(effect_type_name(fn, effect)) or "object"


# What each free kind adds to "frees X and everything it owns".
FREE_CONDITIONS = {
    "free": "",
    "free_attached": "; it must still be in its parent",
    "free_caller_owned": ("; the header says the caller must own it (not in"
                          " a parent), which the library does not enforce:"
                          " reported with strict_ownership=1"),
    "free_detached": "; it must not be in a parent (remove it first)",
}


def effect_words(fn: Optional[Function], e: Effect) -> str:
    """One effect in plain words (a clause, lower case, no final period).

    The wording follows the format block at the top of the spec; a kind
    without wording here is an error, so that a new effect kind cannot
    reach the page undescribed.
    """
    a = arg_text(fn, e.arg) if e.arg not in (RET, NO_ARG) else ""
    if e.field:  # `2.MCJMM`: a handle field of a struct argument
        a = f"the handle in field `{e.field}` of {a}"
    if e.kind in FREE_CONDITIONS:
        return f"frees {a} and everything it owns{FREE_CONDITIONS[e.kind]}"
    if e.kind == "detach":
        return f"{a} leaves its parent; the caller owns it now"
    if e.kind == "attach":
        return (f"{a} goes into {arg_text(fn, e.other)}, which owns it from"
                " now on")
    if e.kind == "attach_at_builder":
        return (f"{a} goes into the insert block of"
                f" {arg_text(fn, e.other)}; that block owns it from now on")
    if e.kind == "out_array":
        if e.count_fn is not None:
            args = ", ".join(f"arg {i}" for i in e.count_args)
            count = f"`{e.count_fn}({args})`"
        else:
            count = f"{arg_text(fn, e.count_arg)}"
        return (f"fills the array in {a} with {count} handles, tracked like"
                " returned handles")
    if e.kind == "lends":
        return (f"the result's bytes belong to the context"
                f" `{e.count_fn}(arg {e.count_args[0]})` returns: passing"
                " them back after that context is destroyed is reported")
    if e.kind == "new":
        noun = new_object_noun(fn, e)
        if e.out:
            text = (f"{when_prefix(e)}{out_text(fn, e.arg)} is a new {noun}"
                    " the caller owns")
        else:
            text = f"the result is a new {noun} the caller owns"
        if e.other != NO_ARG:
            text += f"; it dies with {arg_text(fn, e.other)}"
        return text
    if e.kind in ("consume", "consume_if_ok", "consume_if_failed"):
        prefix = {"consume": "", "consume_if_ok": "if the call succeeds, ",
                  "consume_if_failed": "if the call fails, "}[e.kind]
        return (f"{prefix}consumes {a}: it belongs to"
                f" {api_profile.CONVENTIONS.library_name} now, and any later"
                " use or dispose is reported")
    if e.kind in ("own", "own_by_out"):
        # (own(ret,by=J): the result belongs to J; own(I,by=ret): I belongs
        # to the result.)
        subject = a or "the result"
        owner = ("the result" if e.other == RET else
                 arg_text(fn, e.other) if e.kind == "own" else
                 f"the new object in {out_text(fn, e.other)}")
        return (f"{subject} now belongs to {owner}: usable, but not the"
                " caller's to dispose; it dies with its owner")
    if e.kind == "forget":
        return (f"{a} now belongs to a part of LLVM ownsan does not model"
                " (ORC): usable, but not the caller's to dispose")
    if e.kind in ("message", "error_message"):
        disposer = ("LLVMDisposeMessage" if e.kind == "message"
                    else "LLVMDisposeErrorMessage")
        if e.out:
            return (f"{when_prefix(e)}{out_text(fn, e.arg)} is an owned"
                    f" string: release it with {disposer}")
        return f"the result is an owned string: release it with {disposer}"
    if e.kind == "unterminated_message":
        return ("the result is an owned string with no NUL terminator:"
                " release it with LLVMDisposeMessage (never strlen it)")
    if e.kind in ("free_message", "free_error_message"):
        return (f"releases string {a}, which must be an owned string meant"
                " for this function, released only once")
    if e.kind == "serialized_by":
        return (f"{a} serializes the call: it claims no context, so"
                " concurrent calls are not reported as a context race")
    if e.kind == "data_only":
        return (f"{api_profile.CONVENTIONS.library_name} only reads {a}"
                " as data and keeps nothing of it: an"
                " object of another context there is not reported as"
                " cross-context")
    if e.kind == "position":
        block = arg_text(fn, e.other) if e.other != NO_ARG else ""
        before = arg_text(fn, e.extra) if e.extra != NO_ARG else ""
        if block and before:
            where = (f"inserts before {before}, or at the end of {block}"
                     f" if arg {e.extra} is NULL")
            dies = "that block is deleted or that instruction erased"
        elif before:
            where = f"inserts before {before}"
            dies = "that instruction is erased"
        elif block:
            where = f"inserts at the end of {block}"
            dies = "that block is deleted"
        else:
            return f"{a} no longer has an insertion point"
        return f"{a} now {where}; its next use is reported if {dies}"
    if e.kind == "renames":
        return (f"{a} is renamed; a report about it once it is freed gives"
                " the new name")
    if e.kind == "cause_text":
        return ("a later use of a value the call deletes is reported as"
                f" freed during the call, quoting string {a} in the cause")
    raise DocError(f"no words for effect kind '{e.kind}' ({e.spec_text()}):"
                   " add them to effect_words() in tools/ownership_words.py")


def sentence(clause: str) -> str:
    """Capitalizes a clause and ends it with a period."""
    if clause[:1].isalpha():
        clause = clause[0].upper() + clause[1:]
    return clause + "."
