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

The steps are the modules of tools/wrapgen/, one job each (its
__init__.py lists them); this file is the command line that runs them.

Nothing in the generator depends on the LLVM version: version differences
belong in the spec (since=/until=).
"""

import argparse
import dataclasses
import os
import sys
from typing import Dict, List, Optional, Sequence, Set, Union

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_conventions  # noqa: E402
from wrapgen import api_profile  # noqa: E402
from wrapgen.api_profile import (FN_FLAGS_TXT, HANDLE_TYPES_DEF,  # noqa: E402
                                 REPO_ROOT, read_fn_flags, read_handle_types)
from wrapgen.classify import classify  # noqa: E402
from wrapgen.exports import read_exports  # noqa: E402
from wrapgen.headers import (DEFAULT_LIBCLANG, header_llvm_major,  # noqa: E402
                             list_headers, parse_headers)
from wrapgen.kinds import (KindsSpec, kind_set_table,  # noqa: E402
                           parse_kinds_file, resolve_kinds)
from wrapgen.model import Classification, Function, GenError  # noqa: E402
from wrapgen.render_link import (render_link_wrap_list,  # noqa: E402
                                 render_version_script)
from wrapgen.render_reports import (render_classification,  # noqa: E402
                                    render_coverage)
from wrapgen.render_sources import (render_fn_ids,  # noqa: E402
                                    render_real_fns, render_symbols_c,
                                    render_wrappers_cpp)
from wrapgen.spec import parse_spec_file, resolve_spec  # noqa: E402


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
                f" {api_profile.CONVENTIONS.api_name} functions"
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
    try:
        try:
            api_profile.CONVENTIONS = gen_conventions.from_args(args)
        except ValueError as e:
            raise GenError(str(e))
        (api_profile.NAMED_HANDLE_TYPES,
         api_profile.OBJECT_KINDS) = read_handle_types(args.handle_types)
        api_profile.FN_FLAG_RULES = read_fn_flags(args.fn_flags)
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
