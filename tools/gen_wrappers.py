#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate ownsan's wrappers of a C API from its headers and the spec.

Reads the headers of one LLVM version (with libclang; LLVM-C's llvm-c/*.h
by default), the functions the matching libraries export (`nm -D` of a
shared library, `nm` of a static archive) and the profile's ownership spec
(src/profiles/llvm_c/ownership.spec), and writes into --out-dir:

  fn_ids.h            one FnId per wrapped function (kFn_LLVMFoo)
  real_fns.h          the runtime's typed calls into the real libLLVM
                      (ownsan::real::LLVMFoo)
  wrappers.cpp        one wrapper per function, in the shape documented in
                      interpose/wrapper_api.h, plus kFnInfo/kFnCount/g_real_fns
  symbols.c           the name -> wrapper table for the dlsym interposer
  ownsan.wrap         link mode's linker options: --wrap=LLVMFoo for every
                      wrapped function (and operator new/delete)
  ownsan.map          the runtime's version script: the wrappers carry the
                      libLLVM's own symbol version (see render_version_script)
  coverage.txt        what was exported, declared and wrapped
  classification.txt  a reviewable dump of how each wrapper treats its args
                      (for LLVM 19 committed as tests/golden/classification-
                      llvm19.txt; tools/classification_golden.py)

Usage:
  gen_wrappers.py --include-dir /usr/lib/llvm-19/include \\
      --lib /usr/lib/llvm-19/lib/libLLVM.so.19.1 --llvm-major 19 \\
      --spec src/profiles/llvm_c/ownership.spec --out-dir build/gen [--libclang PATH]

The API's conventions (function prefix, headers, handles passed as structs,
where an array's count is) are LLVM-C's unless options say otherwise:
tools/gen_conventions.py has them, and MLIR-C's.

Nothing in this file depends on the LLVM version: version differences belong
in the spec (since=/until=).
"""

import argparse
import dataclasses
import glob
import os
import re
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_conventions  # noqa: E402

DEFAULT_LIBCLANG = "/usr/lib/llvm-19/lib/libclang-19.so.1"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The API's conventions (LLVM-C's unless main() is told otherwise).
CONVENTIONS = gen_conventions.Conventions()

# The table of handle types and object kinds, shared with the runtime.
# The LLVM-C profile's table (src/profiles/llvm_c/profile.cmake names it and
# passes it as --handle-types).
HANDLE_TYPES_DEF = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c",
                                "handle_types.def")
_HANDLE_ROW_RE = re.compile(
    r'^OWNSAN_(HANDLE_TYPE|HANDLE_TYPE_ALIAS|OBJECT_KIND)\(\s*(\w+)\s*,'
    r'\s*(\w+)?\s*,?\s*"([^"]*)"', re.MULTILINE)


def read_handle_types(path: str = HANDLE_TYPES_DEF
                      ) -> Tuple[Dict[str, str], List[str]]:
    """The rows of a profile's handle_types.def: (C typedef -> HandleType
    enumerator, for the OWNSAN_HANDLE_TYPE(_ALIAS) rows with a typedef;
    the ObjectKind enumerators, in order)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read {path}: {e}")
    named: Dict[str, str] = {}
    kinds: List[str] = []
    for m in _HANDLE_ROW_RE.finditer(text):
        macro, first = m.group(1), m.group(2)
        if macro == "OBJECT_KIND":
            kinds.append(first)
        elif m.group(4):
            named[m.group(4)] = first
    if not named or not kinds:
        raise GenError(f"{path}: no handle type or object kind rows")
    return named, kinds


# Handle typedefs with their own HandleType; every other typedef named
# as CONVENTIONS.pointer_handles says (LLVM*Ref) whose canonical type is a
# (non-function) pointer is `Other`, and so is every other struct handle
# (CONVENTIONS.struct_handles).
NAMED_HANDLE_TYPES, OBJECT_KINDS = read_handle_types()
# Plain structs that LLVM hands out as malloc'ed arrays the caller releases
# with a disposer (Core.cpp: LLVMCopyModuleFlagsMetadata /
# LLVMDisposeModuleFlagsMetadata, LLVMGlobalCopyAllMetadata /
# LLVMDisposeValueMetadataEntries): a pointer to one is a handle of type
# Other, so new(ret)/free(0) apply and the accessors taking the array are
# checked.
OWNED_ARRAY_TYPEDEFS = {"LLVMModuleFlagEntry", "LLVMValueMetadataEntry"}
# The same for ORC (OrcV2CBindings.cpp: LLVMOrcMaterializationResponsibility-
# GetSymbols / LLVMOrcDisposeCSymbolFlagsMap, ...GetRequestedSymbols /
# LLVMOrcDisposeSymbols): a typedef of a pointer to the pairs, and a
# pointer to the pool-entry handle.
OWNED_ARRAY_POINTER_TYPEDEFS = {"LLVMOrcCSymbolFlagsMapPairs"}
OWNED_ARRAY_OF_HANDLES = {"LLVMOrcSymbolStringPoolEntryRef"}

# An input handle array `LLVMXRef *Foo` must be followed (or, as
# CONVENTIONS says, preceded) by one of these whose name looks like an
# element count (CONVENTIONS.count_after, count_before).
COUNT_INT_TYPES = {"unsigned", "unsigned int", "size_t", "uint64_t", "int",
                   "intptr_t"}

# Return types after which a single `Out*` handle parameter is registered,
# with the condition meaning "the call succeeded": CONVENTIONS.out_success
# (LLVMBool: r == 0, LLVMErrorRef: r == nullptr).

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
# Function-level facts that are not spec effects, decided from the
# function's name, once per function, by the profile's name rules
# (src/profiles/llvm_c/fn_flags.txt): kFnFlags[fn] in the generated tables.
# Flag -> the C++ bit of interpose/wrapper_api.h the runtime reads.
FN_FLAG_BITS = {
    "cast": "kFnIsCast",
    "insertion_point": "kFnUsesInsertionPoint",
    "creates": "kFnCreates",
}
FN_FLAGS_TXT = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c",
                            "fn_flags.txt")


def read_fn_flags(path: str = FN_FLAGS_TXT) -> List[Tuple[str, str, str]]:
    """The rows of a profile's fn_flags.txt: (flag, "prefix"|"name", text)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read {path}: {e}")
    rows = []
    for n, line in enumerate(text.split("\n"), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if (len(words) != 3 or words[0] not in FN_FLAG_BITS or
                words[1] not in ("prefix", "name")):
            raise GenError(f"{path}:{n}: expected `FLAG prefix|name TEXT`"
                           f" with FLAG one of {sorted(FN_FLAG_BITS)}")
        rows.append((words[0], words[1], words[2]))
    return rows


FN_FLAG_RULES = read_fn_flags()


def fn_flags(name: str) -> List[str]:
    """The flags that hold for the function `name`, in FN_FLAG_BITS order."""
    hold = {flag for flag, how, text in FN_FLAG_RULES
            if (name.startswith(text) if how == "prefix" else name == text)}
    return [flag for flag in FN_FLAG_BITS if flag in hold]


def fn_flags_expr(name: str) -> str:
    """kFnFlags[] of the function `name`, as a C++ expression."""
    bits = [FN_FLAG_BITS[flag] for flag in fn_flags(name)]
    return " | ".join(bits) if bits else "0"


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


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Headers (libclang)
# --------------------------------------------------------------------------


def load_libclang(path: str):
    """Imports clang.cindex and points it at `path` (once per process)."""
    try:
        # pylint: disable-next=import-outside-toplevel
        import clang.cindex as cindex
    except ImportError as e:
        raise GenError(f"cannot import clang.cindex (python3-clang-19): {e}")
    if not cindex.Config.loaded:
        if not os.path.exists(path):
            raise GenError(f"libclang not found: {path}")
        cindex.Config.set_library_file(path)
    return cindex


def list_headers(include_dir: str,
                 conventions: Optional[gen_conventions.Conventions] = None
                 ) -> List[str]:
    """Returns the headers to parse, as "llvm-c/Foo.h": those of each glob
    of the conventions (sorted), in the globs' order, but the excluded."""
    conv = conventions or CONVENTIONS
    found: List[str] = []
    for pattern in conv.header_globs:
        for path in sorted(glob.glob(os.path.join(include_dir, pattern),
                                     recursive=True)):
            rel = os.path.relpath(path, include_dir).replace(os.sep, "/")
            if rel not in conv.excluded_headers and rel not in found:
                found.append(rel)
    if not found:
        raise GenError(f"no {conv.header_dir} headers under {include_dir}")
    return found


def header_llvm_major(include_dir: str) -> Optional[int]:
    """LLVM_VERSION_MAJOR from llvm/Config/llvm-config.h, if present."""
    path = os.path.join(include_dir, "llvm", "Config", "llvm-config.h")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        m = re.search(r"^#define\s+LLVM_VERSION_MAJOR\s+(\d+)", f.read(), re.M)
    return int(m.group(1)) if m else None


def typedef_name(cindex, clang_type) -> str:
    """The typedef a type is spelled with ("" if it is not a typedef name).

    Works through the ElaboratedType sugar that clang >= 16 adds and ignores
    cv-qualifiers, so `const LLVMValueRef` gives "LLVMValueRef".
    """
    decl = clang_type.get_declaration()
    if decl.kind == cindex.CursorKind.TYPEDEF_DECL:
        return decl.spelling
    return ""


def is_owned_array(cindex, clang_type) -> bool:
    """A malloc'ed array LLVM hands to the caller (LLVMModuleFlagEntry * and
    the like): its disposer is just free()."""
    if (clang_type.kind == cindex.TypeKind.POINTER and typedef_name(
            cindex, clang_type.get_pointee()) in
            OWNED_ARRAY_TYPEDEFS | OWNED_ARRAY_OF_HANDLES):
        return True
    return typedef_name(cindex, clang_type) in OWNED_ARRAY_POINTER_TYPEDEFS


def struct_handle_name(cindex, clang_type) -> str:
    """For a struct handle (Conventions.is_struct_handle: MLIR-C's
    `struct MlirValue {const void *ptr;}`), its name (typedef, else tag);
    "" for any other type."""
    if not CONVENTIONS.is_struct_handle(cindex, clang_type):
        return ""
    return (typedef_name(cindex, clang_type)
            or clang_type.get_canonical().get_declaration().spelling)


def element_type_of(cindex, clang_type):
    """The element type of a pointer or array type, else None."""
    if clang_type.kind == cindex.TypeKind.POINTER:
        return clang_type.get_pointee()
    if clang_type.kind in (cindex.TypeKind.INCOMPLETEARRAY,
                           cindex.TypeKind.CONSTANTARRAY):
        return clang_type.element_type
    return None


def handle_type_of(cindex, clang_type) -> Optional[str]:
    """The HandleType name of a type spelled as a handle typedef, else None."""
    if is_owned_array(cindex, clang_type):
        return "Other"
    struct_name = struct_handle_name(cindex, clang_type)
    if struct_name:
        return NAMED_HANDLE_TYPES.get(struct_name, "Other")
    name = typedef_name(cindex, clang_type)
    if not name:
        return None
    if name in NAMED_HANDLE_TYPES:
        return NAMED_HANDLE_TYPES[name]
    pointer_handles = CONVENTIONS.pointer_handle_re()
    if pointer_handles is None or not pointer_handles.match(name):
        return None
    canonical = clang_type.get_canonical()
    if canonical.kind != cindex.TypeKind.POINTER:
        return None
    if canonical.get_pointee().kind in (cindex.TypeKind.FUNCTIONPROTO,
                                        cindex.TypeKind.FUNCTIONNOPROTO):
        return None  # a callback typedef, not an object handle
    return "Other"


def record_fields_of(cindex, clang_type):
    """For a pointer to a struct: its spelling, field name -> HandleType
    (None for fields that are not handles) and field name -> C type.
    ("", {}, {}) otherwise."""
    if clang_type.get_canonical().kind != cindex.TypeKind.POINTER:
        return "", {}, {}
    pointee = clang_type.get_canonical().get_pointee()
    if pointee.kind != cindex.TypeKind.RECORD:
        return "", {}, {}
    fields = {f.spelling: handle_type_of(cindex, f.type)
              for f in pointee.get_fields()}
    types = {f.spelling: type_spelling(f.type) for f in pointee.get_fields()}
    spelling = pointee.spelling.replace("const ", "").strip()
    return spelling, fields, types


def struct_fields_of(cindex, clang_type) -> Set[str]:
    """For a pointer to a struct: its fields that are struct handles."""
    if clang_type.get_canonical().kind != cindex.TypeKind.POINTER:
        return set()
    pointee = clang_type.get_canonical().get_pointee()
    if pointee.kind != cindex.TypeKind.RECORD:
        return set()
    return {f.spelling for f in pointee.get_fields()
            if struct_handle_name(cindex, f.type)}


def element_handle_type_of(cindex, clang_type) -> Optional[str]:
    """HandleType X if the type is `LLVMXRef *` or `LLVMXRef[]`, else None."""
    element = element_type_of(cindex, clang_type)
    return handle_type_of(cindex, element) if element is not None else None


def type_spelling(clang_type) -> str:
    """A type as the headers write it, in a form C++ takes too: C's `bool`
    (stdbool.h: `_Bool`, which only g++ accepts) becomes `bool`, the same
    type for the ABI."""
    return re.sub(r"\b_Bool\b", "bool", clang_type.spelling)


def check_spelling(function: str, spelling: str) -> None:
    """Rejects type spellings that cannot be written back in C++."""
    if "(unnamed" in spelling or "(anonymous" in spelling:
        raise GenError(f"{function}: cannot spell type '{spelling}'")


def function_from_cursor(cindex, cursor, include_dir: str) -> Function:
    """Builds the model of one FUNCTION_DECL cursor."""
    name = cursor.spelling
    if cursor.type.kind == cindex.TypeKind.FUNCTIONPROTO:
        if cursor.type.is_function_variadic():
            raise GenError(f"{name} is variadic; wrappers cannot forward it")
    params = []
    for i, arg in enumerate(cursor.get_arguments()):
        spelling = type_spelling(arg.type)
        check_spelling(name, spelling)
        record, fields, field_types = record_fields_of(cindex, arg.type)
        element = element_type_of(cindex, arg.type)
        params.append(Param(
            index=i,
            name=arg.spelling,
            spelling=spelling,
            handle=handle_type_of(cindex, arg.type),
            elem_handle=element_handle_type_of(cindex, arg.type),
            struct_handle=bool(struct_handle_name(cindex, arg.type)),
            elem_struct=element is not None and bool(
                struct_handle_name(cindex, element)),
            is_integer=spelling in COUNT_INT_TYPES,
            owned_array=is_owned_array(cindex, arg.type),
            string_ref=bool(CONVENTIONS.string_ref) and typedef_name(
                cindex, arg.type) == CONVENTIONS.string_ref,
            record=record,
            fields=fields,
            field_types=field_types,
            field_structs=struct_fields_of(cindex, arg.type),
        ))
    ret_type = cursor.result_type
    ret_spelling = type_spelling(ret_type)
    check_spelling(name, ret_spelling)
    header = ""
    if cursor.location.file is not None:
        header = os.path.relpath(cursor.location.file.name, include_dir)
    return Function(
        name=name,
        ret=ret_spelling,
        params=params,
        ret_handle=handle_type_of(cindex, ret_type),
        ret_typedef=typedef_name(cindex, ret_type),
        header=header.replace(os.sep, "/"),
        ret_struct=bool(struct_handle_name(cindex, ret_type)),
    )


def same_signature(a: Function, b: Function) -> bool:
    """True if two declarations of a function agree on all types."""
    a_params = [p.spelling for p in a.params]
    b_params = [p.spelling for p in b.params]
    return a.ret == b.ret and a_params == b_params


def parse_headers(include_dir: str, headers: Sequence[str],
                  libclang: str = DEFAULT_LIBCLANG,
                  extra_include_dirs: Sequence[str] = ()
                  ) -> Dict[str, Function]:
    """Parses the headers as one C translation unit.

    Returns every function with external linkage whose name starts with
    the prefix (LLVM; static inline helpers such as LLVMInitializeAllTargets
    are skipped). extra_include_dirs are searched after include_dir (the
    headers the API's headers include: an unpacked MLIR's mlir-c/ includes
    the installed LLVM's llvm-c/).
    """
    cindex = load_libclang(libclang)
    source = "".join(f'#include "{h}"\n' for h in headers)
    unit_name = "ownsan_all_llvm_c.c"
    what = f"the {CONVENTIONS.header_dir} headers"
    index = cindex.Index.create()
    # (And the conventions' --extra-include: the generator's way to say it.)
    include_args = [f"-I{d}" for d in dict.fromkeys(
        (include_dir, *extra_include_dirs, *CONVENTIONS.extra_includes))]
    try:
        tu = index.parse(unit_name,
                         args=["-x", "c", "-std=c11", *include_args],
                         unsaved_files=[(unit_name, source)])
    except cindex.TranslationUnitLoadError as e:
        raise GenError(f"libclang failed to parse {what}: {e}")
    errors = [d for d in tu.diagnostics
              if d.severity >= cindex.Diagnostic.Error]
    if errors:
        raise GenError(f"errors parsing {what}: {errors[0]}"
                       f" (and {len(errors) - 1} more)")

    functions: Dict[str, Function] = {}
    for cursor in tu.cursor.get_children():
        if cursor.kind != cindex.CursorKind.FUNCTION_DECL:
            continue
        if not cursor.spelling.startswith(CONVENTIONS.prefix):
            continue
        if cursor.linkage != cindex.LinkageKind.EXTERNAL:
            continue  # static inline definitions
        fn = function_from_cursor(cindex, cursor, include_dir)
        previous = functions.get(fn.name)
        if previous is not None:
            if not same_signature(previous, fn):
                raise GenError(f"{fn.name} is declared twice with different"
                               " types")
            continue
        functions[fn.name] = fn
    return functions


# --------------------------------------------------------------------------
# Exported symbols
# --------------------------------------------------------------------------


def parse_nm_output(text: str) -> Set[str]:
    """Exported LLVM* function names (CONVENTIONS.prefix) from `nm -D
    --defined-only` output, or `nm --defined-only` of a static archive.

    Symbol versions (`@@LLVM_19.1`, `@LLVM_14`) are stripped.
    """
    names = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        sym_type, name = fields[-2], fields[-1]
        if sym_type not in ("T", "W", "i"):
            continue  # not a function (or the version node itself)
        name = name.split("@", 1)[0]
        if name.startswith(CONVENTIONS.prefix):
            names.add(name)
    return names


def parse_nm_version_node(text: str) -> Optional[str]:
    """The default symbol version of the LLVM* functions in `nm -D` output.

    Debian's libLLVM versions its exports (`LLVMFoo@@LLVM_19.1`,
    `@@LLVM_14`); None for a library without symbol versions. Two different
    default versions on LLVM* functions are an error: the runtime can carry
    only one.
    """
    nodes = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[-2] not in ("T", "W", "i"):
            continue
        name, sep, version = fields[-1].partition("@@")
        if sep and name.startswith(CONVENTIONS.prefix):
            nodes.add(version)
    if len(nodes) > 1:
        raise GenError(f"LLVM* functions with several default symbol"
                       f" versions: {sorted(nodes)}")
    return nodes.pop() if nodes else None


def is_archive(lib: str) -> bool:
    """A static archive (its members' symbols), not a shared library."""
    return lib.endswith(".a")


def nm_command(libs: Sequence[str]) -> List[str]:
    """`nm -D --defined-only` of a shared library (its dynamic symbols);
    `nm --defined-only` of static archives (every member's symbol table,
    all archives in one run: nm takes a second to start)."""
    return ["nm"] + ([] if is_archive(libs[0]) else ["-D"]) + [
        "--defined-only"] + list(libs)


def run_nm(lib: Union[str, Sequence[str]]) -> str:
    """The defined symbols of the library, or of the archives
    (nm_command)."""
    libs = [lib] if isinstance(lib, str) else list(lib)
    for path in libs:
        if not os.path.exists(path):
            raise GenError(f"library not found: {path}")
    command = nm_command(libs)
    try:
        result = subprocess.run(command, check=True, capture_output=True,
                                text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise GenError(f"{' '.join(command[:-len(libs) - 1])} failed on"
                       f" {' '.join(libs)}: {e}")
    return result.stdout


def read_exports(libs: Sequence[str]) -> Tuple[Set[str], Optional[str]]:
    """The LLVM* functions the libraries export (a function several
    archives define counts once) and the shared libraries' default symbol
    version (parse_nm_version_node; an archive's symbols have none)."""
    archives = [lib for lib in libs if is_archive(lib)]
    texts = [run_nm(lib) for lib in libs if not is_archive(lib)]
    exported: Set[str] = set()
    for text in texts + ([run_nm(archives)] if archives else []):
        exported |= parse_nm_output(text)
    return exported, parse_nm_version_node("".join(texts))


def read_exported_functions(lib: Union[str, Sequence[str]]) -> Set[str]:
    """The LLVM* functions the library (or libraries) export."""
    return read_exports([lib] if isinstance(lib, str) else lib)[0]


# --------------------------------------------------------------------------
# Spec
# --------------------------------------------------------------------------

_INDEX_EFFECT_RE = re.compile(
    r"^(free|free_attached|free_detached|free_caller_owned|detach)"
    r"\((\d+)\)$")
_ATTACH_RE = re.compile(r"^attach\((\d+),(parent|builder)=(\d+)\)$")
_OUT_ARRAY_ARG_RE = re.compile(r"^out_array\((\d+),count=arg\((\d+)\)\)$")
_POSITION_RE = re.compile(
    r"^position\((\d+)(?:,block=(\d+))?(?:,before=(\d+))?\)$")
_CAUSE_TEXT_RE = re.compile(r"^cause_text\((\d+)\)$")
_RENAMES_RE = re.compile(r"^renames\((\d+)\)$")
_SERIALIZED_RE = re.compile(r"^serialized_by\((\d+)\)$")
_DATA_ONLY_RE = re.compile(r"^data_only\((\d+)\)$")
_NEW_RE = re.compile(
    r"^(new|message|unterminated_message|error_message)"
    r"\((ret|out=(\d+))(?:,parent=(\d+))?"
    r"(?:,when=(ok|failed|always))?\)$")
WHEN = {"ok": 1, "failed": 2, "always": 0}
# The names interpose/wrapper_api.h gives the numbers in the effect tables.
WHEN_CONSTANT = {0: "kWrittenAlways", 1: "kWrittenIfOk", 2: "kWrittenIfFailed"}


def arg_constant(n):
    """An effect's argument index as the generated table spells it."""
    return {RET: "kRet", NO_ARG: "kNoArg"}.get(n, str(n))
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
_VERSION_RE = re.compile(r"^(since|until)=(\d+)$")


def _lends_re() -> "re.Pattern[str]":
    """lends(ret,context=mlirFn(j)): the returned string's bytes belong to
    the context the API's function returns for arg j."""
    return re.compile(r"^lends\(ret,context=(" +
                      re.escape(CONVENTIONS.prefix) + r"\w+)\((\d+)\)\)$")


def _out_array_fn_re() -> "re.Pattern[str]":
    """out_array(i,count=LLVMFn(j[,k])): the count function is the API's."""
    return re.compile(r"^out_array\((\d+),count=(" +
                      re.escape(CONVENTIONS.prefix) +
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
    m = _CAUSE_TEXT_RE.match(token)
    if m:
        return Effect(kind="cause_text", arg=int(m.group(1)))
    m = _RENAMES_RE.match(token)
    if m:
        return Effect(kind="renames", arg=int(m.group(1)))
    m = _SERIALIZED_RE.match(token)
    if m:
        return Effect(kind="serialized_by", arg=int(m.group(1)))
    m = _DATA_ONLY_RE.match(token)
    if m:
        return Effect(kind="data_only", arg=int(m.group(1)))
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
    if not CONVENTIONS.function_name_re().match(function):
        raise SpecError(path, line_no,
                        f"expected a function name, got '{function}'")
    effects: List[Effect] = []
    since = until = None
    for token in tokens[1:]:
        m = _VERSION_RE.match(token)
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
    if not CONVENTIONS.string_ref or fn.ret_typedef != CONVENTIONS.string_ref:
        raise entry.error(f"{text}: {fn.name} returns {fn.ret}, not the"
                          " string struct (--string-ref"
                          f" {CONVENTIONS.string_ref or 'is not set'})")
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
    first_line: Dict[str, int] = {}
    for entry in entries:
        if not entry.applies_to(major):
            continue
        fn = declared.get(entry.function)
        if fn is None:
            raise entry.error(f"not declared in the LLVM {major} headers")
        if entry.function in effects:
            raise entry.error("duplicate entry (also on line"
                              f" {first_line[entry.function]})")
        for effect in entry.effects:
            _validate_effect(entry, effect, fn, declared, wrapped)
        effects[entry.function] = _number_fields(fn, entry.effects)
        first_line[entry.function] = entry.line_no
    return effects


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


def field_args(fn: Function, cls: "Classification") -> List[Effect]:
    """The effects naming struct fields, one per pseudo argument, in order."""
    seen: Dict[int, Effect] = {}
    for e in cls.effects:
        if e.field and e.arg not in seen:
            seen[e.arg] = e
    return [seen[i] for i in sorted(seen)]


def field_value_expr(fn: Function, e: Effect) -> str:
    """C++ expression for the value of a struct field an effect names, read
    before the call. A versioned options struct (a following integer
    `SizeOf*` parameter, as LLVMCreateMCJITCompilerForModule's) is read only
    where the size the caller passed covers the field, as LLVM does."""
    p = fn.params[e.field_param]
    value = "(const void *)" + handle_value(f"p{p.index}->{e.field}",
                                            e.field in p.field_structs)
    cond = f"p{p.index}"
    following = (fn.params[p.index + 1]
                 if p.index + 1 < len(fn.params) else None)
    if (following is not None and following.is_integer
            and following.name.startswith("SizeOf")):
        cond += (f" && (size_t)p{following.index} >= offsetof({p.record},"
                 f" {e.field}) + sizeof(p{p.index}->{e.field})")
    return f"({cond}) ? {value} : nullptr"


# --------------------------------------------------------------------------
# Expected handle kinds (src/profiles/llvm_c/handle_kinds.spec)
# --------------------------------------------------------------------------

# Base kinds of the kinds spec -> ownsan::ObjectKind enumerator (how the
# runtime classifies a value, with LLVMGetValueKind), and the words a report
# uses for one.
BASE_KINDS = {
    "function": ("Function", "a function"),
    "global_variable": ("GlobalVariable", "a global variable"),
    "global_alias": ("GlobalAlias", "a global alias"),
    "global_ifunc": ("GlobalIFunc", "an ifunc"),
    "block": ("BasicBlock", "a basic block"),
    "instruction": ("Instruction", "an instruction"),
    "argument": ("Argument", "a function argument"),
    "constant_data": ("Constant", "a constant that is not a global value"),
    "other_value": ("OtherValue", "inline asm or metadata"),
}
# Parameter types a kind expectation may apply to.
KIND_PARAM_TYPES = {"LLVMValueRef", "LLVMBasicBlockRef"}

_KINDS_SET_RE = re.compile(r'^kinds\s+(\w+)\s*=\s*([\w|]+)\s+"([^"]+)"$')
_KINDS_TYPE_RE = re.compile(r"^(LLVM\w+Ref)\s*=\s*([\w|]+)$")
_KINDS_ARG_RE = re.compile(r"^(\d+)=([\w|]+)$")


@dataclasses.dataclass(frozen=True)
class KindSet:
    """A set of base kinds and how a report says it ("a function")."""

    name: str
    kinds: Tuple[str, ...]  # base kinds, sorted
    description: str


@dataclasses.dataclass
class KindsEntry:
    """One function line of the kinds spec: argument -> kind set."""

    function: str
    args: Dict[int, KindSet]
    since: Optional[int]
    until: Optional[int]
    path: str
    line_no: int
    reason: str

    def applies_to(self, major: int) -> bool:
        return SpecEntry.applies_to(self, major)  # (same since/until rule)

    def error(self, message: str) -> SpecError:
        return SpecError(self.path, self.line_no,
                         f"{self.function}: {message}")


@dataclasses.dataclass
class KindsSpec:
    """The whole kinds spec."""

    sets: Dict[str, KindSet]
    type_rules: Dict[str, KindSet]  # C type -> kinds, for every parameter
    type_reasons: Dict[str, str]
    entries: List[KindsEntry]
    set_reasons: Dict[str, str] = dataclasses.field(default_factory=dict)


def _kind_set(text: str, sets: Dict[str, KindSet], path: str,
              line_no: int) -> KindSet:
    """`function|global_variable` or a set name -> a KindSet."""
    if text in sets:
        return sets[text]
    kinds: Set[str] = set()
    for name in text.split("|"):
        if name in BASE_KINDS:
            kinds.add(name)
        elif name in sets:
            kinds.update(sets[name].kinds)
        else:
            raise SpecError(path, line_no, f"unknown kind '{name}'")
    ordered = tuple(sorted(kinds))
    description = " or ".join(BASE_KINDS[k][1] for k in ordered)
    return KindSet(text, ordered, description)


def parse_kinds_text(text: str, path: str = "<kinds>") -> KindsSpec:
    """Parses the kinds spec; errors raise SpecError naming the line."""
    spec = KindsSpec(sets={}, type_rules={}, type_reasons={}, entries=[])
    seen: Dict[str, int] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        body, _, reason = line.partition("#")
        body = body.strip()
        if not body:
            continue
        reason = reason.strip()
        if not reason:
            raise SpecError(path, line_no, "no `# why (source)` comment")
        m = _KINDS_SET_RE.match(body)
        if m:
            name = m.group(1)
            if name in BASE_KINDS or name in spec.sets:
                raise SpecError(path, line_no, f"kind '{name}' defined twice")
            base = _kind_set(m.group(2), spec.sets, path, line_no)
            spec.sets[name] = KindSet(name, base.kinds, m.group(3))
            spec.set_reasons[name] = reason
            continue
        m = _KINDS_TYPE_RE.match(body)
        if m:
            if m.group(1) not in KIND_PARAM_TYPES:
                raise SpecError(path, line_no,
                                f"{m.group(1)}: kinds apply to "
                                f"{' and '.join(sorted(KIND_PARAM_TYPES))}")
            spec.type_rules[m.group(1)] = _kind_set(m.group(2), spec.sets,
                                                    path, line_no)
            spec.type_reasons[m.group(1)] = reason
            continue
        tokens = body.split()
        function = tokens[0]
        if not CONVENTIONS.function_name_re().match(function):
            raise SpecError(path, line_no,
                            f"expected a function name, got '{function}'")
        entry = KindsEntry(function, {}, None, None, path, line_no, reason)
        for token in tokens[1:]:
            m = _VERSION_RE.match(token)
            if m:
                setattr(entry, m.group(1), int(m.group(2)))
                continue
            m = _KINDS_ARG_RE.match(token)
            if not m:
                raise entry.error(f"expected ARG=KINDS, got '{token}'")
            entry.args[int(m.group(1))] = _kind_set(m.group(2), spec.sets,
                                                    path, line_no)
        if not entry.args:
            raise entry.error("no ARG=KINDS")
        key = function
        if key in seen and entry.since is None and entry.until is None:
            raise entry.error(f"duplicate entry (also on line {seen[key]})")
        seen.setdefault(key, line_no)
        spec.entries.append(entry)
    return spec


def parse_kinds_file(path: str) -> KindsSpec:
    """Reads and parses the kinds spec file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read kinds spec {path}: {e}")
    return parse_kinds_text(text, path)


def _param_typedef(param: Param) -> str:
    return param.spelling.replace("const", "").strip()


def resolve_kinds(spec: KindsSpec, major: int,
                  declared: Dict[str, Function]
                  ) -> Dict[str, Dict[int, KindSet]]:
    """Function name -> argument -> expected kinds, for this LLVM major:
    the type rules for every parameter of their type, then the entries.

    An applicable entry for an undeclared function, an argument out of
    range, or an argument that is not an LLVMValueRef/LLVMBasicBlockRef is a
    SpecError; so is a second applicable entry for one function."""
    result: Dict[str, Dict[int, KindSet]] = {}
    for name, fn in declared.items():
        for p in fn.params:
            rule = spec.type_rules.get(_param_typedef(p))
            if rule is not None:
                result.setdefault(name, {})[p.index] = rule
    first_line: Dict[str, int] = {}
    for entry in spec.entries:
        if not entry.applies_to(major):
            continue
        fn = declared.get(entry.function)
        if fn is None:
            raise entry.error(f"not declared in the LLVM {major} headers")
        if entry.function in first_line:
            raise entry.error("duplicate entry (also on line"
                              f" {first_line[entry.function]})")
        first_line[entry.function] = entry.line_no
        for arg, kinds in entry.args.items():
            if arg >= len(fn.params):
                raise entry.error(f"argument {arg} out of range")
            if _param_typedef(fn.params[arg]) not in KIND_PARAM_TYPES:
                raise entry.error(f"argument {arg} is not an LLVMValueRef or"
                                  " LLVMBasicBlockRef")
            result.setdefault(entry.function, {})[arg] = kinds
    return result


def kind_set_table(expects: Dict[str, Dict[int, KindSet]]) -> List[KindSet]:
    """The distinct kind sets, in a stable order; index 0 is reserved for
    "no expectation" (the runtime's kKindExpectations[0])."""
    return sorted({k for args in expects.values() for k in args.values()},
                  key=lambda k: (k.name, k.kinds))


def render_kind_expectations(table: Sequence[KindSet]) -> str:
    """kKindExpectations[]: a bit per ObjectKind, and the words."""
    lines = ["namespace ownsan {", "",
             "const KindExpectation kKindExpectations[] = {",
             "    {0, nullptr},"]
    for ks in table:
        unknown = [BASE_KINDS[k][0] for k in ks.kinds
                   if BASE_KINDS[k][0] not in OBJECT_KINDS]
        if unknown:
            raise GenError(f"ObjectKind {unknown[0]} is not a row of"
                           " the handle-type table")
        bits = " | ".join(
            f"(1u << unsigned(ObjectKind::{BASE_KINDS[k][0]}))"
            for k in ks.kinds)
        description = ks.description.replace('"', '\\"')
        lines.append(f'    {{{bits}, "{description}"}},')
    lines += ["};", "", "} // namespace ownsan", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------


def classify(fn: Function, effects: Sequence[Effect]) -> Classification:
    """Decides which handle-pointer params are arrays, outs, or neither."""
    out_array_params = {e.arg for e in effects if e.kind == "out_array"}
    out_condition = CONVENTIONS.out_success_conditions.get(fn.ret_typedef,
                                                           "")
    cls = Classification(arrays=[], outs=[], out_condition=out_condition,
                         out_unregistered=[], unchecked_ptrs=[],
                         effects=list(effects))
    for param in fn.params:
        if param.elem_handle is None or param.index in out_array_params:
            continue
        count = CONVENTIONS.count_param(fn.params, param.index)
        if count is not None:
            cls.arrays.append(HandleArray(param.index, param.elem_handle,
                                          count))
        elif param.name.startswith("Out") and out_condition:
            cls.outs.append(HandleOut(param.index, param.elem_handle))
        elif param.name.startswith("Out"):
            cls.out_unregistered.append(HandleOut(param.index,
                                                  param.elem_handle))
        else:
            cls.unchecked_ptrs.append(HandleOut(param.index,
                                                param.elem_handle))
    return cls


# --------------------------------------------------------------------------
# C++ rendering
# --------------------------------------------------------------------------


def needs_alias(spelling: str) -> bool:
    """Function pointer and array types cannot be written `T name`."""
    return "(" in spelling or "[" in spelling


def param_alias(fn: Function, index: int) -> str:
    """Name of the alias for a parameter type (see render_aliases)."""
    return f"{fn.name}_p{index}"


def ret_alias(fn: Function) -> str:
    """Name of the alias for a return type (see render_aliases)."""
    return f"{fn.name}_ret"


def cxx_param_type(fn: Function, param: Param) -> str:
    """The C++ spelling of a parameter type."""
    if needs_alias(param.spelling):
        return f"ownsan::gen::{param_alias(fn, param.index)}"
    return param.spelling


def cxx_ret_type(fn: Function) -> str:
    """The C++ spelling of the return type."""
    if needs_alias(fn.ret):
        return f"ownsan::gen::{ret_alias(fn)}"
    return fn.ret


def cxx_ret_type_value(fn: Function) -> str:
    """The return type as a type-id usable in `T{}` (a value-initialized,
    neutral result)."""
    return f"std::remove_cv_t<{cxx_ret_type(fn)}>"


def cxx_fn_pointer_type(fn: Function) -> str:
    """`R (*)(A0, A1)` for the real entry point of fn."""
    args = ", ".join(cxx_param_type(fn, p) for p in fn.params)
    return f"{cxx_ret_type(fn)} (*)({args})"


def declaration_with_name(spelling: str, name: str) -> str:
    """`const char *` + `p0` -> `const char *p0`."""
    sep = "" if spelling.endswith("*") else " "
    return f"{spelling}{sep}{name}"


def render_aliases(functions: Sequence[Function]) -> str:
    """The `using` aliases for types that contain `(` or `[`."""
    lines = []
    for fn in functions:
        if needs_alias(fn.ret):
            lines.append(f"using {ret_alias(fn)} = {fn.ret};")
        for param in fn.params:
            if needs_alias(param.spelling):
                alias = param_alias(fn, param.index)
                lines.append(f"using {alias} = {param.spelling};")
    if not lines:
        return ""
    return ("// Types that cannot be written as `T name`.\n"
            "namespace ownsan::gen {\n" + "\n".join(lines) +
            "\n} // namespace ownsan::gen\n\n")


def handle_enum(handle: str) -> str:
    """`ownsan::HandleType::X`."""
    return f"ownsan::HandleType::{handle}"


def handle_value(expr: str, is_struct: bool) -> str:
    """The pointer a handle expression holds: `p0`, or `p0.ptr` for a
    struct handle (CONVENTIONS.struct_handles)."""
    return f"{expr}.ptr" if is_struct else expr


def param_value(p: Param) -> str:
    """The pointer handle parameter p holds."""
    return handle_value(f"p{p.index}", p.struct_handle)


def render_count_expr(fn: Function, effect: Effect,
                      declared: Dict[str, Function]) -> str:
    """The element count of an out_array effect, as a C++ expression."""
    if effect.count_fn is None:
        return f"(size_t)p{effect.count_arg}"
    count_fn = declared[effect.count_fn]
    args = ", ".join(f"p{i}" for i in effect.count_args)
    return (f"(size_t)OWNSAN_REAL({count_fn.name}, "
            f"{cxx_fn_pointer_type(count_fn)})({args})")


def _checks_before_call(fn: Function, cls: Classification,
                        hook_args: str) -> List[str]:
    """Statements of the first Checking() block: checks, then Before."""
    arrays = {a.param: a for a in cls.arrays}
    lines = []
    for param in fn.params:
        i = param.index
        if param.handle is not None and i in cls.expects:
            lines.append(f"call.CheckHandle({i}, {param_value(param)}, "
                         f"{handle_enum(param.handle)}, "
                         f"{cls.expects[i][0]});")
        elif param.handle is not None:
            lines.append(f"call.CheckHandle({i}, {param_value(param)}, "
                         f"{handle_enum(param.handle)});")
        elif param.string_ref:
            lines.append(f"call.CheckStringRef({i}, p{i}.data);")
        elif i in arrays:
            array = arrays[i]
            lines.append(f"call.CheckArray({i}, (const void *const *)p{i}, "
                         f"(size_t)p{array.count}, "
                         f"{handle_enum(array.handle)});")
    if cls.has_hooks:
        if any(e.kind in ("consume", "consume_if_ok") for e in cls.effects):
            lines.append(f"call.Before({hook_args}, slots);")
        else:
            lines.append(f"call.Before({hook_args});")
    return lines


def _checks_after_call(fn: Function, cls: Classification, hook_args: str,
                       declared: Dict[str, Function]) -> List[str]:
    """Statements of the second Checking() block: After, out arrays,
    returned handles, out-handles."""
    lines = []
    if cls.has_hooks:
        r = handle_value("r", fn.ret_struct)
        ret = (f"(const void *){r}"
               if fn.ret_handle is not None or fn.ret.replace(" ", "") in
               ("char*", "constchar*") else "nullptr")
        # Success: 0 / no error; a function returning an object fails with
        # NULL (LLVMCreateBinary); anything else cannot tell.
        ok = CONVENTIONS.out_success_conditions.get(
            fn.ret_typedef, f"{r} != nullptr" if fn.ret_handle is not None
            else "true")
        lines.append(f"call.After({hook_args}, {ret}, {ok});")
    for effect in cls.effects:
        if effect.kind != "out_array":
            continue
        i = effect.arg
        count = render_count_expr(fn, effect, declared)
        elem = handle_enum(fn.params[i].elem_handle)
        if cls.expects:
            # (An argument of unverified kind: the count may be garbage.)
            lines.append("if (!call.Unverified())")
            lines.append(f"  call.OutArray({i}, (const void *const *)p{i}, "
                         f"{count}, {elem});")
        else:
            lines.append(f"call.OutArray({i}, (const void *const *)p{i}, "
                         f"{count}, {elem});")
    if fn.ret_handle is not None:
        lines.append(f"call.Returned({handle_value('r', fn.ret_struct)}, "
                     f"{handle_enum(fn.ret_handle)});")
    for out in cls.outs:
        i = out.param
        value = f"p{i}->ptr" if fn.params[i].elem_struct else f"*p{i}"
        lines.append(f"if ({cls.out_condition} && p{i})")
        lines.append(f"  call.Returned({value}, "
                     f"{handle_enum(out.handle)});")
    for effect in cls.effects:
        if effect.kind != "lends":
            continue
        context_fn = declared[effect.count_fn]
        j = effect.count_args[0]
        lines.append("if (r.data && r.length)")
        lines.append(f"  call.LentString(r.data, r.length, (const void *)"
                     f"OWNSAN_REAL({context_fn.name}, "
                     f"{cxx_fn_pointer_type(context_fn)})(p{j}).ptr);")
    if lends_string(fn, cls):
        handles = [f"(const void *){param_value(p)}" if p.handle
                   else "nullptr" for p in fn.params]
        handles += ["nullptr"] * (3 - len(handles))
        lines.append(f"call.BorrowedString(r, {', '.join(handles)}, "
                     f"&ownsan_reget_{fn.name});")
    return lines


# Integer out params a borrowed-string getter may take (a length).
_LENGTH_OUT_TYPES = ("size_t*", "unsigned*", "unsignedint*", "uint64_t*")


def lends_string(fn: Function, cls: "Classification") -> bool:
    """A getter whose `const char *` result LLVM only lends (no message
    effect), asked for with handles and at most a length out param: its
    results are remembered so LLVMDisposeMessage on one can be reported."""
    if fn.ret.replace(" ", "") not in ("char*", "constchar*"):
        return False
    if any(e.arg == RET and e.kind in STRING_EFFECTS for e in cls.effects):
        return False
    if not fn.params or len(fn.params) > 3:
        return False
    if not any(p.handle for p in fn.params):
        return False
    return all(p.handle or p.spelling.replace(" ", "") in _LENGTH_OUT_TYPES
               for p in fn.params)


def render_reget(fn: Function) -> str:
    """`ownsan_reget_F(args)`: calls F again with the same handles (a fresh
    local for each length out param)."""
    lines = [f"static const char *ownsan_reget_{fn.name}("
             "const void *const *a) {"]
    call_args = []
    for p in fn.params:
        t = cxx_param_type(fn, p)
        if p.handle and p.struct_handle:
            # (Its `ptr` is `void *` or `const void *`: both take this.)
            call_args.append(f"{t}{{const_cast<void *>(a[{p.index}])}}")
        elif p.handle:
            call_args.append(f"reinterpret_cast<{t}>(const_cast<void *>("
                             f"a[{p.index}]))")
        else:
            lines.append(f"  std::remove_pointer_t<{t}> o{p.index}{{}};")
            call_args.append(f"&o{p.index}")
    lines.append(f"  return OWNSAN_REAL({fn.name}, {cxx_fn_pointer_type(fn)})"
                 f"({', '.join(call_args)});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _checking_block(statements: Sequence[str]) -> List[str]:
    """`if (call.Checking()) { ... }`, or nothing if there is nothing to do."""
    if not statements:
        return []
    return (["  if (call.Checking()) {"]
            + [f"    {line}" for line in statements]
            + ["  }"])


def render_wrapper(fn: Function, cls: Classification,
                   declared: Dict[str, Function]) -> str:
    """One `extern "C"` wrapper in the shape of interpose/wrapper_api.h."""
    params = ", ".join(
        declaration_with_name(cxx_param_type(fn, p), f"p{p.index}")
        for p in fn.params)
    fn_id = f"ownsan::kFn_{fn.name}"
    signature = declaration_with_name(cxx_ret_type(fn),
                                      f"OWNSAN_WRAPPER_NAME({fn.name})")
    out = [f'extern "C" OWNSAN_EXPORT {signature}({params}) {{',
           f"  ownsan::CallScope call({fn_id}, __builtin_return_address(0));"]
    if cls.effects:
        # What src/profiles/llvm_c/ownership.spec says of it, next to what it does.
        out.insert(0, f"// spec: {fn.name} " +
                   " ".join(e.spec_text() for e in cls.effects))

    hook_args = "nullptr"  # a zero-argument function has no args array
    if cls.has_hooks and fn.params:
        hook_args = "args"
        # Handles, and the strings a cause_text effect names.
        texts = {e.arg for e in cls.effects
                 if e.kind in ("cause_text", "free_message",
                               "free_error_message")
                 or (e.kind in ("new", "message") and e.out)
                 or e.kind == "own_by_out"}
        texts |= {e.other for e in cls.effects if e.kind == "own_by_out"}
        values = [
            f"(const void *){param_value(p)}" if p.handle
            else f"(const void *)p{p.index}" if p.index in texts
            else "nullptr"
            for p in fn.params]
        # Struct fields the effects name, after the real arguments.
        values += [field_value_expr(fn, e) for e in field_args(fn, cls)]
        out.append(f"  const void *args[] = {{{', '.join(values)}}};")
        if any(e.kind in ("consume", "consume_if_ok") for e in cls.effects):
            slots = ", ".join(f"(void *)&p{p.index}" for p in fn.params)
            out.append(f"  void *const slots[] = {{{slots}}};")

    out += _checking_block(_checks_before_call(fn, cls, hook_args))
    if (any(p.handle or p.string_ref for p in fn.params) or cls.arrays
            or cls.has_hooks):
        # The runtime may hold the call back (a report in continue mode, or
        # a freed memory buffer waiting in the quarantine); the caller then
        # gets a neutral result.
        neutral = "return;" if fn.returns_void else (
            f"return {cxx_ret_type_value(fn)}{{}};")
        out.append("  if (call.Skipped())")
        out.append(f"    {neutral}")

    call_args = ", ".join(f"p{p.index}" for p in fn.params)
    real_call = (f"OWNSAN_REAL({fn.name}, {cxx_fn_pointer_type(fn)})"
                 f"({call_args});")
    if fn.returns_void:
        out.append(f"  {real_call}")
    else:
        result = declaration_with_name(cxx_ret_type(fn), "r")
        out.append(f"  {result} = {real_call}")

    out += _checking_block(_checks_after_call(fn, cls, hook_args, declared))

    if not fn.returns_void:
        out.append("  return r;")
    out.append("}")
    return "\n".join(out) + "\n"


def generated_banner(major: int, spec_label: str, comment: str) -> str:
    """The DO-NOT-EDIT line at the top of every generated file."""
    return (f"{comment} GENERATED by tools/gen_wrappers.py from the"
            f" {CONVENTIONS.header_dir} headers of LLVM {major} and"
            f" {spec_label} - DO NOT EDIT\n")


def render_fn_ids(functions: Sequence[Function], major: int,
                  spec_label: str) -> str:
    """fn_ids.h: one enumerator per wrapped function, in sorted order."""
    lines = [generated_banner(major, spec_label, "//"),
             "#ifndef OWNSAN_GEN_FN_IDS_H",
             "#define OWNSAN_GEN_FN_IDS_H",
             "",
             '#include "wrapper_api.h"',
             "",
             "namespace ownsan {",
             "",
             "enum : FnId {"]
    for i, fn in enumerate(functions):
        lines.append(f"  kFn_{fn.name} = {i},")
    lines += ["};",
              "",
              "} // namespace ownsan",
              "",
              "#endif // OWNSAN_GEN_FN_IDS_H",
              ""]
    return "\n".join(lines)


def effect_arg_handle(fn: Function, e: Effect) -> Optional[str]:
    """The HandleType of the argument an effect is about (a parameter or a
    struct field), or None (the result, or not a handle)."""
    if e.arg == RET:
        return None
    if e.field:
        return fn.params[e.field_param].fields.get(e.field)
    if e.arg < len(fn.params):
        return fn.params[e.arg].handle
    return None


def render_fn_info(functions: Sequence[Function],
                   classes: Dict[str, Classification]) -> str:
    """kFnCount, the per-function effect arrays, kFnInfo[], kFnFlags[],
    g_real_fns[]."""
    lines = ["namespace ownsan {", "", "namespace {"]
    for fn in functions:
        effects = classes[fn.name].effects
        if not effects:
            continue
        def render(e):
            name = effect_type_name(fn, e)
            type_text = f'"{name}"' if name else "nullptr"
            extra = arg_constant(e.extra)
            if getattr(e, "out", False):
                # new/message(out=N,when=...): when LLVM writes it.
                extra = WHEN_CONSTANT[e.extra]
            if e.kind in ("own", "forget") and e.arg == RET:
                # own(ret,...) / forget(ret): the HandleType of the result.
                extra = (f"static_cast<uint8_t>("
                         f"{handle_enum(fn.ret_handle)})")
            elif e.kind == "free" and fn.params[e.arg].owned_array:
                # The disposer is free() of a malloc'ed array.
                extra = "kFreesMallocedArray"
            return (f"{{EffectKind::{EFFECT_KINDS[e.kind]}, "
                    f"{arg_constant(e.arg)}, {arg_constant(e.other)},"
                    f" {extra}, {type_text}, "
                    f"{handle_enum(effect_arg_handle(fn, e) or 'Other')}}}")
        items = ", ".join(render(e) for e in effects)
        lines.append(f"const Effect kEffects_{fn.name}[] = {{{items}}};")
    lines += ["} // namespace",
              "",
              f"const unsigned kFnCount = {len(functions)};",
              "",
              "const FnInfo kFnInfo[] = {"]
    for fn in functions:
        effects = classes[fn.name].effects
        if effects:
            lines.append(f'    {{"{fn.name}", kEffects_{fn.name},'
                         f" {len(effects)}}},")
        else:
            lines.append(f'    {{"{fn.name}", nullptr, 0}},')
    lines += ["};",
              "static_assert(sizeof(kFnInfo) / sizeof(kFnInfo[0]) == "
              f"{len(functions)},",
              '              "kFnInfo must have one entry per FnId");',
              "",
              "const uint8_t kFnFlags[] = {"]
    lines += [f"    {fn_flags_expr(fn.name)}, // {fn.name}"
              for fn in functions]
    lines += ["};",
              "static_assert(sizeof(kFnFlags) == sizeof(kFnInfo) /"
              " sizeof(kFnInfo[0]),",
              '              "kFnFlags must have one entry per FnId");',
              "std::atomic<void *> g_real_fns[kFnCount] = {};",
              "",
              "} // namespace ownsan",
              ""]
    return "\n".join(lines)


def render_wrappers_cpp(functions: Sequence[Function], headers: Sequence[str],
                        classes: Dict[str, Classification],
                        declared: Dict[str, Function], major: int,
                        spec_label: str,
                        kind_sets: Sequence["KindSet"] = (),
                        library: str = "libLLVM") -> str:
    """The whole of wrappers.cpp."""
    parts = [generated_banner(major, spec_label, "//"),
             "//\n"
             f"// One wrapper per {CONVENTIONS.api_name} function that the"
             " headers declare\n"
             f"// and {library} exports; see interpose/wrapper_api.h for"
             " their\n"
             "// shape.\n\n"]
    parts.append("".join(f"#include <{h}>\n" for h in headers))
    parts.append('\n#include "fn_ids.h"\n\n'
                 "#include <atomic>\n#include <cstddef>\n#include <type_traits>\n\n")
    parts.append(render_aliases(functions))
    # A count function a wrapper calls for its out array must be there even
    # if the program never calls it: referred to strongly.
    counters = {e.count_fn for fn in functions for e in classes[fn.name].effects
                if getattr(e, "count_fn", None)}
    parts.append(render_real_declarations(functions, "OWNSAN_REAL_WEAK ",
                                          strong=counters))
    for fn in functions:
        if lends_string(fn, classes[fn.name]):
            parts.append(render_reget(fn))
        parts.append(render_wrapper(fn, classes[fn.name], declared))
        parts.append("\n")
    parts.append(render_fn_info(functions, classes))
    parts.append(render_wrapper_addresses(functions))
    parts.append(render_linked_real_table(functions))
    parts.append("\n" + render_kind_expectations(kind_sets))
    return "".join(parts)


def render_real_declarations(functions: Sequence[Function],
                             attributes: str,
                             strong: Set[str] = frozenset()) -> str:
    """Link mode's real functions: `ld --wrap=LLVMFoo` binds __real_LLVMFoo
    to the program's own LLVMFoo. The wrappers refer to them weakly, so that
    only the LLVM code the program uses is linked in (each wrapper's
    trampoline in libownsan_link_wrappers.a refers to its own strongly; see
    tools/build_link_trampolines.py); the runtime's own calls refer to them
    strongly."""
    lines = ["#if OWNSAN_LINK_MODE", 'extern "C" {']
    lines += [f"{'' if fn.name in strong else attributes}"
              f"decltype(::{fn.name}) __real_{fn.name};"
              for fn in functions]
    lines += ["}", "#endif // OWNSAN_LINK_MODE", ""]
    return "\n".join(lines) + "\n"


# The hidden name of each wrapper, for the dlsym interposer's table.
WRAPPER_ADDRESS_PREFIX = "ownsan_wrapper_"


def render_wrapper_addresses(functions: Sequence[Function]) -> str:
    """Preloaded: a hidden alias of each wrapper, which symbols.c's table
    points at. The dynamic loader resolves a pointer to an exported name by
    a symbol look-up at every start (one per wrapper, about a thousand),
    and a pointer to a hidden one by adding the load address."""
    lines = ["", "#if !OWNSAN_LINK_MODE", 'extern "C" {']
    lines += [f'__attribute__((alias("{fn.name}"), visibility("hidden"))) '
              f"decltype(::{fn.name}) {WRAPPER_ADDRESS_PREFIX}{fn.name};"
              for fn in functions]
    lines += ["}", "#endif // !OWNSAN_LINK_MODE", ""]
    return "\n".join(lines)


def render_linked_real_table(functions: Sequence[Function]) -> str:
    """Link mode: the address of each real function, or null where the
    program did not link it in (weak references): where LLVM's code lies in
    the program (AddLinkedLLVMCodeRange in src/runtime/stacks.cpp)."""
    lines = ["", "#if OWNSAN_LINK_MODE", "namespace ownsan {",
             "extern const void *const kLinkedRealFns[] = {"]
    lines += [f"    (const void *)&__real_{fn.name}," for fn in functions]
    lines += ["};",
              f"extern const unsigned kLinkedRealFnCount = {len(functions)};",
              "} // namespace ownsan", "#endif // OWNSAN_LINK_MODE", ""]
    return "\n".join(lines)


# What link mode wraps besides the LLVM-C functions: C++ operator new and
# delete (every variant libstdc++ defines), so that LLVM's own allocations
# and deletions reach the runtime whatever allocator the program brings
# (interpose/link_allocation.cpp defines a __wrap_ hook for each).
LINK_MODE_ALLOCATION_SYMBOLS = (
    "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
    "_ZdlPvSt11align_val_tRKSt9nothrow_t",
    "_ZdaPvSt11align_val_tRKSt9nothrow_t",
)


def render_link_wrap_list(functions: Sequence[Function]) -> str:
    """ownsan.wrap: the linker options of link mode (`-Wl,@ownsan.wrap`),
    one --wrap per wrapped function and (unless the library is a shared
    object) allocation function."""
    names = [fn.name for fn in functions]
    if CONVENTIONS.wrap_allocation:
        names += list(LINK_MODE_ALLOCATION_SYMBOLS)
    return "".join(f"--wrap={name}\n" for name in names)


def render_real_fns(functions: Sequence[Function], headers: Sequence[str],
                    major: int, spec_label: str,
                    library: str = "libLLVM") -> str:
    """real_fns.h: a typed entry point into the loaded libLLVM per wrapped
    function, for the runtime's own calls (ownsan::real::LLVMGetValueKind(v)
    instead of a Real<signature> cast written by hand). Only the functions
    of this LLVM version are there: the runtime calls those every supported
    version has."""
    lines = [generated_banner(major, spec_label, "//")[:-1],
             "//",
             f"// The runtime's calls into the real {library}, with the C"
             " types of",
             "// the headers (never the wrappers: no check, no registration).",
             "#ifndef OWNSAN_GEN_REAL_FNS_H",
             "#define OWNSAN_GEN_REAL_FNS_H",
             ""]
    lines += [f"#include <{h}>" for h in headers]
    lines += ["",
              '#include "fn_ids.h"',
              "",
              "// (Deprecated functions are forwarded too: some types are.)",
              "#pragma GCC diagnostic push",
              '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
              "",
              render_aliases(functions).rstrip("\n"),
              "",
              render_real_declarations(functions, "").rstrip("\n"),
              "",
              "namespace ownsan::real {",
              ""]
    for fn in functions:
        params = ", ".join(
            declaration_with_name(cxx_param_type(fn, p), f"p{p.index}")
            for p in fn.params)
        args = ", ".join(f"p{p.index}" for p in fn.params)
        signature = declaration_with_name(cxx_ret_type(fn), fn.name)
        lines.append(f"inline {signature}({params}) {{")
        lines.append(f"  return OWNSAN_REAL({fn.name},"
                     f" {cxx_fn_pointer_type(fn)})({args});")
        lines.append("}")
    lines += ["",
              "} // namespace ownsan::real",
              "",
              "#pragma GCC diagnostic pop",
              "",
              "#endif // OWNSAN_GEN_REAL_FNS_H",
              ""]
    return "\n".join(lines)


def render_symbols_c(functions: Sequence[Function], major: int,
                     spec_label: str) -> str:
    """symbols.c: the statically initialized name -> wrapper table."""
    ordered = sorted(enumerate(functions), key=lambda item: item[1].name)
    lines = [generated_banner(major, spec_label, "/*")[:-1] + " */",
             "/* Name -> wrapper table for the dlsym interposer, sorted by",
             "   strcmp order of name. Plain C so that it is statically",
             f"   initialized; the {CONVENTIONS.header_dir} headers are"
             " deliberately not",
             "   included. */",
             "",
             "struct ownsan_symbol {",
             "  const char *name;",
             "  void *wrapper;",
             "  unsigned short fn;",
             "};",
             ""]
    # The wrappers' hidden aliases (wrappers.cpp): relative relocations.
    for _, fn in ordered:
        lines.append(f'__attribute__((visibility("hidden"))) extern void '
                     f"{WRAPPER_ADDRESS_PREFIX}{fn.name}(void);")
    lines += ["", "const struct ownsan_symbol ownsan_symbols[] = {"]
    for fn_id, fn in ordered:
        lines.append(f'    {{"{fn.name}", (void *){WRAPPER_ADDRESS_PREFIX}'
                     f"{fn.name}, {fn_id}}},")
    lines += ["};",
              "",
              f"const unsigned ownsan_symbol_count = {len(functions)};",
              ""]
    return "\n".join(lines)


# C++ names the runtime's objects may define with default visibility
# although no source asks for it: instantiations of libstdc++ templates
# (std:: is declared visibility("default")), vtables, typeinfo, guard
# variables, function-local statics. None of operator new/delete's names
# (_Znw*, _Zna*, _Zdl*, _Zda*) matches.
VERSION_SCRIPT_LOCAL = ("_ZN*", "_ZS*", "_ZT*", "_ZGV*", "_ZZ*")


def render_version_script(major: int, spec_label: str,
                          version_node: Optional[str],
                          library: str = "libLLVM") -> str:
    """ownsan.map: the version script libownsan.so is linked with.

    The wrappers get the symbol version of the libLLVM they wrap. ld.so
    binds a versioned reference (a program's PLT slot for
    `LLVMFoo@LLVM_14`) to an unversioned definition of any object before
    it, so a runtime exporting plain `LLVMFoo` would take the calls a
    program makes into every libLLVM major. With `LLVMFoo@@LLVM_19.1` only
    references to that version (and unversioned ones) reach the wrapper;
    `LLVMFoo@LLVM_14` goes on to libLLVM-14. The other exports (dlsym,
    dlvsym, the ownsan.h API, operator new/delete) stay unversioned, so they
    keep interposing references of any version (`dlsym@GLIBC_2.34`,
    `_Znwm@GLIBCXX_3.4`). A script with a named version node cannot also
    have an anonymous one, nor `local: *` (that would hide those), so what
    is exported besides LLVM* is decided by visibility: the sources mark it
    (-fvisibility=hidden, static libraries linked with --exclude-libs), and
    the C++ names in VERSION_SCRIPT_LOCAL are kept local here. (Static
    archives, MLIR-C's, have no symbol versions: the script has none.)
    """
    local = "".join(f"    {pattern};\n" for pattern in VERSION_SCRIPT_LOCAL)
    node = f"{version_node} " if version_node else ""
    why = (f"the symbol version of the {library}'s own"
           f" {CONVENTIONS.api_name} functions"
           if version_node else
           f"no version: the {library} it wraps has no symbol versions")
    prefix = CONVENTIONS.prefix
    return (generated_banner(major, spec_label, "/*")[:-1] + " */\n"
            f"/* The wrappers ({prefix}*) carry {why}; see\n"
            f"   render_version_script in tools/gen_wrappers.py. */\n"
            f"{node}{{\n"
            f"  global:\n"
            f"    {prefix}*;\n"
            f"  local:\n"
            f"{local}"
            f"}};\n")


def render_coverage(major: int, exported: Set[str],
                    declared: Dict[str, Function],
                    functions: Sequence[Function],
                    spec_not_wrapped: Sequence[str],
                    library: str = "libLLVM") -> str:
    """coverage.txt: counts and the names on either side of the gap."""
    headers = f"the {CONVENTIONS.header_dir} headers"
    exported_only = sorted(exported - set(declared))
    declared_only = sorted(set(declared) - exported)
    lines = [f"# ownsan wrapper coverage for LLVM {major}"
             " (GENERATED by tools/gen_wrappers.py)",
             f"llvm_major {major}",
             f"exported {len(exported)}",
             f"declared {len(declared)}",
             f"wrapped {len(functions)}",
             "",
             f"# exported by {library} but not declared in {headers}"
             f" ({len(exported_only)}): not wrapped"]
    lines += [f"exported_not_declared {name}" for name in exported_only]
    lines += ["",
              f"# declared in {headers} but not exported"
              f" ({len(declared_only)}): not wrapped"]
    lines += [f"declared_not_exported {name}" for name in declared_only]
    lines += ["",
              f"# spec entries for this version whose function is not wrapped"
              f" ({len(spec_not_wrapped)})"]
    lines += [f"spec_not_wrapped {name}" for name in spec_not_wrapped]
    return "\n".join(lines) + "\n"


def _format_items(items: Sequence[str]) -> str:
    return "[" + " ".join(items) + "]"


def classification_line(fn: Function, cls: Classification) -> str:
    """One stable line describing how the wrapper of fn treats its args."""
    ret = fn.ret_handle if fn.ret_handle is not None else "-"
    args = [f"{p.index}:{p.handle}" for p in fn.params if p.handle]
    arrays = [f"{a.param}:{a.handle}[{a.count}]" for a in cls.arrays]
    outs = [f"{o.param}:{o.handle}" for o in cls.outs]
    out_unregistered = [f"{o.param}:{o.handle}" for o in cls.out_unregistered]
    unchecked = [f"{o.param}:{o.handle}" for o in cls.unchecked_ptrs]
    effects = [e.spec_text() for e in cls.effects]
    line = (f"{fn.name} ret={ret} args={_format_items(args)}"
            f" arrays={_format_items(arrays)} out={_format_items(outs)}"
            f" out_unregistered={_format_items(out_unregistered)}"
            f" unchecked_ptrs={_format_items(unchecked)}"
            f" effects={_format_items(effects)}")
    if cls.expects:
        kinds = [f"{i}:{cls.expects[i][1].name}" for i in sorted(cls.expects)]
        line += f" kinds={_format_items(kinds)}"
    strings = [str(p.index) for p in fn.params if p.string_ref]
    if strings:
        line += f" strings={_format_items(strings)}"
    return line


def render_classification(functions: Sequence[Function],
                          classes: Dict[str, Classification],
                          major: int,
                          spec_label: str = "src/profiles/llvm_c/"
                          "ownership.spec",
                          kinds_label: str = "src/profiles/llvm_c/"
                          "handle_kinds.spec") -> str:
    """classification.txt: the golden dump, one line per wrapped function."""
    success_types = "/".join(CONVENTIONS.out_success_conditions)
    pointers = ("pointer-to-handle" if CONVENTIONS.struct_handles
                else "LLVMXRef *")
    lines = [
        f"# ownsan wrapper classification for LLVM {major}"
        " (GENERATED by tools/gen_wrappers.py)",
        "# ret=H        returned handle registered as HandleType H (- = none)",
        "# args=[i:H]   handle argument i checked as H",
        "# arrays=[i:H[n]]  input handle array in arg i, length in arg n",
        "# out=[i:H]    *arg i registered as H when the call succeeds",
        "# out_unregistered=[i:H]  Out* handle pointer not registered"
        f" (return type is not {success_types})",
        f"# unchecked_ptrs=[i:H]  other {pointers} arguments: neither"
        " checked nor registered",
        f"# effects=[...]  spec effects ({spec_label})",
        "# kinds=[i:K]  argument i must name a value of kinds K"
        f" ({kinds_label}; only listed when there are some)",
    ]
    lines += [classification_line(fn, classes[fn.name]) for fn in functions]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def spec_label_for(path: str) -> str:
    """How generated files name the spec: repo-relative when possible."""
    absolute = os.path.abspath(path)
    if absolute.startswith(REPO_ROOT + os.sep):
        return os.path.relpath(absolute, REPO_ROOT).replace(os.sep, "/")
    return path


def write_if_changed(path: str, text: str) -> None:
    """Writes text to path unless it already has exactly that content."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


@dataclasses.dataclass
class Result:
    """What one generator run produced (for main() and the tests)."""

    exported: Set[str]
    declared: Dict[str, Function]
    functions: List[Function]
    classes: Dict[str, Classification]

    def summary(self, major: int) -> str:
        """The one line printed to stdout."""
        return (f"ownsan: wrapped {len(self.functions)} of"
                f" {len(self.exported)} exported"
                f" {CONVENTIONS.api_name} functions"
                f" ({len(self.declared)} declared in headers), LLVM {major}")


def generate(include_dir: str, lib: Union[str, Sequence[str]], major: int,
             spec_path: str, out_dir: str, libclang: str = DEFAULT_LIBCLANG,
             kinds_path: Optional[str] = None) -> Result:
    """Runs all steps and writes the eight output files. `lib`: the
    library, or the libraries (shared or static archives) whose exports
    together make the API."""
    libs = [lib] if isinstance(lib, str) else list(lib)
    header_major = header_llvm_major(include_dir)
    if header_major is not None and header_major != major:
        raise GenError(f"--llvm-major {major} but {include_dir} holds the"
                       f" LLVM {header_major} headers")
    entries = parse_spec_file(spec_path)  # syntax errors before slow work
    kinds_spec = (parse_kinds_file(kinds_path) if kinds_path else
                  KindsSpec(sets={}, type_rules={}, type_reasons={},
                            entries=[]))
    headers = list_headers(include_dir)
    declared = parse_headers(include_dir, headers, libclang)
    exported, version_node = read_exports(libs)
    wrapped_names = sorted(set(declared) & exported)
    if len(wrapped_names) > 0xFFFF:
        raise GenError("more functions than FnId can number")
    functions = [declared[name] for name in wrapped_names]

    effects = resolve_spec(entries, major, declared, set(wrapped_names))
    classes = {fn.name: classify(fn, effects.get(fn.name, ()))
               for fn in functions}
    expects = resolve_kinds(kinds_spec, major, declared)
    expects = {name: args for name, args in expects.items()
               if name in classes}
    kind_sets = kind_set_table(expects)
    for name, args in expects.items():
        classes[name].expects = {
            arg: (kind_sets.index(ks) + 1, ks) for arg, ks in args.items()}
    spec_not_wrapped = sorted(set(effects) - set(wrapped_names))

    label = spec_label_for(spec_path)
    kinds_label = spec_label_for(kinds_path) if kinds_path else "none given"
    library = gen_conventions.library_label(libs)
    os.makedirs(out_dir, exist_ok=True)
    outputs = {
        "fn_ids.h": render_fn_ids(functions, major, label),
        "real_fns.h": render_real_fns(functions, headers, major, label,
                                      library),
        "wrappers.cpp": render_wrappers_cpp(functions, headers, classes,
                                            declared, major, label,
                                            kind_sets, library),
        "symbols.c": render_symbols_c(functions, major, label),
        "coverage.txt": render_coverage(major, exported, declared, functions,
                                        spec_not_wrapped, library),
        "classification.txt": render_classification(
            functions, classes, major, label, kinds_label),
        "ownsan.map": render_version_script(major, label, version_node,
                                            library),
        "ownsan.wrap": render_link_wrap_list(functions),
    }
    for name, text in outputs.items():
        write_if_changed(os.path.join(out_dir, name), text)
    return Result(exported=exported, declared=declared, functions=functions,
                  classes=classes)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """Command line of the generator."""
    parser = argparse.ArgumentParser(
        description="Generate ownsan's wrappers of a C API (LLVM-C by"
        " default).")
    parser.add_argument("--include-dir", required=True,
                        help="directory holding llvm-c/ (e.g."
                        " /usr/lib/llvm-19/include)")
    parser.add_argument("--lib", required=True, action="append",
                        help="the libLLVM shared library of the same version;"
                        " repeatable: the exports of every one (a static"
                        " archive: its members') make the API")
    parser.add_argument("--llvm-major", required=True, type=int,
                        help="LLVM major version of the headers and library")
    parser.add_argument("--spec", required=True,
                        help="ownership spec (src/profiles/llvm_c/ownership.spec)")
    parser.add_argument("--kinds",
                        help="expected-kind table"
                        " (src/profiles/llvm_c/handle_kinds.spec); none if absent")
    parser.add_argument("--handle-types", default=HANDLE_TYPES_DEF,
                        help="the profile's handle-type table (default:"
                        " src/profiles/llvm_c/handle_types.def)")
    parser.add_argument("--fn-flags", default=FN_FLAGS_TXT,
                        help="the profile's name rules (default:"
                        " src/profiles/llvm_c/fn_flags.txt)")
    parser.add_argument("--out-dir", required=True,
                        help="where the generated files go")
    parser.add_argument("--libclang", default=DEFAULT_LIBCLANG,
                        help=f"libclang shared library (default:"
                        f" {DEFAULT_LIBCLANG})")
    gen_conventions.add_arguments(parser)
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point: generate, print the summary line, return the exit code."""
    args = parse_args(argv)
    global NAMED_HANDLE_TYPES, OBJECT_KINDS, FN_FLAG_RULES, CONVENTIONS
    try:
        try:
            CONVENTIONS = gen_conventions.from_args(args)
        except ValueError as e:
            raise GenError(str(e))
        NAMED_HANDLE_TYPES, OBJECT_KINDS = read_handle_types(args.handle_types)
        FN_FLAG_RULES = read_fn_flags(args.fn_flags)
        result = generate(args.include_dir, args.lib, args.llvm_major,
                          args.spec, args.out_dir, args.libclang,
                          args.kinds)
    except GenError as e:
        print(f"gen_wrappers.py: error: {e}", file=sys.stderr)
        return 1
    print(result.summary(args.llvm_major))
    return 0


if __name__ == "__main__":
    sys.exit(main())
