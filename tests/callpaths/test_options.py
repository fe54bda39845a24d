#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""OWNSAN_OPTIONS: malformed values stop the program, help=1, exit codes.

    test_options.py --ownsan PATH --program DL_CLIENT --libllvm LIBLLVM
                    --flags-doc docs/flags.md

  * A malformed OWNSAN_OPTIONS makes `ownsan run -- /bin/echo hi` exit 1
    before the program runs (empty stdout), with exactly one stderr line
    "==PID==ERROR: OwnSan: ..." (PID: the child's) naming the bad item.
  * help=1 prints the option table (every row of docs/flags.md) and exits 0
    without running the program.
  * A report ends the process with abort() by default, with exit status 1
    under abort_on_error=0, and with N under abort_on_error=0:exitcode=N
    (':' or spaces between items). DL_CLIENT is tests/callpaths/dl_client.c,
    run in its buggy dlsym mode.
"""

import argparse
import re
import signal
import sys

from ownsan_testing import (Checker, clean_env, ownsan_error_line_re,
                            report_headers, run)

# (OWNSAN_OPTIONS, text the error line must contain)
MALFORMED = [
    ("no_such_option=1", "no_such_option"),   # unknown key
    ("exitcode=abc", "exitcode"),             # not an int
    ("abort_on_error", "abort_on_error"),     # no '='
    ("abort_on_error=yes", "abort_on_error"),  # not a bool
    ("exitcode=", "exitcode"),                # empty value for an int
    ("=1", "=1"),                             # no key
    ("malloc_context_size=999", "malloc_context_size"),  # out of range
    ("verbosity=0:bogus_after_valid=1", "bogus_after_valid"),
]

MISUSE_LINE = "ask_function_name: LLVMGetValueName2(@dl_answer)"


def table_rows(flags_doc):
    """The option rows ("| `name` | ...") of docs/flags.md."""
    with open(flags_doc, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f
                if re.match(r"\| `\w+` \|", line)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--program", required=True, help="the built dl_client")
    p.add_argument("--libllvm", required=True)
    p.add_argument("--flags-doc", required=True)
    args = p.parse_args(argv)
    c = Checker("OWNSAN_OPTIONS")
    echo = [args.ownsan, "run", "--", "/bin/echo", "hi"]

    # --- Malformed options ----------------------------------------------------
    for options, names in MALFORMED:
        what = f"OWNSAN_OPTIONS={options!r}"
        r = run(echo, env=clean_env(OWNSAN_OPTIONS=options))
        c.equal(r.returncode, 1, f"{what}: exits 1")
        c.equal(r.out, "", f"{what}: the program does not run (empty stdout)")
        err = r.err.splitlines()
        c.check(len(err) == 1 and ownsan_error_line_re(r.pid).fullmatch(err[0]),
                f"{what}: stderr is exactly one line "
                f"'=={r.pid}==ERROR: OwnSan: ...' (the child's pid)", r)
        c.check(names in r.err, f"{what}: the error names {names!r}", r)

    for options in ("", ":", "  "):
        what = f"OWNSAN_OPTIONS={options!r}"
        r = run(echo, env=clean_env(OWNSAN_OPTIONS=options))
        c.check(r.returncode == 0 and r.out == "hi\n" and r.err == "",
                f"{what} (no items): the program runs normally", r)

    # --- help=1 -------------------------------------------------------------
    r = run(echo, env=clean_env(OWNSAN_OPTIONS="help=1"))
    c.equal(r.returncode, 0, "OWNSAN_OPTIONS=help=1: exits 0")
    c.check("hi" not in r.out.splitlines(),
            "OWNSAN_OPTIONS=help=1: the program does not run", r)
    output = r.out + r.err
    rows = table_rows(args.flags_doc)
    c.check(len(rows) >= 5, f"{args.flags_doc} has the option table",
            f"rows: {rows}")
    missing = [row for row in rows if row not in output.splitlines()]
    c.check(not missing,
            f"OWNSAN_OPTIONS=help=1: prints the option table (all "
            f"{len(rows)} rows of {args.flags_doc})",
            "rows not printed:\n" + "\n".join(missing) + "\n" + r.describe())

    # --- How a report ends the process ---------------------------------------
    buggy = [args.ownsan, "run", "--", args.program, args.libllvm, "dlsym"]
    endings = [
        (None, -signal.SIGABRT, "abort() (SIGABRT) by default"),
        ("abort_on_error=0", 1, "exit 1"),
        ("abort_on_error=0:exitcode=42", 42, "exit 42"),
        ("abort_on_error=0 exitcode=42", 42, "exit 42 (spaces between items)"),
        ("exitcode=42:abort_on_error=false", 42, "exit 42 (any order, false)"),
    ]
    for options, status, how in endings:
        what = (f"OWNSAN_OPTIONS={options!r}" if options is not None
                else "no OWNSAN_OPTIONS")
        r = run(buggy, env=clean_env(OWNSAN_OPTIONS=options))
        c.equal(r.returncode, status,
                f"{what}: the seeded bug's report ends the process with {how}")
        c.equal(len(report_headers(r.err)), 1,
                f"{what}: exactly one OwnSan report")
        out = r.out.splitlines()
        c.check(out and out[-1] == MISUSE_LINE,
                f"{what}: the process stopped at the misuse", r)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
