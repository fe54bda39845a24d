"""Shared helpers of the reliability tests (tests/threads, tests/fork,
tests/reentrancy, tests/hostile).

* run():            runs a command with a timeout, keeps its pid, stdout,
                    stderr and exit status; a timeout is a result, not an
                    exception (a deadlock is a test failure to describe).
* parse_reports():  splits stderr into OwnSan reports, each with its header
                    fields and every stack section ("passed as argument ...",
                    "at the same time thread ... is inside ...", "freed by
                    ...", "created by ...") with the functions of its frames.
* Checker:          prints one PASS/FAIL line per check and, at the end,
                    "N passed, M failed"; exit status 1 on any failure.

Used as `sys.path.insert(0, <tests/threads>)` + `import rel_common`.
"""

import argparse
import os
import re
import signal
import subprocess
from dataclasses import dataclass, field
from typing import List, Optional

HEADER_RE = re.compile(
    r"==(?P<pid>\d+)==ERROR: OwnSan: (?P<kind>\S+) on (?P<handle_type>\S+) "
    r"(?P<handle>0x[0-9a-fA-F]+) \((?P<label>.*)\)")
SECTION_RE = re.compile(r"  (?P<heading>\S.*):")
FRAME_RE = re.compile(r"    #(?P<index>\d+) (?P<rest>.*)")
NATIVE_FRAME_RE = re.compile(
    r"0x[0-9a-fA-F]+(?: in (?P<function>\S+))?(?: (?P<location>.*))?")
PYTHON_FRAME_RE = re.compile(r"(?P<location>.+:\d+) in (?P<function>\S+) "
                             r"\(python\)")
TSAN_RE = re.compile(r"WARNING: ThreadSanitizer|ERROR: AddressSanitizer|"
                     r"runtime error:|ERROR: LeakSanitizer|"
                     r"ThreadSanitizer: reported")


@dataclass
class Section:
    heading: str
    frames: List[str] = field(default_factory=list)  # function per frame
    raw: List[str] = field(default_factory=list)

    def functions(self):
        return [f for f in self.frames if f]


@dataclass
class Report:
    pid: int
    kind: str
    handle_type: str
    handle: int
    label: str
    text: str = ""
    notes: List[str] = field(default_factory=list)
    sections: List[Section] = field(default_factory=list)
    chain: Optional[str] = None
    summary: Optional[str] = None

    def section(self, prefix):
        for s in self.sections:
            if s.heading.startswith(prefix):
                return s
        return None


def parse_reports(text):
    """Every OwnSan report in `text`, in order."""
    reports = []
    rep = None
    sec = None
    for line in text.splitlines():
        m = HEADER_RE.match(line)
        if m:
            rep = Report(int(m["pid"]), m["kind"], m["handle_type"],
                         int(m["handle"], 16), m["label"], line + "\n")
            reports.append(rep)
            sec = None
            continue
        if rep is None:
            continue
        rep.text += line + "\n"
        if line.startswith("SUMMARY: OwnSan:"):
            rep.summary = line
            rep = sec = None
            continue
        fm = FRAME_RE.fullmatch(line)
        if fm and sec is not None:
            rest = fm["rest"]
            pm = PYTHON_FRAME_RE.fullmatch(rest)
            nm = NATIVE_FRAME_RE.fullmatch(rest)
            sec.frames.append(pm["function"] if pm else
                              (nm["function"] if nm else None))
            sec.raw.append(line)
            continue
        if line.startswith("    <") and sec is not None:
            sec.raw.append(line)
            continue
        if line.startswith("  ownership chain"):
            rep.chain = line.split(": ", 1)[1] if ": " in line else ""
            sec = None
            continue
        sm = SECTION_RE.fullmatch(line)
        if sm:
            sec = Section(sm["heading"])
            rep.sections.append(sec)
            continue
        sec = None
        if line.startswith("  "):
            rep.notes.append(line.strip())
    return reports


@dataclass
class Result:
    cmd: List[str]
    returncode: Optional[int]  # None: timed out (killed)
    out: str
    err: str
    pid: int
    timed_out: bool = False

    def describe(self):
        status = ("TIMED OUT (killed)" if self.timed_out else
                  f"exit status {self.returncode}")
        return (f"$ {' '.join(self.cmd)}\n{status}, pid {self.pid}\n"
                f"--- stdout ---\n{self.out[-6000:]}\n"
                f"--- stderr ---\n{self.err[-12000:]}")


def run(cmd, env=None, timeout=120, stdin=subprocess.DEVNULL):
    """Runs `cmd`; on timeout the whole process group is killed."""
    p = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        timed_out = True
    return Result(list(map(str, cmd)), None if timed_out else p.returncode,
                  out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                  p.pid, timed_out)


def clean_env(**more):
    """The environment without OwnSan/sanitizer options set by the caller."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OWNSAN_OPTIONS", "LD_PRELOAD")}
    env.update(more)
    return env


def sanitizer_errors(text):
    """Lines of sanitizer (not OwnSan) diagnostics in `text`."""
    return [l for l in text.splitlines() if TSAN_RE.search(l)]


class Checker:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=None):
        if ok:
            self.passed += 1
            print(f"PASS: {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL: {what}", flush=True)
            if detail is not None:
                text = detail.describe() if isinstance(detail, Result) else \
                    str(detail)
                print("  " + text.replace("\n", "\n  "), flush=True)
        return ok

    def equal(self, got, want, what, detail=None):
        extra = f"got {got!r}, want {want!r}"
        if detail is not None:
            extra += "\n" + (detail.describe() if isinstance(detail, Result)
                             else str(detail))
        return self.check(got == want, what, None if got == want else extra)

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed",
              flush=True)
        return 1 if self.failed else 0


def ownsan_lines(text):
    return [l for l in text.splitlines() if "OwnSan" in l]


def handles(text, prefix):
    """`PREFIX: ROLE = 0x...` lines the test programs print on stderr, as a
    dict role -> int."""
    out = {}
    for m in re.finditer(rf"^{re.escape(prefix)}: (\w+) = (?:0x)?([0-9a-fA-F]+)$",
                         text, re.M):
        out[m[1]] = int(m[2], 16)
    return out


def case_main(suite, namespace, timeout, add_arguments=None, label=None):
    """The main() of a check_*.py driver: runs the `case_NAME(c, a)`
    function of `namespace` named by --case, with --ownsan, --program,
    --timeout and what `add_arguments(parser)` adds; returns the exit
    status. `label(a)` may extend the checker's name."""
    cases = {name[len("case_"):]: fn for name, fn in namespace.items()
             if name.startswith("case_")}
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(cases))
    p.add_argument("--ownsan", required=True)
    p.add_argument("--program", required=True)
    p.add_argument("--timeout", type=float, default=timeout)
    if add_arguments:
        add_arguments(p)
    a = p.parse_args()
    c = Checker(f"{suite}.{a.case}" + (label(a) if label else ""))
    cases[a.case](c, a)
    return c.finish()
