# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reading the API's headers with libclang: which headers there are, and
each declared function with the types of its parameters and result as the
wrappers need them (handles, handle arrays, struct fields, strings)."""

import glob
import os
import re
from typing import Dict, List, Optional, Sequence, Set

import gen_conventions
from wrapgen import api_profile
from wrapgen.model import COUNT_INT_TYPES, Function, GenError, Param


DEFAULT_LIBCLANG = "/usr/lib/llvm-19/lib/libclang-19.so.1"

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
    conv = conventions or api_profile.CONVENTIONS
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
    if not api_profile.CONVENTIONS.is_struct_handle(cindex, clang_type):
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
        return api_profile.NAMED_HANDLE_TYPES.get(struct_name, "Other")
    name = typedef_name(cindex, clang_type)
    if not name:
        return None
    if name in api_profile.NAMED_HANDLE_TYPES:
        return api_profile.NAMED_HANDLE_TYPES[name]
    pointer_handles = api_profile.CONVENTIONS.pointer_handle_re()
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
            string_ref=bool(api_profile.CONVENTIONS.string_ref)
            and typedef_name(cindex, arg.type)
            == api_profile.CONVENTIONS.string_ref,
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
    what = f"the {api_profile.CONVENTIONS.header_dir} headers"
    index = cindex.Index.create()
    # (And the conventions' --extra-include: the generator's way to say it.)
    include_args = [f"-I{d}" for d in dict.fromkeys(
        (include_dir, *extra_include_dirs,
         *api_profile.CONVENTIONS.extra_includes))]
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
        if not cursor.spelling.startswith(api_profile.CONVENTIONS.prefix):
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
