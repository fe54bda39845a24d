#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the lifetime cases (lifetime.c, unseen.cpp, cxx_freed.cpp) under
`ownsan run`.

For each case: the buggy run must stop with exactly one report that passes
the case's CHECK lines (FileCheck), and the --fixed run must exit 0 with no
report and the same stdout as without ownsan. `--repeat N` reruns the buggy
case N times (address-reuse cases must be reported every time).

Usage: check_lifetime.py --ownsan OWNSAN --program LIFETIME --unseen UNSEEN
           --cxx-freed CXX_FREED --case NAME [--repeat N] [--reuse-repeat N]
           [--linked]
       check_lifetime.py --list | --list-asan

Each case is written once, in its program: `// CHECK-CASE:` lines (the
report, checked with FileCheck) after the line that triggers it, and
optionally `// RUN-CASE:` (options, repeats, labels) and `// JSON-CASE:`
(the report_format=json report); see PROGRAMS below. The CHECK prefixes
are the case list that tests/CMakeLists.txt reads with `--list`.
"""
import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ownsan_testing import (EXIT_SKIP, Checker, case_directives,
                            check_prefix_cases, clean_env, filecheck,
                            json_reports, list_cases, report_headers, run)

HERE = os.path.dirname(os.path.abspath(__file__))

# The test programs, each with the directives of its cases next to the code
# that triggers their report:
#   // CHECK-CASE: ...   FileCheck lines: the report the buggy run must give
#                        (the CHECK prefixes are the list of cases);
#   // JSON-CASE: ...    FileCheck lines the report_format=json run must
#                        pass (optional);
#   // RUN-CASE: ...     how the case runs (optional): OWNSAN_OPTIONS=...,
#                        repeat=N (buggy runs; "reuse": --reuse-repeat, the
#                        address-reuse cases), may_skip (exit 77: not in this
#                        LLVM), and its ctest labels: sanitized (also runs
#                        in the sanitized builds), asan (also runs with the
#                        AddressSanitizer build of lifetime.c as
#                        lifetime.asan.CASE; ASan's allocator is the
#                        program's, its quarantine keeps freed addresses
#                        from reuse).
# Per program: its source, and the settings every case of it has.
PROGRAMS = {
    "lifetime": (os.path.join(HERE, "lifetime.c"), "", {}),
    "unseen": (os.path.join(HERE, "unseen.cpp"), "", {}),
    # Objects freed by C++ code, their memory then reused: glibc's
    # perturbation fills freed memory and tcache off makes the reuse
    # deterministic; report_leaks=1 in the fixed runs (they never leak).
    "cxx_freed": (os.path.join(HERE, "cxx_freed.cpp"),
                  "sanitized OWNSAN_OPTIONS=report_leaks=1",
                  {"MALLOC_PERTURB_": "165",
                   "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}),
}


@dataclass
class Case:
    program: str
    source: str
    options: str = ""
    env: Dict[str, str] = field(default_factory=dict)
    repeat: Optional[int] = 1  # None: --reuse-repeat
    may_skip: bool = False
    labels: List[str] = field(default_factory=list)  # sanitized, asan
    json: bool = False


def parse_run(case, words):
    for w in words:
        if w.startswith("OWNSAN_OPTIONS="):
            case.options = w[len("OWNSAN_OPTIONS="):]
        elif w == "repeat=reuse":
            case.repeat = None
        elif w.startswith("repeat="):
            case.repeat = int(w[len("repeat="):])
        elif w == "may_skip":
            case.may_skip = True
        elif w in ("sanitized", "asan"):
            case.labels.append(w)
        else:
            sys.exit(f"{case.source}: RUN: unknown setting {w!r}")


def read_cases():
    """{name: Case} from the directives of the three programs."""
    cases = {}
    for program, (source, defaults, env) in PROGRAMS.items():
        runs = case_directives(source, "RUN")
        jsons = case_directives(source, "JSON")
        names = check_prefix_cases(source)
        for name in set(runs) | set(jsons):
            if name not in names:
                sys.exit(f"{source}: RUN-{name}/JSON-{name} without "
                         f"CHECK-{name} lines")
        for name in names:
            if name in cases:
                sys.exit(f"{source}: case {name} is also in "
                         f"{cases[name].source}")
            case = Case(program, source, env=dict(env), json=name in jsons)
            parse_run(case, defaults.split() + " ".join(
                runs.get(name, [])).split())
            cases[name] = case
    return cases


def check_bug_run(c, case, name, bug, what):
    """The buggy run: stopped with one report that passes the case's CHECK
    lines (the pid of the run is [[PID]])."""
    headers = report_headers(bug.err)
    c.check(bug.returncode not in (0, None) and len(headers) == 1,
            f"{what}: stopped with one report ({bug.status()}, "
            f"{len(headers)} reports)", None if len(headers) == 1 else bug)
    fc = filecheck(bug.err, case.source, name, {"PID": bug.pid})
    c.check(fc.returncode == 0,
            f"{what}: FileCheck {os.path.basename(case.source)} "
            f"--check-prefix=CHECK-{name}",
            None if fc.returncode == 0 else
            bug.describe(6000) + "\n--- FileCheck:\n" + fc.err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true",
                    help="print the cases and their ctest labels")
    ap.add_argument("--list-asan", action="store_true",
                    help="print the cases that also run with lifetime_asan")
    ap.add_argument("--ownsan")
    ap.add_argument("--program", help="lifetime.c built")
    ap.add_argument("--unseen", help="unseen.cpp built")
    ap.add_argument("--cxx-freed", help="cxx_freed.cpp built")
    ap.add_argument("--case", choices=sorted(CASES))
    ap.add_argument("--linked", action="store_true",
                    help="the programs have the runtime linked in (link "
                    "mode, NAME_link); the run without ownsan is NAME_static "
                    "beside each (tests/link)")
    ap.add_argument("--repeat", type=int,
                    help="buggy runs of every case (default: the case's)")
    ap.add_argument("--reuse-repeat", type=int, default=20,
                    help="buggy runs of the address-reuse cases")
    a = ap.parse_args()
    if a.list:
        list_cases(CASES, {n: ["sanitized"] for n, k in CASES.items()
                           if "sanitized" in k.labels})
        return 0
    if a.list_asan:
        list_cases([n for n, k in CASES.items() if "asan" in k.labels])
        return 0
    if not (a.case and a.ownsan and a.program):
        ap.error("--case, --ownsan and --program are required")
    case = CASES[a.case]
    program = {"lifetime": a.program, "unseen": a.unseen,
               "cxx_freed": a.cxx_freed}[case.program]
    if not program:
        ap.error(f"--{case.program.replace('_', '-')} is required for "
                 f"{a.case}")
    repeat = a.repeat or case.repeat or a.reuse_repeat
    c = Checker(f"lifetime.{a.case}")
    plain_env = clean_env(**case.env)
    env = clean_env(OWNSAN_OPTIONS=case.options or None, **case.env)

    plain_program = program
    if a.linked:
        assert program.endswith("_link"), program
        plain_program = program[:-len("_link")] + "_static"
    plain = run([plain_program, a.case, "--fixed"], plain_env)
    if case.may_skip and plain.returncode == EXIT_SKIP:
        print(f"SKIP: {plain.out.strip()}")
        return EXIT_SKIP
    fixed = run([a.ownsan, "run", "--", program, a.case, "--fixed"], env)
    c.check(fixed.returncode == 0 and "OwnSan" not in fixed.err and
            fixed.out == plain.out,
            f"{a.case} --fixed: exit 0, no report, the stdout of the run "
            f"without ownsan ({'same' if fixed.out == plain.out else 'differs'})",
            fixed)
    for i in range(repeat):
        bug = run([a.ownsan, "run", "--", program, a.case], env)
        check_bug_run(c, case, a.case, bug, f"{a.case} run {i + 1}")
    if case.json:
        # The JSON report: one, passing the case's JSON lines.
        json_env = dict(env, OWNSAN_OPTIONS="report_format=json")
        bug = run([a.ownsan, "run", "--", program, a.case], json_env)
        reps = json_reports(bug.err)
        fc = filecheck(bug.err, case.source, a.case, {"PID": bug.pid},
                       directive="JSON")
        c.check(len(reps) == 1 and fc.returncode == 0,
                f"{a.case} json: one report ({len(reps)}), FileCheck "
                f"--check-prefix=JSON-{a.case}",
                None if fc.returncode == 0 and len(reps) == 1 else
                bug.describe(6000) + "\n--- FileCheck:\n" + fc.err)
    return c.finish()


CASES = read_cases()

if __name__ == "__main__":
    sys.exit(main())
