#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks every entry's LLVM range in the ownership spec against the LLVM
versions ownsan supports (scripts/llvm-majors.txt).

For each supported major M and each entry of src/profiles/llvm_c/ownership.spec, the
function is *present* in M when M's llvm-c headers declare it AND M's
libLLVM exports it (`nm -D --defined-only`): only then does a build for M
wrap it. The entry's range (since=/until=, inclusive; none: every version)
must include exactly the majors where it is present:

  * in range but absent: the entry names a function M lacks, or one M
    declares but does not export (a since= too low, an until= too high);
  * present but out of range: a build for M wraps the function without its
    effects, so its misuses go unreported there (a since= too high, an
    until= too low).

The check is only as fine as the supported majors: a since=19 entry absent
in 16 and present in 19 passes whatever LLVM 17 and 18 have.

A supported major whose headers or libLLVM are not installed fails the check
(it is never skipped, but with --skip-missing below): CI installs every
supported version.

Prints one line per problem and "N passed, M failed" (a pass per major
checked); exit status 1 on any failure.

Another profile's spec (MLIR-C's) is checked with its conventions, the
options of tools/gen_conventions.py as tools/gen_wrappers.py takes them,
its majors (--major) and where each major's headers and libraries are:
--include-dir and --lib are search paths ({major} replaced, --lib's
wildcards expanded), so that a major unpacked from its packages rather
than installed can be found; with --skip-missing a major found nowhere is
a SKIP line, and the exit status 77 (ctest's SKIP_RETURN_CODE) unless
something failed. MLIR-C's (tests/mlir/CMakeLists.txt, spec.versions_mlir):
  tools/check_spec_versions.py --spec src/profiles/mlir_c/ownership.spec \\
      --prefix mlir --header-glob 'mlir-c/**/*.h' ... --major 19 --major 22 \\
      --include-dir /usr/lib/llvm-{major}/include \\
      --include-dir ~/.cache/ownsan/mlir-{major}-root/usr/lib/llvm-{major}/include \\
      --lib '/usr/lib/llvm-{major}/lib/libMLIRCAPI*.a' \\
      --lib '~/.cache/ownsan/mlir-{major}-root/usr/lib/llvm-{major}/lib/libMLIRCAPI*.a' \\
      --skip-missing

Usage (Debian's /usr/bin/python3: it has python3-clang):
  tools/check_spec_versions.py [--spec FILE] [--majors FILE | --major N...]
      [--include-dir PATTERN...] [--lib PATTERN...] [--skip-missing]
      [conventions]
"""

import argparse
import glob
import os
import sys
from typing import Dict, List, Optional, Sequence, Set, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_conventions  # noqa: E402
from wrapgen import api_profile  # noqa: E402
from wrapgen.api_profile import REPO_ROOT  # noqa: E402
from wrapgen.exports import read_exported_functions  # noqa: E402
from wrapgen.headers import (DEFAULT_LIBCLANG,  # noqa: E402
                             header_llvm_major, list_headers, parse_headers)
from wrapgen.model import Function, GenError, SpecEntry  # noqa: E402
from wrapgen.spec import parse_spec_file  # noqa: E402

DEFAULT_SPEC = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c", "ownership.spec")
DEFAULT_MAJORS = os.path.join(REPO_ROOT, "scripts", "llvm-majors.txt")
DEFAULT_INCLUDE = "/usr/lib/llvm-{major}/include"
# The unversioned name llvm-N-dev installs for every major (the real file
# is libLLVM-N.so.1 up to 17, libLLVM.so.N.1 from 18 on).
DEFAULT_LIB = "/usr/lib/llvm-{major}/lib/libLLVM.so"
# ctest's SKIP_RETURN_CODE (--skip-missing).
EXIT_SKIP = 77
DEFAULT_MISSING_HINT = "install llvm-{major}-dev: scripts/install-deps.sh"


class NotInstalled(GenError):
    """A major's headers or libraries are found nowhere."""


def read_majors(path: str) -> List[int]:
    """The supported LLVM majors listed in `path` (one per line, `#`
    comments), in file order."""
    majors = []
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            if not text.isdigit():
                raise GenError(f"{path}:{line_no}: not an LLVM major:"
                               f" {text!r}")
            majors.append(int(text))
    if not majors:
        raise GenError(f"{path}: no LLVM majors listed")
    return majors


def range_text(entry: SpecEntry) -> str:
    """"since=19", "until=14", "since=15 until=20" or "no since=/until="."""
    parts = []
    if entry.since is not None:
        parts.append(f"since={entry.since}")
    if entry.until is not None:
        parts.append(f"until={entry.until}")
    return " ".join(parts) or "no since=/until="


def range_problems(entries: Sequence[SpecEntry],
                   declared: Dict[int, Set[str]],
                   exported: Dict[int, Set[str]]) -> List[str]:
    """One message per (entry, major) whose range disagrees with what that
    major has; `declared`/`exported` map each checked major to names."""
    problems = []
    for entry in entries:
        name = entry.function
        for major in sorted(declared):
            is_declared = name in declared[major]
            is_exported = name in exported[major]
            present = is_declared and is_exported
            applies = entry.applies_to(major)
            if applies == present:
                continue
            where = (f"{os.path.relpath(entry.path, REPO_ROOT)}:"
                     f"{entry.line_no}: {name} ({range_text(entry)})")
            if applies:
                lacks = " or ".join(
                    verb for verb, has in (("declare", is_declared),
                                           ("export", is_exported))
                    if not has)
                problems.append(f"{where} applies to {release(major)}, which"
                                f" does not {lacks} it")
            else:
                problems.append(f"{where} excludes {release(major)}, which"
                                " declares and exports it: its misuses go"
                                " unreported there")
    return problems


def release(major: int) -> str:
    """`LLVM 19` (`MLIR 19` for MLIR-C's conventions)."""
    return f"{api_profile.CONVENTIONS.library_name} {major}"


def include_dirs(major: int, patterns: Sequence[str]) -> List[str]:
    """The directories of the --include-dir patterns that exist for
    `major`, in order."""
    dirs = [os.path.expanduser(p.format(major=major)) for p in patterns]
    return [d for d in dirs if os.path.isdir(d)]


def load_headers(major: int, patterns: Sequence[str], libclang: str,
                 missing_hint: str = DEFAULT_MISSING_HINT
                 ) -> Dict[str, Function]:
    """The functions one major's headers declare: those of the first
    --include-dir that has the API's headers, the other directories
    searched after it (an unpacked mlir-c/ includes the installed llvm-c/).
    Raises NotInstalled when no directory has them, GenError when one holds
    another major's headers (llvm/Config/llvm-config.h says which)."""
    conv = api_profile.CONVENTIONS
    dirs = include_dirs(major, patterns)
    api_dir = next((d for d in dirs if any(
        glob.glob(os.path.join(d, g), recursive=True)
        for g in conv.header_globs)), None)
    if api_dir is None:
        where = " or ".join(os.path.expanduser(p.format(major=major))
                            for p in patterns)
        raise NotInstalled(f"{release(major)}: no {conv.header_dir} headers"
                           f" in {where}"
                           f" ({missing_hint.format(major=major)})")
    for d in [api_dir] + [d for d in dirs if d != api_dir]:
        m = header_llvm_major(d)
        if m is not None and m != major:
            raise GenError(f"{release(major)}: {d} holds the headers of"
                           f" LLVM {m}")
    return parse_headers(api_dir, list_headers(api_dir), libclang,
                         [d for d in dirs if d != api_dir])


def find_libs(major: int, patterns: Sequence[str],
              missing_hint: str = DEFAULT_MISSING_HINT) -> List[str]:
    """One major's libraries: every file the first --lib pattern that
    matches any names (wildcards expanded). One pattern that matches
    nothing is returned as it is (nm says it is not found); several:
    NotInstalled."""
    expanded = [os.path.expanduser(p.format(major=major)) for p in patterns]
    for pattern in expanded:
        libs = sorted(glob.glob(pattern))
        if libs:
            return libs
    if len(expanded) == 1 and not glob.has_magic(expanded[0]):
        return expanded
    raise NotInstalled(f"{release(major)}: no library matches"
                       f" {' or '.join(expanded)}"
                       f" ({missing_hint.format(major=major)})")


def load_version(major: int, include_patterns: Sequence[str],
                 lib_patterns: Sequence[str], libclang: str,
                 missing_hint: str = DEFAULT_MISSING_HINT
                 ) -> Tuple[Set[str], Set[str]]:
    """(declared, exported) functions of one major; raises NotInstalled
    when that major is not installed, GenError on another problem."""
    if isinstance(include_patterns, str):
        include_patterns = [include_patterns]
    if isinstance(lib_patterns, str):
        lib_patterns = [lib_patterns]
    declared = set(load_headers(major, include_patterns, libclang,
                                missing_hint))
    libs = find_libs(major, lib_patterns, missing_hint)
    return declared, read_exported_functions(libs)


def add_version_arguments(parser: argparse.ArgumentParser) -> None:
    """The options saying which majors to read and where (also
    tools/gen_ownership_doc.py's)."""
    parser.add_argument("--majors", default=DEFAULT_MAJORS,
                        help="supported majors (default:"
                        " scripts/llvm-majors.txt)")
    parser.add_argument("--major", type=int, action="append",
                        help="a major to read (repeatable; instead of"
                        " --majors)")
    parser.add_argument("--include-dir", action="append",
                        metavar="PATTERN",
                        help="where a major's headers are, {major}"
                        " replaced; repeatable: the first that has the"
                        " API's headers gives them, the others are searched"
                        f" after it (default: {DEFAULT_INCLUDE})")
    parser.add_argument("--missing-hint", default=DEFAULT_MISSING_HINT,
                        help="how to install a major that is not found,"
                        " {major} replaced (default: %(default)s)")


def majors_of(args: argparse.Namespace) -> List[int]:
    """--major's, else the --majors file's."""
    return list(args.major) if args.major else read_majors(args.majors)


def conventions_of(args: argparse.Namespace
                   ) -> gen_conventions.Conventions:
    """gen_conventions.from_args, its errors as GenError."""
    try:
        return gen_conventions.from_args(args)
    except ValueError as e:
        raise GenError(str(e))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check the spec's since=/until= against every supported"
        " LLVM's headers and libLLVM.")
    parser.add_argument("--spec", default=DEFAULT_SPEC)
    add_version_arguments(parser)
    parser.add_argument("--lib", action="append", metavar="PATTERN",
                        help="{major} replaced, wildcards expanded;"
                        " repeatable: the first that matches gives the"
                        f" libraries (default: {DEFAULT_LIB})")
    parser.add_argument("--skip-missing", action="store_true",
                        help="a major found nowhere is skipped (exit 77"
                        " unless something fails), not failed")
    parser.add_argument("--libclang", default=DEFAULT_LIBCLANG)
    gen_conventions.add_arguments(parser)
    args = parser.parse_args(argv)
    include_patterns = args.include_dir or [DEFAULT_INCLUDE]
    lib_patterns = args.lib or [DEFAULT_LIB]

    passed = failed = 0
    skipped = []
    try:
        api_profile.CONVENTIONS = conventions_of(args)
        majors = majors_of(args)
        entries = parse_spec_file(args.spec)
    except GenError as e:
        print(f"FAIL {e}")
        print("0 passed, 1 failed")
        return 1
    declared: Dict[int, Set[str]] = {}
    exported: Dict[int, Set[str]] = {}
    for major in majors:
        try:
            declared[major], exported[major] = load_version(
                major, include_patterns, lib_patterns, args.libclang,
                args.missing_hint)
        except NotInstalled as e:
            if args.skip_missing:
                # Said, and the whole check is a skip (77): a major not
                # checked is not passed.
                skipped.append(major)
                print(f"SKIP {e}")
            else:
                # A supported version that is not installed fails: CI
                # installs them all, and a skip would hide a wrong range.
                failed += 1
                print(f"FAIL {e}")
        except GenError as e:
            failed += 1
            print(f"FAIL {e}")

    problems = range_problems(entries, declared, exported)
    library = gen_conventions.library_label(lib_patterns)
    for major in sorted(declared):
        mine = [p for p in problems if f"{release(major)}," in p]
        if mine:
            failed += 1
            for p in mine:
                print(f"FAIL {p}")
        else:
            passed += 1
            print(f"PASS {release(major)}: {len(entries)} entries, every"
                  f" range matches its headers and {library}")
    summary = f"{passed} passed, {failed} failed"
    if skipped:
        summary += (f", {len(skipped)} skipped ("
                    + ", ".join(release(m) for m in skipped)
                    + ": not found)")
    print(summary)
    if failed:
        return 1
    return EXIT_SKIP if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
