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
(it is never skipped): CI installs every supported version.

Prints one line per problem and "N passed, M failed" (a pass per major
checked); exit status 1 on any failure.

Usage (Debian's /usr/bin/python3: it has python3-clang):
  tools/check_spec_versions.py [--spec FILE] [--majors FILE]
      [--include-dir PATTERN] [--lib PATTERN]
"""

import argparse
import os
import sys
from typing import Dict, List, Optional, Sequence, Set, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_wrappers as gw  # noqa: E402

REPO_ROOT = gw.REPO_ROOT
DEFAULT_SPEC = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c", "ownership.spec")
DEFAULT_MAJORS = os.path.join(REPO_ROOT, "scripts", "llvm-majors.txt")
DEFAULT_INCLUDE = "/usr/lib/llvm-{major}/include"
# The unversioned name llvm-N-dev installs for every major (the real file
# is libLLVM-N.so.1 up to 17, libLLVM.so.N.1 from 18 on).
DEFAULT_LIB = "/usr/lib/llvm-{major}/lib/libLLVM.so"


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
                raise gw.GenError(f"{path}:{line_no}: not an LLVM major:"
                                  f" {text!r}")
            majors.append(int(text))
    if not majors:
        raise gw.GenError(f"{path}: no LLVM majors listed")
    return majors


def range_text(entry: gw.SpecEntry) -> str:
    """"since=19", "until=14", "since=15 until=20" or "no since=/until="."""
    parts = []
    if entry.since is not None:
        parts.append(f"since={entry.since}")
    if entry.until is not None:
        parts.append(f"until={entry.until}")
    return " ".join(parts) or "no since=/until="


def range_problems(entries: Sequence[gw.SpecEntry],
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
                problems.append(f"{where} applies to LLVM {major}, which does"
                                f" not {lacks} it")
            else:
                problems.append(f"{where} excludes LLVM {major}, which"
                                " declares and exports it: its misuses go"
                                " unreported there")
    return problems


def load_version(major: int, include_pattern: str, lib_pattern: str,
                 libclang: str) -> Tuple[Set[str], Set[str]]:
    """(declared, exported) LLVM-C functions of one major; raises GenError
    when that major is not installed."""
    include_dir = include_pattern.format(major=major)
    lib = lib_pattern.format(major=major)
    if not os.path.exists(os.path.join(include_dir, "llvm-c", "Core.h")):
        raise gw.GenError(f"LLVM {major}: no llvm-c headers in {include_dir}"
                          f" (install llvm-{major}-dev:"
                          " scripts/install-deps.sh)")
    found = gw.header_llvm_major(include_dir)
    if found != major:
        raise gw.GenError(f"LLVM {major}: {include_dir} holds the headers of"
                          f" LLVM {found}")
    declared = set(gw.parse_headers(include_dir, gw.list_headers(include_dir),
                                    libclang))
    return declared, gw.read_exported_functions(lib)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check the spec's since=/until= against every supported"
        " LLVM's headers and libLLVM.")
    parser.add_argument("--spec", default=DEFAULT_SPEC)
    parser.add_argument("--majors", default=DEFAULT_MAJORS,
                        help="supported majors (default:"
                        " scripts/llvm-majors.txt)")
    parser.add_argument("--include-dir", default=DEFAULT_INCLUDE,
                        help=f"{{major}} is replaced (default:"
                        f" {DEFAULT_INCLUDE})")
    parser.add_argument("--lib", default=DEFAULT_LIB,
                        help=f"{{major}} is replaced (default: {DEFAULT_LIB})")
    parser.add_argument("--libclang", default=gw.DEFAULT_LIBCLANG)
    args = parser.parse_args(argv)

    passed = failed = 0
    try:
        majors = read_majors(args.majors)
        entries = gw.parse_spec_file(args.spec)
    except gw.GenError as e:
        print(f"FAIL {e}")
        print("0 passed, 1 failed")
        return 1
    declared: Dict[int, Set[str]] = {}
    exported: Dict[int, Set[str]] = {}
    for major in majors:
        try:
            declared[major], exported[major] = load_version(
                major, args.include_dir, args.lib, args.libclang)
        except gw.GenError as e:
            # A supported version that is not installed fails: CI installs
            # them all, and a skip would hide a wrong range.
            failed += 1
            print(f"FAIL {e}")

    problems = range_problems(entries, declared, exported)
    for major in sorted(declared):
        mine = [p for p in problems if f"LLVM {major}," in p]
        if mine:
            failed += 1
            for p in mine:
                print(f"FAIL {p}")
        else:
            passed += 1
            print(f"PASS LLVM {major}: {len(entries)} entries, every range"
                  " matches its headers and libLLVM")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
