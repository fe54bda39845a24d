# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A profile's conventions, for tools/gen_wrappers.py: how its C API names
its functions, where its headers are, how it passes handles and counts.

The defaults are LLVM-C's; another profile's profile.cmake passes its own
with the options add_arguments() defines (docs/architecture.md, "A second
profile"). MLIR-C's, for example (each value joined to its option, so
that an empty one survives a CMake list, and no backslash):

  --prefix mlir --header-glob 'mlir-c/**/*.h'
  --exclude-header mlir-c/Bindings/Python/Interop.h
  --struct-handles --pointer-handles=
  '--count-before=^(n|num)([A-Z].*)?$' '--count-after=^size$'
  '--out-success=MlirLogicalResult=r.value != 0' --string-ref MlirStringRef

and, when MLIR is not in its LLVM's prefix (an unpacked libmlir-N-dev,
docs/mlir.md), `--extra-include /usr/lib/llvm-N/include` for the llvm-c
headers mlir-c/Target/LLVMIR.h includes.

LLVM-C: functions `LLVM*`; handles are pointer typedefs (`LLVMValueRef`);
an array's element count follows it (`LLVMValueRef *Args, unsigned
NumArgs`). MLIR-C: functions `mlir*`; handles are structs of one pointer,
`ptr`, passed by value (`MlirValue`, DEFINE_C_API_STRUCT in
mlir-c/Support.h); the count comes first (`intptr_t n, MlirValue const
*operands`).
"""

import argparse
import dataclasses
import os
import re
from typing import Dict, Optional, Sequence, Tuple

LLVM_HEADER_GLOBS = ("llvm-c/*.h", "llvm-c/Transforms/*.h")
# Under llvm-c/ but not part of libLLVM's C API (libLTO's).
LLVM_EXCLUDED_HEADERS = ("llvm-c/lto.h",)
LLVM_POINTER_HANDLES = r"^LLVM\w*Ref$"
LLVM_COUNT_AFTER = r"^(Num|Count)|(Count|Num|Len|Length|Size)$"
# Return types after which a single `Out*` handle parameter is registered,
# with the C++ condition meaning "the call succeeded" (also the `ok` the
# spec's *_if_ok/*_if_failed effects are decided by).
LLVM_OUT_SUCCESS = (("LLVMBool", "r == 0"), ("LLVMErrorRef", "r == nullptr"))


@dataclasses.dataclass(frozen=True)
class Conventions:
    """What the generator assumes of a C API's headers and library."""

    # Every function of the API (spec names, header scan, nm) starts so.
    prefix: str = "LLVM"
    # The headers to parse, relative to --include-dir (`**`: any depth),
    # and those left out.
    header_globs: Tuple[str, ...] = LLVM_HEADER_GLOBS
    excluded_headers: Tuple[str, ...] = LLVM_EXCLUDED_HEADERS
    # A typedef of a struct with one field, `ptr`, a pointer, is a handle
    # passed by value (its `ptr` is checked and registered).
    struct_handles: bool = False
    # A typedef of a (non-function) pointer whose name matches is a handle
    # ("": none but the named ones of handle_types.def).
    pointer_handles: str = LLVM_POINTER_HANDLES
    # An input array of handles takes its element count from the integer
    # parameter right after it whose name matches count_after, or from the
    # one right before it (or before the arrays it opens) whose name matches
    # count_before ("": no such rule).
    count_after: str = LLVM_COUNT_AFTER
    count_before: str = ""
    # Return typedef -> C++ condition on `r` meaning success.
    out_success: Tuple[Tuple[str, str], ...] = LLVM_OUT_SUCCESS
    # Link mode wraps the program's references to operator new and delete
    # (the library is linked in, its allocations are the program's); False
    # for a library that is a shared object, whose allocations link mode
    # sees by defining the allocation functions (libMLIR.so).
    wrap_allocation: bool = True
    # More directories the headers include from (-I to libclang after
    # --include-dir): MLIR's mlir-c/Target/LLVMIR.h includes llvm-c/, in
    # another prefix when MLIR is not installed beside its LLVM.
    extra_includes: Tuple[str, ...] = ()
    # The typedef of the struct {const char *data; size_t length} the API
    # passes strings in ("": none). Every argument of this type has its
    # `data` checked against the strings the API lent (the spec's `lends`)
    # whose owner has died.
    string_ref: str = ""

    @property
    def out_success_conditions(self) -> Dict[str, str]:
        return dict(self.out_success)

    @property
    def header_dir(self) -> str:
        """The headers' directory as texts name it: `llvm-c`."""
        return self.header_globs[0].split("/", 1)[0]

    @property
    def api_name(self) -> str:
        """`LLVM-C`."""
        return self.header_dir.upper()

    @property
    def library_name(self) -> str:
        """What texts call the library and its releases: `LLVM` (`LLVM
        19`), `MLIR` (`MLIR 19`, the MLIR of LLVM 19)."""
        name = self.api_name
        return name[:-2] if name.endswith("-C") else name

    def function_name_re(self) -> "re.Pattern[str]":
        """A function name of the API, as the spec files write it."""
        return re.compile(rf"^{re.escape(self.prefix)}\w+$")

    def pointer_handle_re(self) -> Optional["re.Pattern[str]"]:
        return re.compile(self.pointer_handles) if self.pointer_handles \
            else None

    def count_after_re(self) -> Optional["re.Pattern[str]"]:
        return re.compile(self.count_after) if self.count_after else None

    def count_before_re(self) -> Optional["re.Pattern[str]"]:
        return re.compile(self.count_before) if self.count_before else None

    def is_struct_handle(self, cindex, clang_type) -> bool:
        """With struct_handles, a struct whose one field is a (non-function)
        pointer named `ptr` (MLIR-C's DEFINE_C_API_STRUCT, and its
        MlirDialectHandle and MlirDiagnostic written out): a handle."""
        if not self.struct_handles:
            return False
        canonical = clang_type.get_canonical()
        if canonical.kind != cindex.TypeKind.RECORD:
            return False
        fields = list(canonical.get_fields())
        if len(fields) != 1 or fields[0].spelling != "ptr":
            return False
        field = fields[0].type.get_canonical()
        return field.kind == cindex.TypeKind.POINTER and \
            field.get_pointee().kind not in (
                cindex.TypeKind.FUNCTIONPROTO, cindex.TypeKind.FUNCTIONNOPROTO)

    def count_param(self, params: Sequence, index: int) -> Optional[int]:
        """The parameter giving the element count of the handle array
        params[index] (each param has name, is_integer, elem_handle): the
        integer right before it, or before the run of arrays it is in, if
        count_before names it (`intptr_t n, MlirType const *args,
        MlirLocation const *locs`); else the integer right after it if
        count_after names it (`LLVMValueRef *Args, unsigned NumArgs`)."""
        before = self.count_before_re()
        if before is not None:
            i = index - 1
            while i >= 0 and params[i].elem_handle is not None:
                i -= 1
            if (i >= 0 and params[i].is_integer
                    and before.search(params[i].name)):
                return i
        after = self.count_after_re()
        if (after is not None and index + 1 < len(params)
                and params[index + 1].is_integer
                and after.search(params[index + 1].name)):
            return index + 1
        return None


def library_label(libs: Sequence[str]) -> str:
    """How texts name the libraries: `libLLVM` (libLLVM.so.19.1,
    libLLVM-14.so.1), `libMLIRCAPI*` (libMLIRCAPIIR.a, ...)."""
    stems = sorted({re.split(r"[.-]", os.path.basename(p), maxsplit=1)[0]
                    for p in libs})
    if len(stems) == 1:
        return stems[0]
    common = os.path.commonprefix(stems)
    return f"{common}*" if common else "the libraries"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that choose the conventions (defaults: LLVM-C's)."""
    group = parser.add_argument_group(
        "conventions of the C API (default: LLVM-C's)")
    group.add_argument("--prefix", default="LLVM",
                       help="the API's function names start with this"
                       " (default: LLVM)")
    group.add_argument("--header-glob", action="append",
                       help="headers to parse, relative to --include-dir;"
                       " `**` matches any depth; repeatable (default:"
                       f" {' '.join(LLVM_HEADER_GLOBS)})")
    group.add_argument("--exclude-header", action="append",
                       help="a header the globs match but that is not part"
                       " of the API; repeatable (default:"
                       f" {' '.join(LLVM_EXCLUDED_HEADERS)}, with the"
                       " default globs only)")
    group.add_argument("--struct-handles", action="store_true",
                       help="typedefs of a struct whose only field is a"
                       " pointer named ptr are handles passed by value")
    group.add_argument("--pointer-handles", default=LLVM_POINTER_HANDLES,
                       metavar="REGEX",
                       help="pointer typedefs named so are handles (''"
                       f": none; default: {LLVM_POINTER_HANDLES})")
    group.add_argument("--count-after", default=LLVM_COUNT_AFTER,
                       metavar="REGEX",
                       help="an integer parameter so named right after a"
                       " handle array is its element count (''"
                       f": none; default: {LLVM_COUNT_AFTER})")
    group.add_argument("--count-before", default="", metavar="REGEX",
                       help="the same for the integer right before the"
                       " array, or before the run of arrays it opens"
                       " (default: none)")
    group.add_argument("--no-wrap-allocation", action="store_true",
                       help="link mode defines the allocation functions (the"
                       " library is a shared object): no --wrap for them")
    group.add_argument("--out-success", action="append",
                       metavar="TYPE=CONDITION",
                       help="a function returning TYPE succeeded when"
                       " CONDITION (C++ on the result `r`) holds;"
                       " repeatable (default: "
                       + ", ".join(f"'{t}={c}'" for t, c in LLVM_OUT_SUCCESS)
                       + ")")
    group.add_argument("--string-ref", default="", metavar="TYPEDEF",
                       help="the struct {const char *data; size_t length}"
                       " strings are passed in: each argument's data is"
                       " checked against lent strings whose owner died"
                       " (default: none)")
    group.add_argument("--extra-include", action="append", metavar="DIR",
                       help="another directory the headers include from"
                       " (-I after --include-dir; its headers are not"
                       " parsed for the API); repeatable (default: none)")


def from_args(args: argparse.Namespace) -> Conventions:
    """The conventions add_arguments' options chose; ValueError if one is
    malformed."""
    globs = tuple(args.header_glob) if args.header_glob else \
        LLVM_HEADER_GLOBS
    if args.exclude_header is not None:
        excluded = tuple(args.exclude_header)
    else:
        excluded = () if args.header_glob else LLVM_EXCLUDED_HEADERS
    out_success = LLVM_OUT_SUCCESS
    if args.out_success:
        pairs = []
        for item in args.out_success:
            name, sep, cond = item.partition("=")
            if not sep or not re.fullmatch(r"\w+", name.strip()) \
                    or not cond.strip():
                raise ValueError(f"--out-success {item!r}: expected"
                                 " TYPE=CONDITION")
            pairs.append((name.strip(), cond.strip()))
        out_success = tuple(pairs)
    for option, value in (("--pointer-handles", args.pointer_handles),
                          ("--count-after", args.count_after),
                          ("--count-before", args.count_before)):
        try:
            re.compile(value)
        except re.error as e:
            raise ValueError(f"{option} {value!r}: {e}")
    if not re.fullmatch(r"\w+", args.prefix):
        raise ValueError(f"--prefix {args.prefix!r}: not an identifier")
    if args.string_ref and not re.fullmatch(r"\w+", args.string_ref):
        raise ValueError(f"--string-ref {args.string_ref!r}: not an"
                         " identifier")
    return Conventions(prefix=args.prefix, header_globs=globs,
                       excluded_headers=excluded,
                       struct_handles=args.struct_handles,
                       pointer_handles=args.pointer_handles,
                       count_after=args.count_after,
                       count_before=args.count_before,
                       out_success=out_success,
                       wrap_allocation=not args.no_wrap_allocation,
                       extra_includes=tuple(args.extra_include or ()),
                       string_ref=args.string_ref)
