#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the cases of tests/spec/spec_cases.c (and orc_cases.inc) under
`ownsan run`: one correct use and one misuse per entry of
src/profiles/llvm_c/ownership.spec.

    check_spec.py --case NAME --ownsan OWNSAN --program SPEC_CASES
    check_spec.py --ok-runs --ownsan OWNSAN --program SPEC_CASES --spec SPEC
                  --llvm-major N
    check_spec.py --coverage --program SPEC_CASES --spec SPEC --llvm-major N
    check_spec.py --list [--spec SPEC --llvm-major N]

A case is written once, in the C source: CASE(NAME) and its code, a
`// COVERS-NAME: LLVMFoo ...` line (the spec functions whose rule it
exercises) and `// CHECK-NAME:` FileCheck lines, after the misuse, for the
report the bad run must give.

--case NAME, the misuse: `ownsan run -- SPEC_CASES NAME bad` stops (a
  failure status) with exactly one report, and its stderr passes `FileCheck
  SOURCE --check-prefix=CHECK-NAME -DPID=<its pid>`. Exit 77 (the case does
  not exist in this LLVM, or a prerequisite is missing): SKIP, exit 77.

--ok-runs, the correct uses of every case of LLVM N (those --list gives),
  in one process (`SPEC_CASES --ok NAME...`): without ownsan (the
  reference), then under `ownsan run`: exit 0 both, the same stdout, and no
  "OwnSan" on stderr. (One process for all: each case's own process cost
  two starts of libLLVM, a third of the spec tests' time.) If that fails,
  each case is run alone, both ways, to name the ones at fault.

The runs use symbolize=0: the report's kind, calls, causes and explanation
are what these cases check (the seeded and lifetime tests check symbolized
stacks), and a report takes ~0.08 s instead of ~0.25 s.

--coverage: every spec entry of LLVM N is covered by a case (COVERS), every
COVERS name is a spec function, and the cases with CHECK lines, those with
COVERS lines and the program's own list (SPEC_CASES --list) are the same.

--list: the cases, one per line (tests/CMakeLists.txt adds spec.cases.NAME
for each); with --spec and --llvm-major, only those covering an entry of
that LLVM (a case of another version's entries is not run).
"""
import argparse
import difflib
import os
import sys

from ownsan_testing import (EXIT_SKIP, Checker, case_directives,
                            check_prefix_cases, clean_env, filecheck,
                            list_cases, report_headers, run)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = [os.path.join(HERE, "spec_cases.c"),
           os.path.join(HERE, "orc_cases.inc")]
RUN_OPTIONS = "symbolize=0"


def load_spec(path):
    """The entries of the spec, parsed by the wrapper generator's spec
    module (tools/wrapgen/spec.py)."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
    from wrapgen.spec import parse_spec_file
    return parse_spec_file(path)


def read_cases():
    """({case: its source}, {case: [spec function, ...]}, problems): the
    cases with CHECK lines and the functions their COVERS lines name."""
    source_of, covers, problems = {}, {}, []
    for source in SOURCES:
        for name in check_prefix_cases(source):
            if name in source_of:
                problems.append(f"CHECK-{name} lines in {source} and in "
                                f"{source_of[name]}")
            source_of[name] = source
        for name, texts in case_directives(source, "COVERS").items():
            if name in covers:
                problems.append(f"COVERS-{name} in more than one place")
            covers[name] = " ".join(texts).split()
    return source_of, covers, problems


def applicable_cases(covers, entries, major):
    """The cases that cover an entry of LLVM `major`, in order."""
    functions = {e.function for e in entries if e.applies_to(major)}
    return [name for name, fns in covers.items()
            if any(f in functions for f in fns)]


def check_coverage(c, a):
    source_of, covers, problems = read_cases()
    for p in problems:
        c.check(False, p)
    listed = run([a.program, "--list"]).out.split()
    for what, names in (("COVERS line", covers), ("CASE()", listed)):
        c.equal(sorted(set(names) - set(source_of)), [],
                f"every case with a {what} has CHECK lines")
        c.equal(sorted(set(source_of) - set(names)), [],
                f"every case with CHECK lines has a {what}")
    entries = load_spec(a.spec)
    spec_functions = {e.function for e in entries}
    stale = sorted({f"{f} ({name})" for name, fns in covers.items()
                    for f in fns if f not in spec_functions})
    c.equal(stale, [], "every function a COVERS line names is in the spec")
    covered = {f for fns in covers.values() for f in fns}
    applicable = [e for e in entries if e.applies_to(a.llvm_major)]
    missing = [f"{e.function} ({e.path}:{e.line_no})" for e in applicable
               if e.function not in covered]
    c.equal(missing, [], f"every one of the {len(applicable)} spec entries "
            f"of LLVM {a.llvm_major} is covered by a case")


def check_ok(c, a, names, env):
    """The correct uses of `names`, in one process, with ownsan and
    without: True if they run alike, exit 0 and give no report."""
    what = names[0] if len(names) == 1 else f"{len(names)} cases"
    cmd = [a.program, "--ok"] + names
    reference = run(cmd, env=env, timeout=a.timeout)
    ok = run([a.ownsan, "run", "--"] + cmd, env=env, timeout=a.timeout)
    results = [
        c.check(ok.returncode == 0 and reference.returncode == 0,
                f"{what} ok: exit 0, with ownsan and without "
                f"({ok.status()}, {reference.status()})", ok),
        c.check(ok.stdout == reference.stdout,
                f"{what} ok: the stdout of the run without ownsan",
                "".join(difflib.unified_diff(
                    reference.out.splitlines(True), ok.out.splitlines(True),
                    "without ownsan", "with ownsan"))),
        c.check("OwnSan" not in ok.err, f'{what} ok: no "OwnSan" on stderr',
                ok)]
    return all(results)


def check_ok_runs(c, a):
    _, covers, _ = read_cases()
    names = applicable_cases(covers, load_spec(a.spec), a.llvm_major)
    env = clean_env(OWNSAN_OPTIONS=RUN_OPTIONS)
    if not check_ok(c, a, names, env):
        print("--- each case alone:")
        for name in names:
            check_ok(c, a, [name], env)
    return c.finish()


def check_case(c, a, source):
    env = clean_env(OWNSAN_OPTIONS=RUN_OPTIONS)
    bad = run([a.ownsan, "run", "--", a.program, a.case, "bad"], env=env,
              timeout=a.timeout)
    if bad.returncode == EXIT_SKIP:
        why = bad.out.strip().splitlines()[-1:] or ["exit 77"]
        print(f"SKIP: {why[0]}")
        return EXIT_SKIP
    headers = report_headers(bad.err)
    c.check(bad.returncode not in (0, None) and len(headers) == 1,
            f"{a.case} bad: stopped with one report ({bad.status()}, "
            f"{len(headers)} reports)", bad)
    fc = filecheck(bad.err, source, a.case, {"PID": bad.pid})
    c.check(fc.returncode == 0,
            f"{a.case} bad: FileCheck {os.path.basename(source)} "
            f"--check-prefix=CHECK-{a.case}",
            None if fc.returncode == 0 else
            bad.describe(6000) + "\n--- FileCheck:\n" + fc.err)
    return c.finish()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true",
                    help="print the cases (of --llvm-major if given)")
    ap.add_argument("--coverage", action="store_true",
                    help="check that the cases cover the spec")
    ap.add_argument("--ok-runs", action="store_true",
                    help="run every case's correct use, with ownsan and "
                    "without")
    ap.add_argument("--case")
    ap.add_argument("--ownsan")
    ap.add_argument("--program", help="spec_cases.c built")
    ap.add_argument("--spec", help="src/profiles/llvm_c/ownership.spec")
    ap.add_argument("--llvm-major", type=int)
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds allowed for each run")
    a = ap.parse_args(argv)
    if a.list:
        source_of, covers, _ = read_cases()
        if a.spec and a.llvm_major:
            names = applicable_cases(covers, load_spec(a.spec),
                                     a.llvm_major)
        else:
            names = list(source_of)
        list_cases(names)
        return 0
    if a.coverage:
        if not (a.program and a.spec and a.llvm_major):
            ap.error("--coverage needs --program, --spec and --llvm-major")
        c = Checker(f"spec.case_coverage (LLVM {a.llvm_major})")
        check_coverage(c, a)
        return c.finish()
    if a.ok_runs:
        if not (a.ownsan and a.program and a.spec and a.llvm_major):
            ap.error("--ok-runs needs --ownsan, --program, --spec and "
                     "--llvm-major")
        return check_ok_runs(Checker(f"spec.ok_runs (LLVM {a.llvm_major})"),
                             a)
    if not (a.case and a.ownsan and a.program):
        ap.error("--case, --ownsan and --program are required")
    source_of, _, _ = read_cases()
    if a.case not in source_of:
        ap.error(f"no CHECK-{a.case} lines in {', '.join(SOURCES)}")
    return check_case(Checker(f"spec.cases.{a.case}"), a, source_of[a.case])


if __name__ == "__main__":
    sys.exit(main())
