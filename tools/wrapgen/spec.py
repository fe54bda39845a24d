# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The ownership spec (ownership.spec): its lines parsed into entries and
effects, and the entries of one LLVM major checked against the declared
functions (resolve_spec)."""

import dataclasses
import re
from typing import Dict, List, Optional, Sequence, Set, Tuple

from wrapgen import api_profile
from wrapgen.model import (FIELD_EFFECTS, HOOK_EFFECTS, NO_ARG, RET,
                           STRING_EFFECTS, Effect, Function, GenError, Param,
                           SpecEntry, SpecError)


_INDEX_EFFECT_RE = re.compile(
    r"^(free|free_attached|free_detached|free_caller_owned|detach)"
    r"\((\d+)\)$")
_ATTACH_RE = re.compile(r"^attach\((\d+),(parent|builder)=(\d+)\)$")
_OUT_ARRAY_ARG_RE = re.compile(r"^out_array\((\d+),count=arg\((\d+)\)\)$")
_POSITION_RE = re.compile(
    r"^position\((\d+)(?:,block=(\d+))?(?:,before=(\d+))?\)$")
# The effects whose only operand is an argument index.
_ONE_ARG_RE = re.compile(
    r"^(cause_text|renames|serialized_by|data_only)\((\d+)\)$")
_NEW_RE = re.compile(
    r"^(new|message|unterminated_message|error_message)"
    r"\((ret|out=(\d+))(?:,parent=(\d+))?"
    r"(?:,when=(ok|failed|always))?\)$")
WHEN = {"ok": 1, "failed": 2, "always": 0}


_OWN_RE = re.compile(r"^own\((\d+)(?:\.(\w+))?,by=(out=)?(\d+)\)$")
# A handle the call returns that belongs to another object (an LLJIT's
# execution session) or to a part of LLVM ownsan does not model.
_OWN_RET_RE = re.compile(r"^own\(ret,by=(\d+)\)$")
# An argument that becomes part of the object the call returns (a module
# wrapped in a thread-safe module); the result must be new(ret).
_OWN_BY_RET_RE = re.compile(r"^own\((\d+),by=ret\)$")
_FORGET_RET_RE = re.compile(r"^forget\(ret\)$")
_ARG_EFFECT_RE = re.compile(
    r"^(consume|consume_if_ok|consume_if_failed|free_message|"
    r"free_error_message|forget)\((\d+)(?:\.(\w+))?\)$")
VERSION_RE = re.compile(r"^(since|until)=(\d+)$")


def _lends_re() -> "re.Pattern[str]":
    """lends(ret,context=mlirFn(j)): the returned string's bytes belong to
    the context the API's function returns for arg j."""
    return re.compile(r"^lends\(ret,context=(" +
                      re.escape(api_profile.CONVENTIONS.prefix) +
                      r"\w+)\((\d+)\)\)$")


def _out_array_fn_re() -> "re.Pattern[str]":
    """out_array(i,count=LLVMFn(j[,k])): the count function is the API's."""
    return re.compile(r"^out_array\((\d+),count=(" +
                      re.escape(api_profile.CONVENTIONS.prefix) +
                      r"\w+)\((\d+(?:,\d+)*)\)\)$")


def parse_effect(token: str) -> Optional[Effect]:
    """Parses one effect token; None if it is not a known effect."""
    m = _INDEX_EFFECT_RE.match(token)
    if m:
        return Effect(kind=m.group(1), arg=int(m.group(2)))
    m = _ATTACH_RE.match(token)
    if m:
        kind = "attach" if m.group(2) == "parent" else "attach_at_builder"
        return Effect(kind=kind, arg=int(m.group(1)), other=int(m.group(3)))
    m = _out_array_fn_re().match(token)
    if m:
        args = tuple(int(a) for a in m.group(3).split(","))
        return Effect(kind="out_array", arg=int(m.group(1)),
                      count_fn=m.group(2), count_args=args)
    m = _lends_re().match(token)
    if m:
        # (The context function and its argument ride in count_fn and
        # count_args, as out_array's count function does.)
        return Effect(kind="lends", arg=RET, count_fn=m.group(1),
                      count_args=(int(m.group(2)),))
    m = _OUT_ARRAY_ARG_RE.match(token)
    if m:
        return Effect(kind="out_array", arg=int(m.group(1)),
                      count_arg=int(m.group(2)))
    m = _POSITION_RE.match(token)
    if m:
        return Effect(kind="position", arg=int(m.group(1)),
                      other=int(m.group(2)) if m.group(2) else NO_ARG,
                      extra=int(m.group(3)) if m.group(3) else NO_ARG)
    m = _ONE_ARG_RE.match(token)
    if m:
        return Effect(kind=m.group(1), arg=int(m.group(2)))
    m = _NEW_RE.match(token)
    if m:
        if m.group(1) != "new" and m.group(4):
            return None  # strings have no parent
        is_out = m.group(2) != "ret"
        # An out parameter is read only when LLVM writes it: `when` is
        # required for out=, meaningless for ret.
        if is_out != bool(m.group(5)):
            return None
        return Effect(kind=m.group(1),
                      arg=RET if not is_out else int(m.group(3)),
                      other=int(m.group(4)) if m.group(4) else NO_ARG,
                      extra=WHEN[m.group(5)] if is_out else NO_ARG,
                      out=is_out)
    m = _OWN_RET_RE.match(token)
    if m:
        return Effect(kind="own", arg=RET, other=int(m.group(1)))
    m = _OWN_BY_RET_RE.match(token)
    if m:
        return Effect(kind="own", arg=int(m.group(1)), other=RET)
    if _FORGET_RET_RE.match(token):
        return Effect(kind="forget", arg=RET, other=NO_ARG)
    m = _OWN_RE.match(token)
    if m:
        return Effect(kind="own_by_out" if m.group(3) else "own",
                      arg=int(m.group(1)), other=int(m.group(4)),
                      field=m.group(2) or "")
    m = _ARG_EFFECT_RE.match(token)
    if m:
        if m.group(3) and m.group(1) not in FIELD_EFFECTS:
            return None  # only after-call effects take a struct field
        return Effect(kind=m.group(1), arg=int(m.group(2)),
                      field=m.group(3) or "")
    return None


def parse_spec_line(line: str, path: str, line_no: int) -> Optional[SpecEntry]:
    """Parses one spec line; None for blank and comment lines."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    tokens = text.split()
    function = tokens[0]
    if not api_profile.CONVENTIONS.function_name_re().match(function):
        raise SpecError(path, line_no,
                        f"expected a function name, got '{function}'")
    effects: List[Effect] = []
    since = until = None
    for token in tokens[1:]:
        m = VERSION_RE.match(token)
        if m:
            if m.group(1) == "since":
                since = int(m.group(2))
            else:
                until = int(m.group(2))
            continue
        effect = parse_effect(token)
        if effect is None:
            raise SpecError(path, line_no,
                            f"{function}: unknown effect '{token}'")
        effects.append(effect)
    if not effects:
        raise SpecError(path, line_no, f"{function}: no effects")
    if since is not None and until is not None and since > until:
        raise SpecError(path, line_no,
                        f"{function}: since={since} is after until={until}")
    return SpecEntry(function=function, effects=effects, since=since,
                     until=until, path=path, line_no=line_no)


def parse_spec_text(text: str, path: str = "<spec>") -> List[SpecEntry]:
    """Parses a whole spec; syntax errors raise SpecError."""
    entries = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        entry = parse_spec_line(line, path, line_no)
        if entry is not None:
            entries.append(entry)
    return entries


def parse_spec_file(path: str) -> List[SpecEntry]:
    """Reads and parses the spec file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read spec {path}: {e}")
    return parse_spec_text(text, path)


def _validate_new(entry: "SpecEntry", effect: Effect, fn: "Function",
                  text: str) -> None:
    """new/message/error_message: the result or out param has the right
    type, the parent (if any) is a handle."""
    is_string = effect.kind != "new"
    if effect.arg == RET:
        if is_string:
            # LLVMIntrinsicCopyOverloadedName returns const char * but the
            # caller owns it (catalog: released with LLVMDisposeMessage).
            if fn.ret.replace(" ", "") not in ("char*", "constchar*"):
                raise entry.error(f"{text}: {fn.name} returns {fn.ret}, not"
                                  " char *")
        elif fn.ret_handle is None:
            raise entry.error(f"{text}: {fn.name} returns {fn.ret}, not a"
                              " handle")
    else:
        param = _check_index(entry, fn, effect.arg, "argument")
        if is_string:
            if param.spelling.replace(" ", "") != "char**":
                raise entry.error(f"{text}: parameter {effect.arg}"
                                  f" ({param.spelling}) is not a char **")
        elif param.elem_handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not an LLVMXRef *")
    if effect.other != NO_ARG:
        parent = _check_index(entry, fn, effect.other, "argument")
        if parent.handle is None:
            raise entry.error(f"{text}: parameter {effect.other}"
                              f" ({parent.spelling}) is not a handle")


def _validate_lends(entry: "SpecEntry", effect: Effect, fn: "Function",
                    declared: Dict[str, "Function"], wrapped: Set[str],
                    text: str) -> None:
    """lends(ret,context=F(j)): fn returns the API's string struct, and F
    is an exported function of one argument, arg j, returning a context."""
    string_ref = api_profile.CONVENTIONS.string_ref
    if not string_ref or fn.ret_typedef != string_ref:
        raise entry.error(f"{text}: {fn.name} returns {fn.ret}, not the"
                          " string struct (--string-ref"
                          f" {string_ref or 'is not set'})")
    context_fn = declared.get(effect.count_fn)
    if context_fn is None or effect.count_fn not in wrapped:
        raise entry.error(f"{text}: {effect.count_fn} is not an exported"
                          " function of the headers")
    if len(context_fn.params) != 1 or context_fn.ret_handle != "Context":
        raise entry.error(f"{text}: {effect.count_fn} must take one argument"
                          " and return a context")
    arg = _check_index(entry, fn, effect.count_args[0], "argument")
    if arg.spelling != context_fn.params[0].spelling:
        raise entry.error(f"{text}: parameter {arg.index} ({arg.spelling})"
                          f" is not what {effect.count_fn} takes"
                          f" ({context_fn.params[0].spelling})")


def effect_type_name(fn: "Function", effect: Effect) -> str:
    """The C handle type of the object a New/Own effect is about."""
    if effect.kind == "new":
        spelling = fn.ret if effect.arg == RET else \
            fn.params[effect.arg].spelling
    elif effect.kind in ("own", "forget") and effect.arg == RET:
        spelling = fn.ret
    elif effect.kind in ("own", "own_by_out") and effect.field:
        spelling = fn.params[effect.field_param].field_types[effect.field]
    elif effect.kind in ("own", "own_by_out"):
        spelling = fn.params[effect.arg].spelling
    else:
        return ""
    return spelling.replace("*", "").replace("const", "").strip()


def _check_index(entry: SpecEntry, fn: Function, index: int,
                 what: str) -> Param:
    """Returns param `index` of fn, or raises a spec error naming `what`."""
    if index >= len(fn.params):
        raise entry.error(f"{what} index {index} out of range"
                          f" ({fn.name} has {len(fn.params)} parameters)")
    return fn.params[index]


def _validate_effect(entry: SpecEntry, effect: Effect, fn: Function,
                     declared: Dict[str, Function],
                     wrapped: Set[str]) -> None:
    """Checks one effect against the declaration of its function."""
    text = effect.spec_text()
    if effect.kind == "new" or effect.kind in STRING_EFFECTS:
        _validate_new(entry, effect, fn, text)
        return
    if effect.kind == "lends":
        _validate_lends(entry, effect, fn, declared, wrapped, text)
        return
    if effect.arg == RET:
        # own(ret,by=J) / forget(ret): the result is a handle; so is J.
        if fn.ret_handle is None:
            raise entry.error(f"{text}: {fn.name} returns {fn.ret}, not a"
                              " handle")
        if effect.kind == "own":
            owner = _check_index(entry, fn, effect.other, "argument")
            if owner.handle is None:
                raise entry.error(f"{text}: parameter {effect.other}"
                                  f" ({owner.spelling}) is not a handle")
        return
    param = _check_index(entry, fn, effect.arg, "argument")
    if effect.field:
        if not param.record:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a pointer to a"
                              " struct")
        if effect.field not in param.fields:
            raise entry.error(f"{text}: {param.record} has no field"
                              f" {effect.field}")
        if param.fields[effect.field] is None:
            raise entry.error(f"{text}: field {effect.field} of"
                              f" {param.record} is not a handle")
        if effect.kind in ("own", "own_by_out"):
            owner = _check_index(entry, fn, effect.other, "argument")
            if effect.kind == "own" and owner.handle is None:
                raise entry.error(f"{text}: parameter {effect.other}"
                                  f" ({owner.spelling}) is not a handle")
            if effect.kind == "own_by_out" and owner.elem_handle is None:
                raise entry.error(f"{text}: parameter {effect.other}"
                                  f" ({owner.spelling}) is not an"
                                  " LLVMXRef *")
        return
    if effect.kind == "own" and effect.other == RET:
        if param.handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a handle")
        if not any(e.kind == "new" and e.arg == RET for e in entry.effects):
            raise entry.error(f"{text}: by=ret needs new(ret) in the entry")
        return
    if effect.kind in ("own", "own_by_out"):
        param = _check_index(entry, fn, effect.arg, "argument")
        owner = _check_index(entry, fn, effect.other, "argument")
        if param.handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a handle")
        if effect.kind == "own" and owner.handle is None:
            raise entry.error(f"{text}: parameter {effect.other}"
                              f" ({owner.spelling}) is not a handle")
        if effect.kind == "own_by_out" and owner.elem_handle is None:
            raise entry.error(f"{text}: parameter {effect.other}"
                              f" ({owner.spelling}) is not an LLVMXRef *")
        return
    if effect.kind in ("free_message", "free_error_message"):
        param = _check_index(entry, fn, effect.arg, "argument")
        if param.spelling.replace(" ", "") not in ("char*", "constchar*"):
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a char *")
        return
    if effect.kind in ("consume", "consume_if_ok", "consume_if_failed",
                       "forget"):
        param = _check_index(entry, fn, effect.arg, "argument")
        if param.handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a handle")
        return
    if effect.kind == "serialized_by":
        if param.handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a handle")
        return
    if effect.kind == "data_only":
        # Only these belong to a context the check would compare.
        if param.handle not in ("Value", "Type"):
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a value or type")
        return
    if effect.kind == "renames":
        if param.handle not in ("Value", "BasicBlock", "Module"):
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a value, block or"
                              f" module")
        return
    if effect.kind == "cause_text":
        if param.spelling.replace(" ", "") != "constchar*":
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a const char *")
        return
    if effect.kind == "position":
        if param.handle != "Builder":
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a builder")
        for index in (effect.other, effect.extra):
            if index == NO_ARG:
                continue
            other = _check_index(entry, fn, index, "argument")
            if other.handle not in ("Value", "BasicBlock"):
                raise entry.error(f"{text}: parameter {index}"
                                  f" ({other.spelling}) is not a block or"
                                  " instruction")
        return
    if effect.kind in HOOK_EFFECTS:
        if param.handle is None:
            raise entry.error(f"{text}: parameter {effect.arg}"
                              f" ({param.spelling}) is not a handle")
    if effect.kind in ("attach", "attach_at_builder"):
        other = _check_index(entry, fn, effect.other, "argument")
        if other.handle is None:
            raise entry.error(f"{text}: parameter {effect.other}"
                              f" ({other.spelling}) is not a handle")
        if effect.kind == "attach_at_builder" and other.handle != "Builder":
            raise entry.error(f"{text}: parameter {effect.other}"
                              f" ({other.spelling}) is not a builder")
    if effect.kind != "out_array":
        return
    if param.elem_handle is None:
        raise entry.error(f"{text}: parameter {effect.arg}"
                          f" ({param.spelling}) is not a handle array")
    if effect.count_fn is not None:
        count_fn = declared.get(effect.count_fn)
        if count_fn is None:
            raise entry.error(f"{text}: count function {effect.count_fn} is"
                              " not declared in the headers")
        if effect.count_fn not in wrapped:
            raise entry.error(f"{text}: count function {effect.count_fn} is"
                              " not exported by the library")
        if len(effect.count_args) != len(count_fn.params):
            raise entry.error(f"{text}: {effect.count_fn} takes"
                              f" {len(count_fn.params)} arguments")
        if count_fn.returns_void:
            raise entry.error(f"{text}: {effect.count_fn} returns void")
        for index in effect.count_args:
            _check_index(entry, fn, index, "count argument")
    else:
        count = _check_index(entry, fn, effect.count_arg, "count argument")
        if not count.is_integer:
            raise entry.error(f"{text}: parameter {effect.count_arg}"
                              f" ({count.spelling}) is not an integer")
    if effect.arg > 255 or effect.other > 255:
        raise entry.error(f"{text}: argument index does not fit uint8_t")


def resolve_spec(entries: Sequence[SpecEntry], major: int,
                 declared: Dict[str, Function],
                 wrapped: Set[str]) -> Dict[str, List[Effect]]:
    """Selects the entries for this LLVM major and validates them.

    Returns function name -> effects. Entries whose since/until exclude the
    major are skipped silently; an applicable entry for an undeclared
    function, a bad index or an effect on a non-handle is a SpecError.
    """
    effects: Dict[str, List[Effect]] = {}
    for entry, fn in applicable_entries(entries, major, declared):
        for effect in entry.effects:
            _validate_effect(entry, effect, fn, declared, wrapped)
        effects[entry.function] = _number_fields(fn, entry.effects)
    return effects


def applicable_entries(entries, major: int, declared: Dict[str, Function]):
    """Yields (entry, its function's declaration) for each entry of a spec
    (the ownership spec's or the kinds spec's) that applies to `major`; an
    applicable entry for a function the headers do not declare, or a second
    one for the same function, is a SpecError."""
    first_line: Dict[str, int] = {}
    for entry in entries:
        if not entry.applies_to(major):
            continue
        fn = declared.get(entry.function)
        if fn is None:
            raise entry.error(f"not declared in the LLVM {major} headers")
        if entry.function in first_line:
            raise entry.error("duplicate entry (also on line"
                              f" {first_line[entry.function]})")
        first_line[entry.function] = entry.line_no
        yield entry, fn


def _number_fields(fn: Function,
                   entry_effects: Sequence[Effect]) -> List[Effect]:
    """Gives each distinct struct field an effect names (`2.MCJMM`) a pseudo
    argument index after the real ones: the wrapper passes the field's value
    there in the args array it hands the runtime."""
    numbered: Dict[Tuple[int, str], int] = {}
    out = []
    for e in entry_effects:
        if not e.field:
            out.append(e)
            continue
        key = (e.arg, e.field)
        if key not in numbered:
            numbered[key] = len(fn.params) + len(numbered)
        if numbered[key] > 250:
            raise GenError(f"{fn.name}: too many arguments for {e.field}")
        out.append(dataclasses.replace(e, arg=numbered[key],
                                       field_param=e.arg))
    return out
