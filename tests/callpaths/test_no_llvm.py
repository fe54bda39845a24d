#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Processes that never load LLVM run under ownsan exactly as without it.

    test_no_llvm.py --ownsan PATH

Each command runs twice, directly and as `ownsan run -- COMMAND`; the exit
status (or the terminating signal), stdout and stderr must be the same.
Core dumps are disabled for the children (one of them kills itself with
SIGSEGV).
"""

import argparse
import resource
import sys

from ownsan_testing import Checker, run

PYTHON = "/usr/bin/python3"

# (what, command, expected returncode, expected stdout or None: not checked)
CASES = [
    ("/bin/echo", ["/bin/echo", "hello"], 0, b"hello\n"),
    ("python3", [PYTHON, "-c", "import sys; print(sum(range(10)))"], 0,
     b"45\n"),
    ("an exit status", ["sh", "-c", "exit 7"], 7, b""),
    ("exit status 255", ["sh", "-c", "exit 255"], 255, b""),
    ("a process killed by SIGSEGV", ["sh", "-c", "kill -SEGV $$"], -11, b""),
    ("a process killed by SIGTERM", ["sh", "-c", "kill -TERM $$"], -15, b""),
    ("child processes (they inherit the preload)",
     ["sh", "-c", "/bin/echo one; /bin/echo two | /bin/cat; exit 3"], 3,
     b"one\ntwo\n"),
    ("stdin", ["sh", "-c", "read line; echo \"read: $line\""], 0,
     b"read: a line of input\n"),
]
STDIN = b"a line of input\n"


def no_core_dumps():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_with_stdin(cmd):
    return run(cmd, input=STDIN, timeout=120, preexec_fn=no_core_dumps)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    args = p.parse_args(argv)
    c = Checker("processes that never load LLVM")

    for what, cmd, status, stdout in CASES:
        plain = run_with_stdin(cmd)
        under = run_with_stdin([args.ownsan, "run", "--"] + cmd)
        shown = f"{plain.describe()}\n{under.describe()}"
        c.check(plain.returncode == status,
                f"{what}: without ownsan, returncode {status}", plain)
        c.check(under.returncode == plain.returncode,
                f"{what}: under ownsan, the same termination "
                f"({plain.status()})", shown)
        if stdout is not None:
            c.check(plain.stdout == stdout,
                    f"{what}: without ownsan, stdout {stdout!r}", plain)
        c.check(under.stdout == plain.stdout,
                f"{what}: under ownsan, the same stdout", shown)
        c.check(under.stderr == plain.stderr,
                f"{what}: under ownsan, the same stderr (nothing from ownsan)",
                shown)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
