"""Helpers shared by the tests/callpaths drivers.

Each driver makes a Checker, records one named assertion per check (each
with a message saying what was expected), and ends with
`sys.exit(checker.finish())`, which prints the final "N passed, M failed"
line and returns non-zero when something failed.

Reports are parsed with tests/seeded/check_report.py's parser, the one the
seeded tests use, so both test suites read the same report format.
"""

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "seeded"))
from check_report import (  # noqa: E402  (path set up above)
    HEADER_START_RE, ReportFormatError, exit_status_text, parse_reports)

__all__ = ["Checker", "Run", "run", "clean_env", "report_headers",
           "parse_reports", "ReportFormatError", "ownsan_error_line_re"]

DEFAULT_TIMEOUT = 300  # seconds per run; libLLVM loads in well under that


@dataclass
class Run:
    """One finished (or timed-out) child process."""

    cmd: List[str]
    pid: int
    returncode: Optional[int]  # None: timed out
    stdout: bytes
    stderr: bytes

    @property
    def out(self):
        return self.stdout.decode(errors="replace")

    @property
    def err(self):
        return self.stderr.decode(errors="replace")

    def status(self):
        return exit_status_text(self.returncode)

    def describe(self):
        """The command, its status and its output, for a failure message."""
        return (f"command: {' '.join(self.cmd)}\n"
                f"status: {self.status()} (pid {self.pid})\n"
                f"--- stdout:\n{self.out}--- stderr:\n{self.err}--- end")


def clean_env(**overrides):
    """The test's environment without anything that would change how ownsan
    or the child behaves (OWNSAN_OPTIONS, LD_PRELOAD), plus `overrides`
    (a value of None removes the variable)."""
    env = dict(os.environ)
    for name in ("OWNSAN_OPTIONS", "LD_PRELOAD"):
        env.pop(name, None)
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(cmd, env=None, timeout=DEFAULT_TIMEOUT, preexec_fn=None):
    """Runs `cmd` with stdin closed and stdout/stderr captured
    (`preexec_fn`: as subprocess's, run in the child before the exec)."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=clean_env() if env is None else env,
                            preexec_fn=preexec_fn)
    try:
        out, err = proc.communicate(timeout=timeout)
        return Run(list(cmd), proc.pid, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return Run(list(cmd), proc.pid, None, out, err)


def report_headers(text):
    """The pids of the "==PID==ERROR: OwnSan:" lines in `text`, in order."""
    return [int(m.group(1)) for m in
            (HEADER_START_RE.match(line) for line in text.splitlines()) if m]


def ownsan_error_line_re(pid):
    """A whole-line regex for a one-line runtime error of process `pid`."""
    return re.compile(rf"=={pid}==ERROR: OwnSan: .+")


class Checker:
    """Counts named assertions and prints each result as it is made."""

    def __init__(self, title):
        self.title = title
        self.passed = 0
        self.failed = 0
        self.known_bugs = 0
        print(f"=== {title}")

    def check(self, ok, expected, details=None):
        """Records one assertion. `expected` says what should hold; on a
        failure `details` (a string, or a Run to show) is printed below."""
        if ok:
            self.passed += 1
            print(f"  ok    {expected}")
        else:
            self.failed += 1
            print(f"  FAIL  expected: {expected}")
            if isinstance(details, Run):
                details = details.describe()
            if details:
                for line in str(details).splitlines():
                    print(f"        | {line}")
        return ok

    def equal(self, got, want, expected):
        """check(got == want), showing both on a failure."""
        return self.check(got == want, expected,
                          f"got:  {got!r}\nwant: {want!r}")

    def known_bug(self, ok, expected, bug):
        """An assertion that fails because of a known ownsan bug (`bug`
        describes it). While it fails it is reported as "xfail" and not
        counted; once it holds it counts as a failure, so the marker gets
        removed and the assertion becomes an ordinary one."""
        if ok:
            self.failed += 1
            print(f"  FAIL  expected to fail (known ownsan bug), but holds: "
                  f"{expected}")
            print(f"        | the bug seems fixed ({bug}); make this an "
                  "ordinary check")
        else:
            self.known_bugs += 1
            print(f"  xfail {expected}")
            print(f"        | known ownsan bug: {bug}")
        return ok

    def note(self, text):
        print(f"  note  {text}")

    def finish(self):
        if self.known_bugs:
            print(f"({self.known_bugs} known ownsan bug(s) not counted, "
                  "see the xfail lines)")
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1
