# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The generator's data model: its errors, the spec's effect kinds and
argument constants, and the data classes that carry a declared function,
a spec entry and a wrapper's classification from one step to the next."""

import dataclasses
from typing import Dict, List, Optional, Set, Tuple


# An input handle array `LLVMXRef *Foo` must be followed (or, as
# CONVENTIONS says, preceded) by one of these whose name looks like an
# element count (CONVENTIONS.count_after, count_before).
COUNT_INT_TYPES = {"unsigned", "unsigned int", "size_t", "uint64_t", "int",
                   "intptr_t"}

# Spec keyword -> ownsan::EffectKind enumerator.
EFFECT_KINDS = {
    "free": "Free",
    "free_attached": "FreeAttached",
    "free_detached": "FreeDetached",
    "free_caller_owned": "FreeCallerOwned",
    "detach": "Detach",
    "attach": "Attach",
    "attach_at_builder": "AttachAtBuilder",
    "out_array": "OutArray",
    "position": "Position",
    "cause_text": "CauseText",
    "renames": "Renames",
    "serialized_by": "SerializedBy",
    "data_only": "DataOnly",
    "new": "New",
    "consume": "Consume",
    "consume_if_ok": "ConsumeIfOk",
    "consume_if_failed": "ConsumeIfFailed",
    "own": "Own",
    "own_by_out": "OwnByOut",
    "message": "Message",
    "unterminated_message": "UnterminatedMessage",
    "error_message": "ErrorMessage",
    "free_message": "FreeMessage",
    "free_error_message": "FreeErrorMessage",
    "forget": "Forget",
    "lends": "Lends",
}

# Effect.arg naming the call's result (ownsan::kRet).
RET = 254
# Marks an absent optional argument of position(...) (ownsan::kNoArg).
NO_ARG = 255
# Effects that act on a handle argument before/after the call (everything
# except out_array, which the wrapper handles itself).
HOOK_EFFECTS = {"free", "free_attached", "free_detached", "free_caller_owned",
                "detach", "attach",
                "attach_at_builder", "position", "cause_text", "renames",
                "new",
                "consume", "consume_if_ok", "consume_if_failed", "own",
                "own_by_out", "forget", "message", "unterminated_message",
                "error_message", "free_message", "free_error_message"}
# Effects whose argument may be a handle field of a struct argument
# (`2.MCJMM`); they act after the call only.
FIELD_EFFECTS = {"own", "own_by_out", "consume_if_ok", "consume_if_failed",
                 "forget"}
# String effects (the result or an out param is an owned string).
STRING_EFFECTS = ("message", "unterminated_message", "error_message")


class GenError(Exception):
    """A fatal problem; main() prints it as one line and exits non-zero."""


class SpecError(GenError):
    """A problem with one line of the spec file."""

    def __init__(self, path: str, line_no: int, message: str):
        super().__init__(f"{path}:{line_no}: {message}")
        self.path = path
        self.line_no = line_no


@dataclasses.dataclass
class Param:
    """One parameter of a declared function."""

    index: int
    name: str  # as written in the header ("" when unnamed)
    spelling: str  # the type as written (typedef names kept)
    handle: Optional[str] = None  # HandleType if the param is a handle
    elem_handle: Optional[str] = None  # HandleType X if the type is LLVMXRef *
    # The handle (or, for elem_handle, each element) is a struct of one
    # pointer, `ptr`, passed by value (CONVENTIONS.struct_handles).
    struct_handle: bool = False
    elem_struct: bool = False
    is_integer: bool = False  # spelled as one of COUNT_INT_TYPES
    owned_array: bool = False  # a malloc'ed array (see is_owned_array)
    # Passed as CONVENTIONS.string_ref (MlirStringRef): its `data` is
    # checked against lent strings whose owner died.
    string_ref: bool = False
    # Pointer to a struct: its C spelling and its fields (name -> HandleType
    # or None, and name -> C type), for effects on a handle field (`2.MCJMM`).
    record: str = ""
    fields: Dict[str, Optional[str]] = dataclasses.field(
        default_factory=dict)
    field_types: Dict[str, str] = dataclasses.field(default_factory=dict)
    field_structs: Set[str] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class Function:
    """One function of the API declared in the headers."""

    name: str
    ret: str  # return type as written ("void" for none)
    params: List[Param]
    ret_handle: Optional[str] = None  # HandleType if a handle is returned
    ret_typedef: str = ""  # typedef name of the return type, if any
    header: str = ""  # llvm-c/Foo.h that declares it
    ret_struct: bool = False  # the handle returned is a struct (`r.ptr`)

    @property
    def returns_void(self) -> bool:
        return self.ret == "void"


@dataclasses.dataclass(frozen=True)
class Effect:
    """One effect of a spec entry.

    kind is a key of EFFECT_KINDS. `other` is the second argument of attach
    effects. For out_array, exactly one of count_fn (with count_args) or
    count_arg says how many elements the call wrote.
    """

    kind: str
    arg: int
    other: int = 0
    extra: int = NO_ARG  # position(): the `before` instruction argument
    out: bool = False  # new/message: `arg` is an out parameter
    count_fn: Optional[str] = None
    count_args: Tuple[int, ...] = ()
    count_arg: Optional[int] = None
    # A handle field of a struct argument: `arg` is then a pseudo argument
    # numbered after the real ones (see resolve_spec), field_param the
    # struct argument (before resolve_spec: `arg` is the struct argument).
    field: str = ""
    field_param: int = NO_ARG

    def arg_text(self) -> str:
        """The argument as written in the spec: `3` or `2.MCJMM`."""
        if self.arg == RET:
            return "ret"
        if not self.field:
            return str(self.arg)
        param = self.arg if self.field_param == NO_ARG else self.field_param
        return f"{param}.{self.field}"

    def spec_text(self) -> str:
        """Renders the effect back in spec syntax."""
        if self.kind == "attach":
            return f"attach({self.arg},parent={self.other})"
        if self.kind == "attach_at_builder":
            return f"attach({self.arg},builder={self.other})"
        if self.kind == "new" or self.kind in STRING_EFFECTS:
            what = "ret" if self.arg == RET else f"out={self.arg}"
            parent = (f",parent={self.other}"
                      if self.kind == "new" and self.other != NO_ARG else "")
            when = ""
            if self.out:
                when = ",when=" + {1: "ok", 2: "failed", 0: "always"}[
                    self.extra]
            return f"{self.kind}({what}{parent}{when})"
        if self.kind == "own":
            by = "ret" if self.other == RET else str(self.other)
            return f"own({self.arg_text()},by={by})"
        if self.kind == "own_by_out":
            return f"own({self.arg_text()},by=out={self.other})"
        if self.kind == "position":
            text = f"position({self.arg}"
            if self.other != NO_ARG:
                text += f",block={self.other}"
            if self.extra != NO_ARG:
                text += f",before={self.extra}"
            return text + ")"
        if self.kind == "lends":
            return f"lends(ret,context={self.count_fn}({self.count_args[0]}))"
        if self.kind == "out_array":
            if self.count_fn is not None:
                args = ",".join(str(a) for a in self.count_args)
                return f"out_array({self.arg},count={self.count_fn}({args}))"
            return f"out_array({self.arg},count=arg({self.count_arg}))"
        return f"{self.kind}({self.arg_text()})"


@dataclasses.dataclass
class SpecEntry:
    """One entry line of the spec file."""

    function: str
    effects: List[Effect]
    since: Optional[int]
    until: Optional[int]
    path: str
    line_no: int

    def applies_to(self, major: int) -> bool:
        """True if the since/until range includes this LLVM major."""
        if self.since is not None and major < self.since:
            return False
        if self.until is not None and major > self.until:
            return False
        return True

    def error(self, message: str) -> SpecError:
        """Builds an error that names this entry's line."""
        return SpecError(self.path, self.line_no,
                         f"{self.function}: {message}")


@dataclasses.dataclass
class HandleArray:
    """An input array of handles: param `param`, length in param `count`."""

    param: int
    handle: str
    count: int


@dataclasses.dataclass
class HandleOut:
    """A handle pointer param (single out-handle or unhandled pointer)."""

    param: int
    handle: str


@dataclasses.dataclass(frozen=True)
class KindSet:
    """A set of base kinds and how a report says it ("a function")."""

    name: str
    kinds: Tuple[str, ...]  # base kinds, sorted
    description: str


@dataclasses.dataclass
class Classification:
    """Everything the wrapper of one function does with its arguments."""

    arrays: List[HandleArray]
    outs: List[HandleOut]  # registered after a successful call
    out_condition: str  # C++ condition for `outs`, e.g. "r == 0"
    out_unregistered: List[HandleOut]  # Out* handle params not registered
    unchecked_ptrs: List[HandleOut]  # other LLVMXRef * params: no checks
    effects: List[Effect]  # from the spec, in spec order
    # Argument -> (index into kKindExpectations, its KindSet): the kinds of
    # value the argument must name (src/profiles/llvm_c/handle_kinds.spec).
    expects: Dict[int, Tuple[int, "KindSet"]] = dataclasses.field(
        default_factory=dict)

    @property
    def has_hooks(self) -> bool:
        """True if the runtime's Before/After hooks must run."""
        return any(e.kind in HOOK_EFFECTS for e in self.effects)
