#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Spec coverage check (issue 3, item 4).

Lists the LLVM-C functions that are *candidates* for an ownership rule and
fails unless each is classified, either by an entry of the ownership spec
that applies to this LLVM version or by a line of the plain list
(src/profiles/llvm_c/plain.txt) saying why it needs no entry.

A function is a candidate when it is declared in the llvm-c headers AND
exported by the libLLVM, and
  * its name contains, case-insensitively, one of the substrings
    Dispose, Delete, Erase, Remove, Consume, Take
    (so "LLVMOrcDisposeLLJIT", "LLVMInstructionEraseFromParent",
    "LLVMRemoveStringAttributeAtIndex", "LLVMConsumeError", and also
    "LLVMIsTakeReturn"-style names; a substring rule errs on the side of
    listing too much, which the plain list then explains), or
  * it returns `char *` or `const char *` (every string the API hands out
    is either owned -- a `message`/`error_message` entry -- or borrowed).

Output: one line per unclassified function
  unclassified: LLVMFoo (returns char *; llvm-c/Core.h)
and a summary line. Exit status 1 if any is unclassified (or if a plain
line is malformed or names a function that also has a spec entry in this
version -- a function is one or the other). Plain lines naming functions
that this version does not have are fine: the list serves every version.

Plain list format: `LLVMName  # why` -- one function per line; the comment
is mandatory. A comment starting "TODO(spec):" marks a function that needs
an effect ownsan does not have yet.

Another profile's API (MLIR-C's) is checked with its conventions, the
options of tools/gen_conventions.py as tools/gen_wrappers.py takes them
(the function prefix, the headers), its libraries (--lib, repeatable: the
exports of all, static archives' members' included) and the words of its
names that say a call may end or move an object (--name-word, repeatable,
instead of the six above). MLIR-C's (tests/mlir/CMakeLists.txt,
spec.coverage_mlir):
  tools/check_spec_coverage.py --include-dir /usr/lib/llvm-19/include \\
      --lib /usr/lib/llvm-19/lib/libMLIRCAPIIR.a --lib ... --llvm-major 19 \\
      --spec src/profiles/mlir_c/ownership.spec \\
      --plain src/profiles/mlir_c/plain.txt \\
      --prefix mlir --header-glob 'mlir-c/**/*.h' ... \\
      --name-word Destroy --name-word Detach ...
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_conventions  # noqa: E402
from wrapgen import api_profile  # noqa: E402
from wrapgen.exports import read_exported_functions  # noqa: E402
from wrapgen.headers import (DEFAULT_LIBCLANG, list_headers,  # noqa: E402
                             parse_headers)
from wrapgen.model import GenError  # noqa: E402
from wrapgen.spec import parse_spec_file  # noqa: E402

NAME_PATTERNS = ("dispose", "delete", "erase", "remove", "consume", "take")


def is_string_return(ret: str) -> bool:
    r = " ".join(ret.replace("*", " * ").split())
    return r in ("char *", "const char *")


def candidate_reason(fn, patterns=NAME_PATTERNS) -> str:
    reasons = []
    low = fn.name.lower()
    pats = [p for p in patterns if p in low]
    if pats:
        reasons.append("name matches " + "/".join(pats))
    if is_string_return(fn.ret):
        reasons.append("returns " + fn.ret)
    return "; ".join(reasons)


def parse_plain(path):
    prefix = api_profile.CONVENTIONS.prefix
    plain_re = re.compile(rf"^({re.escape(prefix)}\w+)\s+#\s*(\S.*)$")
    plain, errors = {}, []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            m = plain_re.match(s)
            if not m:
                errors.append(f"{path}:{no}: expected `{prefix}Name  # why`:"
                              f" {s}")
                continue
            if m.group(1) in plain:
                errors.append(f"{path}:{no}: {m.group(1)} listed twice")
            plain[m.group(1)] = m.group(2)
    return plain, errors


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include-dir", required=True, action="append",
                    help="the headers' directory; repeatable: the first"
                    " holds the API's headers, the others are searched"
                    " after it (an unpacked mlir-c/ includes llvm-c/)")
    ap.add_argument("--lib", required=True, action="append",
                    help="the library; repeatable: the exports of every one"
                    " (a static archive: its members') make the API")
    ap.add_argument("--llvm-major", required=True, type=int)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--plain", required=True)
    ap.add_argument("--libclang", default=DEFAULT_LIBCLANG)
    ap.add_argument("--list", action="store_true",
                    help="print every candidate with its classification")
    ap.add_argument("--name-word", action="append", metavar="WORD",
                    help="a name containing WORD (any case) is a candidate;"
                    " repeatable (default: "
                    + ", ".join(p.capitalize() for p in NAME_PATTERNS) + ")")
    gen_conventions.add_arguments(ap)
    args = ap.parse_args(argv)
    patterns = tuple(w.lower() for w in args.name_word) \
        if args.name_word else NAME_PATTERNS

    try:
        try:
            api_profile.CONVENTIONS = gen_conventions.from_args(args)
        except ValueError as e:
            raise GenError(str(e))
        entries = parse_spec_file(args.spec)
        include_dir, *extra_dirs = args.include_dir
        declared = parse_headers(include_dir,
                                 list_headers(include_dir),
                                 args.libclang, extra_dirs)
        exported = read_exported_functions(args.lib)
    except GenError as e:
        print(f"check_spec_coverage: error: {e}", file=sys.stderr)
        return 2
    in_spec = {e.function for e in entries if e.applies_to(args.llvm_major)}
    plain, errors = parse_plain(args.plain)
    for name in sorted(set(plain) & in_spec):
        errors.append(f"{name} is both in the spec and in {args.plain}")

    candidates = []
    for name in sorted(set(declared) & exported):
        why = candidate_reason(declared[name], patterns)
        if why:
            candidates.append((name, why, declared[name].header))
    unclassified = []
    for name, why, header in candidates:
        cls = "spec" if name in in_spec else (
            "plain" if name in plain else None)
        if args.list:
            print(f"{cls or 'UNCLASSIFIED':6} {name} ({why}; {header})")
        if cls is None:
            unclassified.append(name)
            print(f"unclassified: {name} ({why}; {header})")
    for e in errors:
        print(f"error: {e}")
    todo = sorted(n for n, c in plain.items() if c.startswith("TODO(spec):")
                  and n in exported)
    print(f"{api_profile.CONVENTIONS.library_name} {args.llvm_major}:"
          f" {len(candidates)} candidates,"
          f" {sum(1 for c in candidates if c[0] in in_spec)} in the spec,"
          f" {sum(1 for c in candidates if c[0] in plain)} plain"
          f" ({len(todo)} TODO(spec)), {len(unclassified)} unclassified")
    return 1 if unclassified or errors else 0


if __name__ == "__main__":
    sys.exit(main())
