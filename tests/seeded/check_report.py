#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs one seeded-bug case under ownsan and checks the report with FileCheck.

    check_report.py --lang c|python --case NAME --ownsan PATH_TO_ownsan \\
                    [--checks FILE] --program CMD...
    check_report.py --list [--checks FILE]
  Link mode (docs/link-mode.md): --linked says CMD has the runtime linked
  in, so runs 2 and 3 run it directly (no `ownsan run`: its own runtime
  checks it), and --reference CMD0 names the same program linked without
  ownsan for run 1, whose stderr run 3 must then match too, byte for byte
  but the pointers the program prints.

CMD is the test program (tests/seeded/c/seeded.c built, or
`/usr/bin/python3 tests/seeded/python/seeded.py`); the case name and
`--fixed` are appended to it. The report each case must give is written in
the program's source, as `CHECK-<case>:` lines next to the line that
triggers it (seeded.c: `// CHECK-...`, seeded.py: `# CHECK-...`); FILE
(default: that source) is the check file. `--list` prints the cases: the
CHECK prefixes of seeded.c, which seeded.py must have too, or with
`--checks FILE` those of FILE (another program in seeded.c's conventions:
tests/mlir/seeded/seeded_mlir.c).

A case may say how it runs under ownsan with a `RUN-<case>:` line of the
check file: `OWNSAN_OPTIONS=...` (e.g. report_leaks=1: the leak cases of
seeded_mlir.c, whose report comes at exit and has no use section) is then
the environment of runs 2 and 3.

Three runs:

  1. `CMD CASE --fixed` without ownsan: the reference stdout. Exit 77 means
     the case does not exist for this LLVM: print "SKIP: <reason>", exit 77.
  2. `ownsan run -- CMD CASE`: must exit non-zero with exactly one OwnSan
     report in the format of docs/reports.md, and its stderr must pass
     `FileCheck FILE --check-prefix=CHECK-CASE -DPID=<the child's pid>`.
     The program prints the pointers it made to stderr before the report
     ("seeded: context = 0x...", "seeded: subject = 0x..."), so the check
     lines bind them and the report must name the same ones. The process
     must have stopped at the misuse: the program announces each LLVM call
     on stdout before making it, so the last stdout line is the call of the
     report's use stack.
  3. `ownsan run -- CMD CASE --fixed`: must exit 0 with the stdout of run 1,
     byte for byte, and no "OwnSan" on stderr.

Exit status: 0 pass, 1 fail (the child's whole stderr and FileCheck's
diagnostics are printed), 77 skip.
"""

import argparse
import os
import re
import sys

from ownsan_testing import (EXIT_SKIP, ReportFormatError, Run,
                            case_directives, check_prefix_cases, clean_env,
                            filecheck, parse_reports, report_headers, run)

EXIT_PASS, EXIT_FAIL = 0, 1

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {
    "c": os.path.join(HERE, "c", "seeded.c"),
    "python": os.path.join(HERE, "python", "seeded.py"),
}


def list_cases(checks=None):
    """The cases: the CHECK prefixes of `checks` if given, else of seeded.c.
    seeded.py must check the same cases as seeded.c (its twin of each);
    raises SystemExit naming the difference otherwise, which fails CMake's
    configure step."""
    if checks:
        return check_prefix_cases(checks)
    cases = check_prefix_cases(SOURCES["c"])
    python = check_prefix_cases(SOURCES["python"])
    if set(cases) != set(python):
        sys.exit(f"{SOURCES['python']} and {SOURCES['c']} check different "
                 f"cases: only in seeded.c: {sorted(set(cases) - set(python))}"
                 f", only in seeded.py: {sorted(set(python) - set(cases))}")
    return cases


def case_env(checks, case):
    """The environment of the runs under ownsan: the OWNSAN_OPTIONS of the
    case's `RUN-<case>:` lines in `checks`, if any (None: clean_env())."""
    words = " ".join(case_directives(checks, "RUN").get(case, [])).split()
    options = []
    for w in words:
        if not w.startswith("OWNSAN_OPTIONS="):
            sys.exit(f"{checks}: RUN-{case}: unknown setting {w!r}")
        options.append(w[len("OWNSAN_OPTIONS="):])
    return clean_env(OWNSAN_OPTIONS=":".join(options)) if options else None


def check_bug_run(bug: Run, case, checks):
    """Problems with the buggy run under ownsan, and FileCheck's output."""
    if bug.returncode is None:
        return [f"{bug.status()}"], ""
    problems = []
    if bug.returncode == 0:
        problems.append("exited 0; a report must end the process (abort or "
                        "exit 1)")
    headers = report_headers(bug.err)
    if len(headers) != 1:
        problems.append(f"{len(headers)} OwnSan report headers; expected "
                        "exactly one")
    try:
        reports = parse_reports(bug.err)
    except ReportFormatError as e:
        problems.append(f"report format: {e}")
        reports = []
    # The process must stop at the misuse: the program announces each call
    # on stdout ("<step>: <LLVM function>(...)") before making it.
    if reports and reports[0].use is not None:
        use = reports[0].use
        lines = bug.out.splitlines()
        last = lines[-1] if lines else ""
        if not any(last.startswith(f"{fn}: {use.fields['call']}(")
                   for fn in use.functions()):
            problems.append(f"last stdout line is {last!r}; expected the "
                            f"misuse, {use.fields['call']} called from a "
                            f"function of the use stack {use.functions()}")
    fc = filecheck(bug.err, checks, case, {"PID": bug.pid})
    if fc.returncode != 0:
        problems.append(f"FileCheck {checks} --check-prefix=CHECK-{case} "
                        f"-DPID={bug.pid}: {fc.status()}")
    return problems, fc.err


def check_fixed_run(fixed: Run, reference: Run, same_stderr=False):
    problems = []
    # (Pointers the program prints differ from run to run: ASLR.)
    def masked(text):
        return re.sub(r"0x[0-9a-f]+", "0x...", text)
    if same_stderr and masked(fixed.err) != masked(reference.err):
        problems.append("stderr differs from the program linked without "
                        "ownsan")
    if fixed.returncode != 0:
        problems.append(f"{fixed.status()}; expected exit 0")
    if fixed.stdout != reference.stdout:
        problems.append("stdout differs from the run without ownsan")
    if "OwnSan" in fixed.err:
        problems.append('"OwnSan" on stderr')
    return problems


def skip_reason(r: Run):
    for line in reversed((r.out + r.err).splitlines()):
        if "not available" in line:
            return line.strip()
    return f"{' '.join(r.cmd)} exited 77"


def report_failure(title, r: Run, problems, reference=None):
    print(f"--- {title}: {' '.join(r.cmd)} ({r.status()}, pid {r.pid})")
    for p in problems:
        print(f"  * {p}")
    if reference is not None and r.stdout != reference.stdout:
        print("--- its stdout:")
        print(r.out, end="")
        print(f"--- stdout without ownsan ({' '.join(reference.cmd)}):")
        print(reference.out, end="")
    print("--- its stderr:")
    print(r.err, end="")
    print("--- end of stderr")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="print the case names and exit")
    parser.add_argument("--lang", choices=sorted(SOURCES))
    parser.add_argument("--case")
    parser.add_argument("--checks",
                        help="the check file (default: the program's source)")
    parser.add_argument("--ownsan", help="path of the ownsan command")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds allowed for each run (default 300)")
    parser.add_argument("--linked", action="store_true",
                        help="the program has the runtime linked in (link "
                        "mode): run it directly")
    parser.add_argument("--reference", nargs="+",
                        help="the program linked without ownsan (run 1)")
    parser.add_argument("--program", nargs=argparse.REMAINDER,
                        help="the test program's command line (last option)")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(list_cases(args.checks)))
        return EXIT_PASS
    if not (args.lang and args.case and args.ownsan and args.program):
        parser.error("--lang, --case, --ownsan and --program are required")

    checks = args.checks or SOURCES[args.lang]
    program = args.program
    ownsan = [] if args.linked else [args.ownsan, "run", "--"]
    title = f"{args.case} ({args.lang})"
    env = case_env(checks, args.case)

    reference = run((args.reference or program) +
                    [args.case, "--fixed"], timeout=args.timeout)
    if reference.returncode == EXIT_SKIP:
        print(f"SKIP: {skip_reason(reference)}")
        return EXIT_SKIP
    bug = run(ownsan + program + [args.case], env=env, timeout=args.timeout)
    if bug.returncode == EXIT_SKIP:
        print(f"SKIP: {skip_reason(bug)}")
        return EXIT_SKIP
    fixed = run(ownsan + program + [args.case, "--fixed"], env=env,
                timeout=args.timeout)

    failed = False
    if reference.returncode != 0:
        failed = True
        report_failure("fixed run without ownsan", reference,
                       [f"{reference.status()}; expected exit 0"])
    problems, filecheck_output = check_bug_run(bug, args.case, checks)
    if problems:
        failed = True
        report_failure("buggy run under ownsan", bug, problems)
        if filecheck_output:
            print(f"--- FileCheck (the CHECK-{args.case} lines of {checks}):")
            print(filecheck_output, end="")
    problems = check_fixed_run(fixed, reference,
                               same_stderr=bool(args.reference))
    if problems:
        failed = True
        report_failure("fixed run under ownsan", fixed, problems, reference)
    print(f"{'FAIL' if failed else 'PASS'}: {title}")
    return EXIT_FAIL if failed else EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
