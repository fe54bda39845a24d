#!/usr/bin/python3
"""Runs one seeded-bug case under ownsan and checks the report.

    check_report.py --lang c|python --case NAME --ownsan PATH_TO_ownsan \\
                    --program CMD...
    check_report.py --list

CMD is the test program (tests/seeded/c/seeded.c built, or
`/usr/bin/python3 tests/seeded/python/seeded.py`); the case name and
`--fixed` are appended to it. Three runs:

  1. `CMD CASE --fixed` without ownsan: the reference stdout. Exit 77 means
     the case does not exist for this LLVM: print "SKIP: <reason>", exit 77.
  2. `ownsan run -- CMD CASE`: must exit non-zero with exactly one OwnSan
     report, from the child's own pid, that matches expectations.py. The
     pointers in it must be the ones the program printed to stderr
     ("seeded: context = 0x...", "seeded: subject = 0x..."), and the process
     must have stopped at the misuse: the program announces each LLVM call on
     stdout before making it, so the misuse is the last stdout line.
  3. `ownsan run -- CMD CASE --fixed`: must exit 0 with the stdout of run 1,
     byte for byte, and no "OwnSan" on stderr.

Exit status: 0 pass, 1 fail (the child's whole stderr and the expectation are
printed), 77 skip.
"""

import argparse
import re
import sys

from expectations import EXPECTATIONS, Expectation
from ownsan_testing import (EXIT_SKIP, ReportFormatError, Run, handles,
                            parse_reports, report_headers, run)

EXIT_PASS, EXIT_FAIL = 0, 1

# "seeded: <role> = 0x..." lines that the test programs print to stderr.
HANDLE_PREFIX = "seeded"


# --- Comparing a report with its expectation ---------------------------------

def pointer_regex(value):
    """A regex for the pointer `value` as "0x" + hex, any case, any padding."""
    digits = f"{value:x}"
    return "0x0*" + "".join(f"[{d}{d.upper()}]" if d.isalpha() else d
                            for d in digits)


def expand(regex, handles, readable=False):
    """Fills the {CONTEXT} and {SUBJECT} placeholders of an expectation with
    the program's pointers: as regexes, or as plain hex when `readable`."""
    for placeholder, role in (("{CONTEXT}", "context"), ("{SUBJECT}", "subject")):
        value = handles.get(role)
        if value is None:
            text = "0x[0-9a-fA-F]+"
        else:
            text = hex(value) if readable else pointer_regex(value)
        regex = regex.replace(placeholder, text)
    return regex


def parse_handles(err):
    """The "seeded: <role> = 0x..." lines of a test program, as {role: int}."""
    return handles(err, HANDLE_PREFIX)


def check_report(report, exp: Expectation, lang, handles=None):
    """Returns a list of problems (empty when `report` is as expected)."""
    handles = handles or {}
    names = exp.stacks(lang)
    problems = []

    def expect_equal(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got!r}, expected {want!r}")

    def expect_match(what, got, regex):
        pattern = expand(regex, handles)
        if got is None or not re.fullmatch(pattern, got):
            problems.append(f"{what}: got {got!r}, expected to match "
                            f"/{pattern}/")

    def expect_stack(what, section, present, absent):
        if not section.frames:
            problems.append(f"{what} stack: no frames")
            return
        functions = section.functions()
        if present not in functions:
            problems.append(f"{what} stack: no frame in {present}; "
                            f"frames are in {functions}")
        for name in absent:
            if name and name in functions:
                problems.append(f"{what} stack: has a frame in {name}, "
                                "which belongs to another stack")

    # Header.
    expect_equal("kind", report.kind, exp.kind)
    expect_equal("handle type", report.handle_type, exp.handle_type)
    expect_match("label", report.label, exp.label)
    if "subject" in handles:
        expect_equal("handle", hex(report.address), hex(handles["subject"]))

    # Use.
    if report.use is None:
        problems.append('missing "passed as argument N of ..." section '
                        "(the use stack)")
    else:
        expect_equal("called function", report.use.fields["call"], exp.call)
        expect_equal("argument number", int(report.use.fields["arg"]), exp.arg)
        expect_equal("thread of the use", report.use.fields["thread"], "0")
        expect_stack("use", report.use, names.use, (names.free, names.create))

    # Free.
    if exp.free_call is None:
        if report.free is not None:
            problems.append("unexpected section (nothing freed the object "
                            f"before): {report.free.line.strip()!r}")
    elif report.free is None:
        problems.append('missing "freed by ..." section')
    else:
        fields = report.free.fields
        if fields["call"] is None:
            problems.append(f"free line: got {report.free.line.strip()!r}, "
                            f"expected \"freed by {exp.free_call}(...)\"")
        else:
            expect_equal("freeing call", fields["call"], exp.free_call)
            expect_match("label of what the freeing call freed",
                         fields["label"], exp.free_label)
        expect_equal("clause after the free line's thread", fields["clause"],
                     f"because it belonged to that {exp.because}"
                     if exp.because else None)
        expect_equal("thread of the free", fields["thread"], "0")
        expect_stack("free", report.free, names.free, (names.use, names.create))

    # Creation.
    if report.create is None:
        problems.append('missing "created by ..." section')
    else:
        expect_equal("creating call", report.create.fields["call"],
                     exp.create_call)
        expect_equal("thread of the creation", report.create.fields["thread"],
                     "0")
        expect_stack("creation", report.create, names.create,
                     (names.use, names.free))

    # Order of the stacks: use, free, creation.
    wanted_order = [s for s in ("use", "free", "create") if s in report.order]
    if report.order != wanted_order:
        problems.append(f"stack order: got {report.order}, expected "
                        f"{wanted_order}")

    # Chain, explanation, summary.
    if exp.chain is not None:
        if report.chain is None:
            problems.append('missing "ownership chain ..." line')
        else:
            expect_match("ownership chain", report.chain, exp.chain)
    if exp.note is not None and not any(
            re.fullmatch(expand(exp.note, handles), n) for n in report.notes):
        problems.append(f"no explanation line matching /{exp.note}/; "
                        f"extra lines are {report.notes}")
    if report.summary_fields is None:
        problems.append("missing SUMMARY line")
    else:
        expect_equal("SUMMARY kind", report.summary_fields["kind"], exp.kind)
        expect_equal("SUMMARY function", report.summary_fields["call"],
                     exp.call)
    return problems


# --- Running the program -----------------------------------------------------


def describe(exp: Expectation, lang, handles):
    """The expected report, in words, with the program's pointers filled in."""
    names = exp.stacks(lang)
    subject = handles.get("subject")
    lines = [
        f"  {exp.kind} on {exp.handle_type} "
        f"{hex(subject) if subject is not None else '0x...'} "
        f"(/{expand(exp.label, handles, True)}/)",
        f"  passed as argument {exp.arg} of {exp.call}: stack in {names.use}",
    ]
    if exp.free_call:
        because = (f", because it belonged to that {exp.because}"
                   if exp.because else " (no because clause)")
        lines.append(f"  freed by {exp.free_call}"
                     f"(/{expand(exp.free_label, handles, True)}/){because}:"
                     f" stack in {names.free}")
    else:
        lines.append("  no freed-by section")
    lines.append(f"  created by {exp.create_call}: stack in {names.create}")
    if exp.note:
        lines.append(f"  explanation /{expand(exp.note, handles, True)}/")
    if exp.chain:
        lines.append(f"  ownership chain /{expand(exp.chain, handles, True)}/")
    lines.append(f"  SUMMARY: OwnSan: {exp.kind} in {exp.call} ...")
    return "\n".join(lines)


def check_bug_run(bug: Run, exp: Expectation, lang):
    """Problems with the buggy run under ownsan."""
    if bug.returncode is None:
        return [f"{bug.status()}"]
    problems = []
    if bug.returncode == 0:
        problems.append("exited 0; a report must end the process (abort or "
                        "exit 1)")
    text = bug.err
    headers = report_headers(text)
    if len(headers) != 1:
        problems.append(f"{len(headers)} OwnSan report headers; expected "
                        "exactly one")
    if headers and headers[0] != bug.pid:
        problems.append(f"report pid {headers[0]} is not the child's pid "
                        f"{bug.pid}")
    try:
        reports = parse_reports(text)
    except ReportFormatError as e:
        return problems + [f"report format: {e}"]
    if len(reports) != len(headers):
        problems.append(f"{len(headers)} report headers, {len(reports)} of "
                        "them follow the report format")
    if reports:
        problems += check_report(reports[0], exp, lang, parse_handles(text))
    # The process must stop at the misuse: the program announces each call
    # on stdout before making it, so the misuse is the last line.
    use_line = f"{exp.stacks(lang).use}: {exp.call}("
    lines = bug.out.splitlines()
    if not lines or not lines[-1].startswith(use_line):
        problems.append(f"last stdout line is {lines[-1] if lines else ''!r}; "
                        f"expected the misuse {use_line}...)")
    return problems


def check_fixed_run(fixed: Run, reference: Run):
    problems = []
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
    parser.add_argument("--lang", choices=("c", "python"))
    parser.add_argument("--case", choices=sorted(EXPECTATIONS))
    parser.add_argument("--ownsan", help="path of the ownsan command")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds allowed for each run (default 300)")
    parser.add_argument("--program", nargs=argparse.REMAINDER,
                        help="the test program's command line (last option)")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(EXPECTATIONS))
        return EXIT_PASS
    if not (args.lang and args.case and args.ownsan and args.program):
        parser.error("--lang, --case, --ownsan and --program are required")

    exp = EXPECTATIONS[args.case]
    program = args.program
    ownsan = [args.ownsan, "run", "--"]
    title = f"{args.case} ({args.lang})"

    reference = run(program + [args.case, "--fixed"], timeout=args.timeout)
    if reference.returncode == EXIT_SKIP:
        print(f"SKIP: {skip_reason(reference)}")
        return EXIT_SKIP
    bug = run(ownsan + program + [args.case], timeout=args.timeout)
    if bug.returncode == EXIT_SKIP:
        print(f"SKIP: {skip_reason(bug)}")
        return EXIT_SKIP
    fixed = run(ownsan + program + [args.case, "--fixed"],
                timeout=args.timeout)

    failed = False
    if reference.returncode != 0:
        failed = True
        report_failure("fixed run without ownsan", reference,
                       [f"{reference.status()}; expected exit 0"])
    problems = check_bug_run(bug, exp, args.lang)
    if problems:
        failed = True
        report_failure("buggy run under ownsan", bug, problems)
        print(f"--- expected report for {title}:")
        print(describe(exp, args.lang, parse_handles(bug.err)))
    problems = check_fixed_run(fixed, reference)
    if problems:
        failed = True
        report_failure("fixed run under ownsan", fixed, problems, reference)
    print(f"{'FAIL' if failed else 'PASS'}: {title}")
    return EXIT_FAIL if failed else EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
