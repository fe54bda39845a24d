"""Helpers shared by the tests/options, tests/pyapi and tests/pytest_suite
drivers: running a program under `ownsan run`, a checker that counts named
assertions, and parsers for the text reports, the exit summary and the leak
report (the formats docs/reports.md describes).

Each driver makes a Checker, records one named assertion per check, and ends
with `sys.exit(checker.finish())`, which prints the final "N passed, M
failed" line and returns non-zero when something failed.
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "seeded"))
from check_report import exit_status_text  # noqa: E402  (path set up above)

DEFAULT_TIMEOUT = 300  # seconds per run


# --- Running programs ---------------------------------------------------------

@dataclass
class Run:
    """One finished (or timed-out) child process."""

    cmd: List[str]
    pid: int
    returncode: Optional[int]  # None: timed out
    out: str
    err: str

    def status(self):
        return exit_status_text(self.returncode)

    def describe(self):
        return (f"command: {' '.join(self.cmd)}\n"
                f"status: {self.status()} (pid {self.pid})\n"
                f"--- stdout:\n{self.out}--- stderr:\n{self.err}--- end")


def clean_env(**overrides):
    """os.environ without OWNSAN_*/LD_PRELOAD/PYTEST_* variables, plus
    `overrides` (a value of None removes the variable)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OWNSAN_OPTIONS", "OWNSAN_TEST_NAME",
                                "PYTEST_")) and k != "LD_PRELOAD"}
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(cmd, env=None, before_exec=None, cwd=None, timeout=DEFAULT_TIMEOUT):
    """Runs `cmd` and returns a Run.

    With `before_exec`, the command is started held by a shell that waits
    for a line on stdin; before_exec(pid) is called with the pid the program
    will have (the shell execs it, and `ownsan run` execs the program), and
    only then is the program released. That lets a test prepare files named
    after the pid (log_path's PATH.PID) before the program runs.
    """
    cmd = list(cmd)
    if before_exec is None:
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    else:
        p = subprocess.Popen(
            ["/bin/sh", "-c", 'read _line; exec "$@" </dev/null', "sh"] + cmd,
            env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        try:
            before_exec(p.pid)
        finally:
            p.stdin.write(b"go\n")
            p.stdin.close()
            p.stdin = None
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = None
    return Run(cmd, p.pid, rc, out.decode(errors="replace"),
               err.decode(errors="replace"))


# --- Assertions ---------------------------------------------------------------

class Checker:
    """Counts named assertions; prints each failure with its evidence."""

    def __init__(self, title):
        self.title = title
        self.passed = 0
        self.failed = 0

    def check(self, cond, what, evidence=None):
        if cond:
            self.passed += 1
            print(f"ok    {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}")
            if evidence is not None:
                text = (evidence.describe() if isinstance(evidence, Run)
                        else str(evidence))
                print("      " + text.replace("\n", "\n      "))
        return bool(cond)

    def equal(self, got, want, what, evidence=None):
        ok = got == want
        detail = f"expected {want!r}, got {got!r}"
        if evidence is not None:
            ev = evidence.describe() if isinstance(evidence, Run) else evidence
            detail += "\n" + str(ev)
        return self.check(ok, what, None if ok else detail)

    def finish(self):
        print(f"{self.title}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed or not self.passed else 0


# --- JSON Lines reports ------------------------------------------------------------

def parse_json_lines(c, text, what, r=None):
    """The objects of `text`, one JSON object per line (report_format=json
    on stderr or in a log file); one check of `c` that every line is one."""
    objs, bad = [], []
    for line in text.splitlines():
        try:
            objs.append(json.loads(line))
        except ValueError:
            bad.append(line)
    c.equal(bad[:5], [], f"{what}: every line is one JSON object", r)
    return objs


def run_ownsan_report(c, ownsan, logdir, out):
    """`ownsan report --sarif --junit --html` on the JSON logs in `logdir`,
    writing into the directory `out`. Returns (the Run, the SARIF results,
    the JUnit testcase elements, the HTML file names); a SARIF or JUnit file
    that cannot be read is a failed check of `c`."""
    sarif, junit, html = (os.path.join(out, "ownsan.sarif"),
                          os.path.join(out, "ownsan-junit.xml"),
                          os.path.join(out, "html"))
    r = run([ownsan, "report", "--sarif", sarif, "--junit", junit, "--html",
             html, logdir], env=clean_env())
    try:
        with open(sarif, encoding="utf-8") as fh:
            results = json.load(fh)["runs"][0]["results"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        c.check(False, f"ownsan report: SARIF readable ({e})")
        results = []
    try:
        cases = list(ET.parse(junit).getroot().iter("testcase"))
    except (OSError, ET.ParseError) as e:
        c.check(False, f"ownsan report: JUnit parses with xml.etree ({e})")
        cases = []
    pages = sorted(os.listdir(html)) if os.path.isdir(html) else []
    return r, results, cases, pages


# --- Source markers -------------------------------------------------------------

def marker_line(path, marker):
    """The 1-based line of `path` that contains `marker` (exactly one)."""
    with open(path, encoding="utf-8") as f:
        hits = [i for i, line in enumerate(f, 1) if marker in line]
    if len(hits) != 1:
        raise RuntimeError(f"{path}: marker {marker!r} found {len(hits)} times")
    return hits[0]


# --- Text reports ---------------------------------------------------------------

HEADER_RE = re.compile(
    r"==(?P<pid>\d+)==ERROR: OwnSan: (?P<kind>[a-z-]+) on (?P<handle_type>\w+) "
    r"(?P<handle>0x[0-9a-f]+) \((?P<label>.*)\)")
PY_FRAME_RE = re.compile(
    r"    #(?P<n>\d+) (?P<file>.+):(?P<line>\d+) in (?P<function>.+) \(python\)")
NATIVE_FRAME_RE = re.compile(
    r"    #(?P<n>\d+) (?P<pc>0x[0-9a-f]+) in (?P<function>\S+) "
    r"(?:\((?P<module>.+)\+0x(?P<offset>[0-9a-f]+)\)"
    r"|(?P<file>[^\s:]+):(?P<line>\d+)(?::(?P<column>\d+))?)")
NO_STACK = "    <no stack recorded>"


@dataclass
class Frame:
    n: int
    python: bool
    function: str
    file: Optional[str] = None
    line: Optional[int] = None
    module: Optional[str] = None
    pc: Optional[str] = None

    def where(self):
        return f"{self.file}:{self.line} in {self.function}"


@dataclass
class Section:
    heading: str  # the line without its two-space indent
    frames: List[Frame] = field(default_factory=list)
    no_stack: bool = False  # "<no stack recorded>"

    def functions(self):
        return [f.function for f in self.frames]


@dataclass
class TextReport:
    pid: int
    kind: str
    handle_type: str
    handle: str
    label: str
    lines: List[str]
    sections: Dict[str, Section] = field(default_factory=dict)
    other: List[str] = field(default_factory=list)  # note, identity, ...
    chain: Optional[str] = None
    test: Optional[str] = None
    summary: Optional[str] = None  # after "SUMMARY: OwnSan: "

    @property
    def text(self):
        return "\n".join(self.lines) + "\n"

    def stack(self, name):
        s = self.sections.get(name)
        return s.frames if s else []


def parse_frame(line):
    m = PY_FRAME_RE.fullmatch(line)
    if m:
        return Frame(int(m["n"]), True, m["function"], m["file"],
                     int(m["line"]))
    m = NATIVE_FRAME_RE.fullmatch(line)
    if m:
        return Frame(int(m["n"]), False, m["function"], m["file"],
                     int(m["line"]) if m["line"] else None, m["module"],
                     m["pc"])
    return None


class FormatError(Exception):
    pass


def parse_text_reports(text):
    """Every "==PID==ERROR: OwnSan: KIND on ..." report in `text`, through
    its "SUMMARY: OwnSan:" line. Raises FormatError on a line that does not
    follow the format."""
    reports = []
    cur = None
    section = None
    for line in text.splitlines():
        if cur is None:
            m = HEADER_RE.fullmatch(line)
            if m:
                cur = TextReport(int(m["pid"]), m["kind"], m["handle_type"],
                                 m["handle"], m["label"], [line])
                section = None
            continue
        cur.lines.append(line)
        if line.startswith("SUMMARY: OwnSan: "):
            cur.summary = line[len("SUMMARY: OwnSan: "):]
            reports.append(cur)
            cur = None
            continue
        if line.startswith("    "):
            if section is None:
                raise FormatError(f"frame outside a stack section: {line!r}")
            if line == NO_STACK:
                section.no_stack = True
                continue
            f = parse_frame(line)
            if f is None:
                raise FormatError(f"unparsable frame line: {line!r}")
            if f.n != len(section.frames):
                raise FormatError(f"frame numbers out of order: {line!r}")
            section.frames.append(f)
            continue
        if not line.startswith("  "):
            raise FormatError(f"unexpected line inside a report: {line!r}")
        body = line[2:]
        section = None
        name = None
        if body.startswith("passed as argument "):
            name = "use"
        elif body.startswith("freed ") or body.startswith("its insertion point"):
            name = "free"
        elif body.startswith("created by "):
            name = "create"
        elif body.startswith("identity: ") and body.endswith(":"):
            name = "related_create"
        elif body.startswith("ownership chain"):
            cur.chain = body.split(": ", 1)[1]
        elif body.startswith("while running test "):
            cur.test = body[len("while running test "):]
        else:
            cur.other.append(body)
        if name:
            if not body.endswith(":"):
                raise FormatError(f"stack heading without ':': {line!r}")
            section = Section(body[:-1])
            cur.sections[name] = section
    if cur is not None:
        raise FormatError("report without a SUMMARY line")
    return reports


EXIT_HEAD_RE = re.compile(r"==(\d+)==OwnSan: (\d+) distinct problem\(s\):")
EXIT_LINE_RE = re.compile(r"  (\d+)x (.+)")
EXIT_TOTAL_RE = re.compile(
    r"SUMMARY: OwnSan: (\d+) distinct problem\(s\), (\d+) occurrence\(s\)")
SUPP_HEAD_RE = re.compile(r"==(\d+)==OwnSan: suppressions used:")
SUPP_LINE_RE = re.compile(r"  (\d+) ((?:fun|src|lib):.+)")


@dataclass
class ExitSummary:
    pid: int
    distinct: int
    problems: List[tuple]  # (count, summary text)
    total_distinct: Optional[int] = None
    total_occurrences: Optional[int] = None


def parse_exit_summaries(text):
    """The "==PID==OwnSan: N distinct problem(s):" blocks of `text`."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = EXIT_HEAD_RE.fullmatch(lines[i])
        i += 1
        if not m:
            continue
        s = ExitSummary(int(m[1]), int(m[2]), [])
        while i < len(lines):
            lm = EXIT_LINE_RE.fullmatch(lines[i])
            if not lm:
                break
            s.problems.append((int(lm[1]), lm[2]))
            i += 1
        if i < len(lines):
            tm = EXIT_TOTAL_RE.fullmatch(lines[i])
            if tm:
                s.total_distinct, s.total_occurrences = int(tm[1]), int(tm[2])
                i += 1
        out.append(s)
    return out


def parse_suppressions_used(text):
    """[(pid, [(count, "type:pattern"), ...]), ...] from "suppressions used"
    blocks."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = SUPP_HEAD_RE.fullmatch(lines[i])
        i += 1
        if not m:
            continue
        rules = []
        while i < len(lines):
            lm = SUPP_LINE_RE.fullmatch(lines[i])
            if not lm:
                break
            rules.append((int(lm[1]), lm[2]))
            i += 1
        out.append((int(m[1]), rules))
    return out


LEAK_HEAD_RE = re.compile(
    r"==(\d+)==ERROR: OwnSan: detected leaks of owned LLVM objects")
LEAK_GROUP_RE = re.compile(
    r"  (?P<count>\d+) (?P<handle_type>LLVM\w+Ref)s? \((?P<noun>[a-z ]+) "
    r"(?P<example>0x[0-9a-f]+)(?P<more>, \.\.\.)?\) created by (?P<fn>\w+) "
    r"on thread T(?P<thread>\d+), never disposed:")
LEAK_TOTAL_RE = re.compile(
    r"SUMMARY: OwnSan: (\d+) leaked object\(s\) from (\d+) allocation site\(s\)")


@dataclass
class LeakGroup:
    count: int
    handle_type: str
    noun: str
    example: str
    more: bool
    fn: str
    frames: List[Frame] = field(default_factory=list)


@dataclass
class LeakReport:
    pid: int
    groups: List[LeakGroup]
    leaked: Optional[int] = None
    sites: Optional[int] = None


def parse_leak_reports(text):
    out = []
    cur = None
    for line in text.splitlines():
        if cur is None:
            m = LEAK_HEAD_RE.fullmatch(line)
            if m:
                cur = LeakReport(int(m[1]), [])
            continue
        g = LEAK_GROUP_RE.fullmatch(line)
        if g:
            cur.groups.append(LeakGroup(int(g["count"]), g["handle_type"],
                                        g["noun"], g["example"],
                                        bool(g["more"]), g["fn"]))
            continue
        if line.startswith("    ") and cur.groups:
            f = parse_frame(line)
            if f is None:
                raise FormatError(f"unparsable leak frame: {line!r}")
            cur.groups[-1].frames.append(f)
            continue
        t = LEAK_TOTAL_RE.fullmatch(line)
        if t:
            cur.leaked, cur.sites = int(t[1]), int(t[2])
            out.append(cur)
            cur = None
            continue
        raise FormatError(f"unexpected line in a leak report: {line!r}")
    if cur is not None:
        raise FormatError("leak report without a SUMMARY line")
    return out


def ownsan_lines(text):
    """Lines of `text` that mention OwnSan."""
    return [l for l in text.splitlines() if "OwnSan" in l]
