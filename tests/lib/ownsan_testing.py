# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The one helper library of ownsan's Python test drivers.

Every driver under tests/ imports this module (CMake puts tests/lib on each
test's PYTHONPATH; by hand: `PYTHONPATH=tests/lib python3 tests/...`). It has:

* running programs: `run()` -> `Run` (a timeout is a result, not an
  exception: a deadlock is a failure to describe), `clean_env()` (no
  OWNSAN_OPTIONS/LD_PRELOAD of the caller's), `exit_status_text()`;
* assertions: `Checker`, which prints one PASS/FAIL line per named check
  and, at the end, "TITLE: N passed, M failed" (exit status 1 on a failure
  or when nothing was checked);
* the report formats of docs/reports.md: `parse_reports()` (text reports),
  `parse_json_lines()` (report_format=json), `parse_exit_summaries()`,
  `parse_suppressions_used()`, `parse_leak_reports()`;
* case-based drivers: `case_main()` (runs `case_NAME` functions; `--list`
  prints the case names, which tests/CMakeLists.txt reads at configure time
  so that a case is written in one place), `filecheck()` (pipes a report
  into LLVM's FileCheck, for `// CHECK-<case>:` lines kept next to the C
  line that triggers the report);
* small helpers: `handles()` (the `PREFIX: ROLE = 0x...` lines the test
  programs print), `ownsan_lines()`, `sanitizer_errors()`, `marker_line()`.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, List, Optional

DEFAULT_TIMEOUT = 300  # seconds per run; libLLVM loads in well under that
EXIT_SKIP = 77  # ctest's SKIP_RETURN_CODE for the drivers that can skip


# --- Running programs -----------------------------------------------------------

def exit_status_text(returncode):
    """"exit N", "killed by SIGX", or "timed out" (returncode None)."""
    if returncode is None:
        return "timed out"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exit {returncode}"


@dataclass
class Run:
    """One finished (or timed-out, then killed) child process."""

    cmd: List[str]
    pid: int
    returncode: Optional[int]  # None: timed out (killed)
    stdout: bytes
    stderr: bytes

    @property
    def timed_out(self):
        return self.returncode is None

    @property
    def out(self):
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self):
        return self.stderr.decode("utf-8", "replace")

    @property
    def out_lines(self):
        return self.out.splitlines()

    @property
    def err_lines(self):
        return self.err.splitlines()

    def status(self):
        return exit_status_text(self.returncode)

    def describe(self, tail=12000):
        """The command, its status and its output, for a failure message
        (each stream cut to its last `tail` characters)."""
        return (f"command: {' '.join(self.cmd)}\n"
                f"status: {self.status()} (pid {self.pid})\n"
                f"--- stdout:\n{self.out[-tail:]}"
                f"--- stderr:\n{self.err[-tail:]}--- end")


def clean_env(**overrides):
    """os.environ without what would change how ownsan or the child behaves
    (OWNSAN_OPTIONS, OWNSAN_TEST_NAME, LD_PRELOAD, PYTEST_*), plus
    `overrides` (a value of None removes the variable)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OWNSAN_OPTIONS", "OWNSAN_TEST_NAME", "LD_PRELOAD")
           and not k.startswith("PYTEST_")}
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(cmd, env=None, timeout=DEFAULT_TIMEOUT, input=None, cwd=None,
        before_exec=None, preexec_fn=None):
    """Runs `cmd` with stdout and stderr captured and returns a Run.

    env:     the child's environment; None: clean_env().
    input:   bytes written to its stdin (default: stdin is /dev/null).
    timeout: seconds; then the whole process group is killed and the Run's
             returncode is None.
    before_exec: the command is started held by a shell that waits for a
             line on stdin; before_exec(pid) is called with the pid the
             program will have (the shell execs it, and `ownsan run` execs
             the program), and only then is the program released. That lets
             a test prepare files named after the pid (log_path's PATH.PID).
    preexec_fn: as subprocess's, run in the child before the exec.
    """
    cmd = [str(x) for x in cmd]
    env = clean_env() if env is None else env
    popen_cmd = cmd
    stdin = subprocess.DEVNULL
    if before_exec is not None:
        popen_cmd = ["/bin/sh", "-c", 'read _line; exec "$@" </dev/null',
                     "sh"] + cmd
        stdin = subprocess.PIPE
    elif input is not None:
        stdin = subprocess.PIPE
    p = subprocess.Popen(popen_cmd, env=env, cwd=cwd, stdin=stdin,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=preexec_fn, start_new_session=True)
    if before_exec is not None:
        try:
            before_exec(p.pid)
        finally:
            p.stdin.write(b"go\n")
            p.stdin.close()
            p.stdin = None
    try:
        out, err = p.communicate(input, timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        rc = None
    return Run(cmd, p.pid, rc, out, err)


# --- Assertions -----------------------------------------------------------------

def _detail_text(detail):
    return detail.describe() if hasattr(detail, "describe") else str(detail)


class Checker:
    """Counts named assertions and prints each as it is made.

    Each check says what should hold; on a failure its detail (a string, or
    a Run, shown with its command and output) is printed below it. finish()
    prints "TITLE: N passed, M failed" and returns the exit status: 1 when a
    check failed or when none was made."""

    def __init__(self, title):
        self.title = title
        self.passed = 0
        self.failed = 0
        self.known_bugs = 0
        print(f"=== {title}", flush=True)

    def check(self, ok, what, detail=None):
        if ok:
            self.passed += 1
            print(f"PASS: {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL: {what}", flush=True)
            if detail is not None:
                text = _detail_text(detail)
                print("      " + text.replace("\n", "\n      "), flush=True)
        return bool(ok)

    def equal(self, got, want, what, detail=None):
        """check(got == want), showing both on a failure."""
        ok = got == want
        extra = f"got {got!r}, want {want!r}"
        if detail is not None and not ok:
            extra += "\n" + _detail_text(detail)
        return self.check(ok, what, None if ok else extra)

    def known_bug(self, ok, what, bug):
        """An assertion that fails because of a known ownsan bug (`bug`
        describes it). While it fails it is reported as XFAIL and not
        counted; once it holds it counts as a failure, so the marker gets
        removed and the assertion becomes an ordinary one."""
        if ok:
            self.failed += 1
            print(f"FAIL: expected to fail (known ownsan bug), but holds: "
                  f"{what}\n      the bug seems fixed ({bug}); make this an "
                  "ordinary check", flush=True)
        else:
            self.known_bugs += 1
            print(f"XFAIL: {what}\n      known ownsan bug: {bug}", flush=True)
        return ok

    def note(self, text):
        print(f"NOTE: {text}", flush=True)

    def finish(self):
        if self.known_bugs:
            print(f"({self.known_bugs} known ownsan bug(s) not counted, see "
                  "the XFAIL lines)")
        print(f"{self.title}: {self.passed} passed, {self.failed} failed",
              flush=True)
        return 1 if self.failed or not (self.passed or self.known_bugs) else 0


# --- Case-based drivers ---------------------------------------------------------

def list_cases(cases, labels=None):
    """Prints one line per case for `--list`: its name, then the ctest
    labels `labels[name]` gives it (tests/CMakeLists.txt,
    ownsan_add_case_tests)."""
    labels = labels or {}
    for name in cases:
        print(" ".join([name] + list(labels.get(name, ()))))


def case_main(suite, namespace, timeout=120, add_arguments=None, label=None,
              labels=None, variants=None, argv=None):
    """The main() of a check_*.py driver: runs the `case_NAME(c, a)`
    function of `namespace` named by --case, with --ownsan, --program,
    --timeout and what `add_arguments(parser)` adds; returns the exit
    status. `label(a)` may extend the checker's name.

    `--list` prints the cases, one per line with the ctest labels
    `labels[name]` gives it; tests/CMakeLists.txt adds one test per line.
    `variants` ({SUFFIX: (cases, {argument: value})}) adds the cases
    "CASE.SUFFIX": CASE run with those arguments set."""
    cases = {name[len("case_"):]: fn for name, fn in namespace.items()
             if name.startswith("case_") and callable(fn)
             and fn is not case_main}
    variant_of = {}
    for suffix, (bases, settings) in (variants or {}).items():
        for base in bases:
            variant_of[f"{base}.{suffix}"] = (base, settings)
    p = argparse.ArgumentParser()
    p.add_argument("--list", action="store_true",
                   help="print the case names (and ctest labels) and exit")
    p.add_argument("--case", choices=sorted(cases) + sorted(variant_of))
    p.add_argument("--ownsan")
    p.add_argument("--program")
    p.add_argument("--timeout", type=float, default=timeout)
    if add_arguments:
        add_arguments(p)
    a = p.parse_args(argv)
    if a.list:
        list_cases(list(cases) + list(variant_of), labels)
        return 0
    if not (a.case and a.ownsan and a.program):
        p.error("--case, --ownsan and --program are required")
    name = a.case
    if name in variant_of:
        name, settings = variant_of[name]
        for key, value in settings.items():
            setattr(a, key, value)
    c = Checker(f"{suite}.{name}" + (label(a) if label else ""))
    cases[name](c, a)
    return c.finish()


def needed_libraries(path, readelf="readelf"):
    """The DT_NEEDED entries of an ELF file (`readelf -d`), in order."""
    r = run([readelf, "-d", "-W", path])
    if r.returncode != 0:
        raise RuntimeError(f"readelf -d {path} failed:\n{r.describe()}")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.out)


def filecheck_path():
    """LLVM's FileCheck: $OWNSAN_FILECHECK (tests/CMakeLists.txt sets it to
    the one of the LLVM the build is for)."""
    return os.environ.get("OWNSAN_FILECHECK", "FileCheck")


def filecheck(text, source, prefix, variables=None, timeout=120,
              directive="CHECK"):
    """Runs FileCheck on `text` with the `CHECK-<prefix>:` lines of
    `source` (`<directive>-<prefix>:` for another directive, e.g. the JSON
    lines of a case). `variables` ({NAME: value}) are defined with -D, for
    [[NAME]] in the check lines. Returns the Run (exit 0: matched)."""
    cmd = [filecheck_path(), source, f"--check-prefix={directive}-{prefix}",
           "--dump-input=never"]
    for name, value in (variables or {}).items():
        cmd.append(f"-D{name}={value}")
    return run(cmd, input=text.encode(), timeout=timeout)


_CHECK_PREFIX_RE = re.compile(
    r"\bCHECK-(\w+)(?:-(?:NEXT|SAME|NOT|DAG|EMPTY|LABEL|COUNT-\d+))?:")


def case_directives(source, directive):
    """{case: [text, ...]}: the `<directive>-<case>: text` lines of a test
    program (e.g. `RUN-<case>:`, how a case runs), in order."""
    found = {}
    pattern = re.compile(rf"\b{directive}-(\w+): ?(.*)$", re.M)
    with open(source, encoding="utf-8") as f:
        for m in pattern.finditer(f.read()):
            found.setdefault(m.group(1), []).append(m.group(2).strip())
    return found


def check_prefix_cases(source):
    """The cases of a test program with FileCheck lines: the NAMEs of its
    `CHECK-NAME:` (`-NEXT:`, `-NOT:`, ...) directives, in order of first
    appearance. A driver's `--list` prints them, so a case is written once:
    as the check lines next to the code that triggers its report."""
    names = {}
    with open(source, encoding="utf-8") as f:
        for m in _CHECK_PREFIX_RE.finditer(f.read()):
            names.setdefault(m.group(1), None)
    return list(names)


# --- Text reports (docs/reports.md) --------------------------------------------

HEADER_START_RE = re.compile(r"==(\d+)==ERROR: OwnSan:")
HEADER_RE = re.compile(
    r"==(?P<pid>\d+)==ERROR: OwnSan: (?P<kind>[a-z-]+) on (?P<handle_type>\w+) "
    r"0x(?P<address>[0-9a-fA-F]+) \((?P<label>.*)\)")
USE_RE = re.compile(
    r"passed as argument (?P<arg>\d+) of (?P<call>\w+) "
    r"on thread T(?P<thread>\d+)")
# "freed by F(label)" is the usual form; the others say LLVM freed the object
# with no handle of it passed ("during F ..., by LLVM itself") or that no
# LLVM-C call was active. The clause after the thread is optional:
# ", because it belonged to that <kind>" or e.g. ", by LLVM itself".
FREE_RE = re.compile(
    r"freed (?:by (?P<call>\w+)\((?P<label>.*)\)|during (?P<during>\w+)"
    r"|outside any LLVM-C call) on thread T(?P<thread>\d+)"
    r"(?:, (?P<clause>[^:]*))?")
BECAUSE_RE = re.compile(r"because it belonged to that (?P<kind>\w+)")
CREATE_RE = re.compile(r"created by (?P<call>\w+) on thread T(?P<thread>\d+)")
FRAME_START_RE = re.compile(r"    #\d+ ")
PYTHON_FRAME_RE = re.compile(
    r"    #(?P<index>\d+) (?P<file>.+):(?P<line>\d+) in (?P<function>.+) "
    r"\(python\)")
NATIVE_FRAME_RE = re.compile(
    r"    #(?P<index>\d+) (?P<pc>0x[0-9a-fA-F]+)(?: in (?P<function>\S+))?"
    r"(?: (?P<location>.*))?")
MODULE_LOCATION_RE = re.compile(r"\((?P<module>.+)\+0x(?P<offset>[0-9a-f]+)\)")
FILE_LOCATION_RE = re.compile(
    r"(?P<file>[^\s:]+):(?P<line>\d+)(?::(?P<column>\d+))?")
SUMMARY_RE = re.compile(
    r"SUMMARY: OwnSan: (?P<kind>\S+) in (?P<call>\S+)(?: (?P<rest>.*))?")
NO_STACK = "    <no stack recorded>"


# A run of the test runner's or interpreter's frames, folded (fold_frames).
FOLD_RE = re.compile(r"    \.\.\. (?P<n>\d+) frames in (?P<groups>[a-z, ]+)")


class ReportFormatError(Exception):
    """The text has an OwnSan report that does not follow the format."""


FormatError = ReportFormatError


@dataclass
class Frame:
    index: int
    python: bool
    function: Optional[str]  # None for an unsymbolized native frame
    location: str = ""  # what follows the function ("file:line" for Python)
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    module: Optional[str] = None
    offset: Optional[str] = None
    pc: Optional[str] = None

    @property
    def n(self):
        return self.index

    def where(self):
        return f"{self.file}:{self.line} in {self.function}"


def parse_frame(line, exact=False):
    """A stack frame line, or None when it does not follow the format. With
    `exact`, a native frame must name its function and its location must be
    "(module+0xOFFSET)" or "file:line[:col]"."""
    m = PYTHON_FRAME_RE.fullmatch(line)
    if m:
        return Frame(int(m["index"]), True, m["function"],
                     f"{m['file']}:{m['line']}", m["file"], int(m["line"]))
    m = NATIVE_FRAME_RE.fullmatch(line)
    if not m:
        return None
    f = Frame(int(m["index"]), False, m["function"], m["location"] or "",
              pc=m["pc"])
    if m["location"]:
        lm = MODULE_LOCATION_RE.fullmatch(m["location"])
        fm = FILE_LOCATION_RE.fullmatch(m["location"])
        if lm:
            f.module, f.offset = lm["module"], lm["offset"]
        elif fm:
            f.file, f.line = fm["file"], int(fm["line"])
            f.column = int(fm["column"]) if fm["column"] else None
        elif exact:
            return None
    if exact and not f.python and f.function is None:
        return None
    return f


@dataclass
class Section:
    """A line such as "  freed by ...:" and the frames under it."""

    heading: str  # the line without its two-space indent and its ':'
    name: Optional[str]  # use | free | create | related_create | None
    fields: Dict[str, Optional[str]] = field(default_factory=dict)
    frames: List[Frame] = field(default_factory=list)
    no_stack: bool = False  # "<no stack recorded>"
    raw: List[str] = field(default_factory=list)  # the frame lines
    # "    ... 22 frames in pytest" (fold_frames): (frames, "pytest")
    folded: List[tuple] = field(default_factory=list)
    next_index: int = 0

    @property
    def line(self):
        return f"  {self.heading}:"

    def functions(self):
        return [f.function for f in self.frames if f.function]


def _section_name(heading):
    if heading.startswith("passed as argument "):
        return "use"
    if heading.startswith(("freed ", "consumed ", "its insertion point")):
        return "free"
    if heading.startswith("created "):
        return "create"
    if heading.startswith("identity: "):
        return "related_create"
    return None


@dataclass
class Report:
    """One "==PID==ERROR: OwnSan: KIND on TYPE 0x... (LABEL)" report."""

    pid: int
    kind: str
    handle_type: str
    handle: int
    label: str
    lines: List[str] = field(default_factory=list)
    all_sections: List[Section] = field(default_factory=list)  # in order
    notes: List[str] = field(default_factory=list)  # lines of no section
    chain: Optional[str] = None
    test: Optional[str] = None  # "while running test X"
    summary: Optional[str] = None  # what follows "SUMMARY: OwnSan: "
    summary_fields: Optional[Dict[str, Optional[str]]] = None

    @property
    def address(self):
        return self.handle

    @property
    def text(self):
        return "\n".join(self.lines) + "\n"

    @property
    def sections(self):
        """The named sections (use, free, create, related_create)."""
        return {s.name: s for s in self.all_sections if s.name}

    @property
    def order(self):
        return [s.name for s in self.all_sections
                if s.name in ("use", "free", "create")]

    @property
    def use(self):
        return self.sections.get("use")

    @property
    def free(self):
        return self.sections.get("free")

    @property
    def create(self):
        return self.sections.get("create")

    @property
    def other(self):
        return self.notes

    def section(self, prefix):
        """The first section whose heading starts with `prefix`."""
        for s in self.all_sections:
            if s.heading.startswith(prefix):
                return s
        return None

    def stack(self, name):
        s = self.sections.get(name)
        return s.frames if s else []


def parse_reports(text, strict=True, require_functions=False):
    """Every OwnSan report in `text` (a child's stderr), in order.

    A report runs from its "==PID==ERROR: OwnSan: KIND on ..." header to
    its SUMMARY line (one-line errors and leak reports are not reports; see
    report_headers() and parse_leak_reports()). With `strict`, raises ReportFormatError for a line of a report that
    fits nowhere, a bad frame, frames out of order, a second use/free/create
    section or a report without SUMMARY line. Without it (output of several
    processes interleaved) such lines are kept as notes or dropped.
    With `require_functions`, a native frame without a function name or
    with a location other than "(module+0xOFFSET)" or "file:line[:col]" is
    a format error too (for programs whose frames are all symbolized)."""
    reports = []
    rep = None
    sec = None

    def bad(msg):
        if strict:
            raise ReportFormatError(msg)

    for line in text.splitlines():
        m = HEADER_RE.fullmatch(line)
        if m:
            if rep is not None:
                bad(f"report without a SUMMARY line before {line!r}")
            rep = Report(int(m["pid"]), m["kind"], m["handle_type"],
                         int(m["address"], 16), m["label"], [line])
            reports.append(rep)
            sec = None
            continue
        if rep is None:
            continue  # program output before or between reports
        rep.lines.append(line)
        if line.startswith("SUMMARY:"):
            m = SUMMARY_RE.fullmatch(line)
            if not m:
                bad(f"bad SUMMARY line: {line!r}")
            rep.summary = line[len("SUMMARY: OwnSan: "):]
            rep.summary_fields = m.groupdict() if m else None
            rep = sec = None
            continue
        if line.startswith("    "):
            if sec is None:
                bad(f"stack frame outside a stack: {line!r}")
                continue
            if line == NO_STACK:
                sec.no_stack = True
                continue
            fold = FOLD_RE.fullmatch(line)
            if fold:
                sec.folded.append((int(fold["n"]), fold["groups"]))
                sec.next_index += int(fold["n"])
                sec.raw.append(line)
                continue
            f = parse_frame(line, exact=require_functions)
            if f is None:
                bad(f"bad stack frame: {line!r}")
                continue
            if f.index != sec.next_index:
                bad(f"frame #{f.index} where #{sec.next_index} was due: "
                    f"{line!r}")
            sec.next_index = f.index + 1
            sec.frames.append(f)
            sec.raw.append(line)
            continue
        sec = None
        if not line.startswith("  ") or not line.strip():
            bad(f"unexpected line in a report: {line!r}")
            continue
        body = line[2:]
        if body.startswith("ownership chain"):
            rep.chain = body.split(": ", 1)[1] if ": " in body else ""
        elif body.startswith("while running test "):
            rep.test = body[len("while running test "):]
        elif body.endswith(":"):
            heading = body[:-1]
            sec = Section(heading, _section_name(heading))
            for start, regex in (("passed as argument ", USE_RE),
                                 ("freed ", FREE_RE), ("created by ", CREATE_RE)):
                if heading.startswith(start):
                    m = regex.fullmatch(heading)
                    if m:
                        sec.fields = m.groupdict()
                    else:
                        bad(f"bad stack heading: {line!r}")
                    break
            if sec.name == "free":
                because = BECAUSE_RE.fullmatch(sec.fields.get("clause") or "")
                sec.fields["because"] = because and because["kind"]
            if sec.name and sec.name in rep.sections:
                bad(f"second {sec.name} section: {line!r}")
            rep.all_sections.append(sec)
        else:
            rep.notes.append(body.strip())
    if rep is not None:
        bad("report without a SUMMARY line")
    return reports


def report_headers(text):
    """The pids of the "==PID==ERROR: OwnSan:" lines in `text`, in order."""
    return [int(m.group(1)) for m in
            (HEADER_START_RE.match(line) for line in text.splitlines()) if m]


def ownsan_error_line_re(pid):
    """A whole-line regex for a one-line runtime error of process `pid`."""
    return re.compile(rf"=={pid}==ERROR: OwnSan: .+")


# --- JSON Lines reports (report_format=json) -----------------------------------

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


def json_reports(text):
    """The {"ownsan_report": ...} objects among the lines of `text`."""
    out = []
    for line in text.splitlines():
        if line.startswith('{"ownsan_report"'):
            out.append(json.loads(line))
    return out


def run_ownsan_report(c, ownsan, logdir, out):
    """`ownsan report --sarif --junit --html` on the JSON logs in `logdir`,
    writing into the directory `out`. Returns (the Run, the SARIF results,
    the JUnit testcase elements, the HTML file names); a SARIF or JUnit file
    that cannot be read is a failed check of `c`."""
    sarif, junit, html = (os.path.join(out, "ownsan.sarif"),
                          os.path.join(out, "ownsan-junit.xml"),
                          os.path.join(out, "html"))
    r = run([ownsan, "report", "--sarif", sarif, "--junit", junit, "--html",
             html, logdir])
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


# --- Exit summaries, suppressions used, leak reports ---------------------------

EXIT_HEAD_RE = re.compile(r"==(\d+)==OwnSan: (\d+) distinct problem\(s\):")
EXIT_LINE_RE = re.compile(r"  (\d+)x (.+)")
EXIT_TOTAL_RE = re.compile(
    r"SUMMARY: OwnSan: (\d+) distinct problem\(s\), (\d+) occurrence\(s\)")
SUPP_HEAD_RE = re.compile(r"==(\d+)==OwnSan: suppressions used:")
SUPP_LINE_RE = re.compile(
    r"  (\d+) ((?:fun|src|lib|leak|[a-z]+(?:-[a-z]+)+):.+)")


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
    """The "detected leaks of owned LLVM objects" reports of `text`; raises
    ReportFormatError on a line that does not follow the format."""
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
            if FOLD_RE.fullmatch(line):
                continue
            f = parse_frame(line, exact=True)
            if f is None:
                raise ReportFormatError(f"unparsable leak frame: {line!r}")
            cur.groups[-1].frames.append(f)
            continue
        t = LEAK_TOTAL_RE.fullmatch(line)
        if t:
            cur.leaked, cur.sites = int(t[1]), int(t[2])
            out.append(cur)
            cur = None
            continue
        raise ReportFormatError(f"unexpected line in a leak report: {line!r}")
    if cur is not None:
        raise ReportFormatError("leak report without a SUMMARY line")
    return out


# --- Small helpers --------------------------------------------------------------

SANITIZER_RE = re.compile(r"WARNING: ThreadSanitizer|ERROR: AddressSanitizer|"
                          r"runtime error:|ERROR: LeakSanitizer|"
                          r"ThreadSanitizer: reported")


def sanitizer_errors(text):
    """Lines of sanitizer (not OwnSan) diagnostics in `text`."""
    return [l for l in text.splitlines() if SANITIZER_RE.search(l)]


def ownsan_lines(text):
    """Lines of `text` that mention OwnSan."""
    return [l for l in text.splitlines() if "OwnSan" in l]


# What verbosity=1 prints in every process at its start and exit: the
# LLVM it checks and the statistics (not a report, not a note).
_STATISTICS_LINE = re.compile(
    r"==\d+==OwnSan: (using |quarantine: |history: |work: )")


def ownsan_problems(text):
    """Lines of `text` that mention OwnSan, but for verbosity=1's
    statistics: reports, warnings and notes."""
    return [l for l in ownsan_lines(text) if not _STATISTICS_LINE.search(l)]


def run_heap_env(ownsan):
    """What gives a program without ownsan the heap `ownsan run` gives it:
    {"LD_PRELOAD": the allocator it preloads}, or {} (glibc's heap), asked
    of `ownsan run` itself. For comparing a program whose output depends
    on what freed memory holds (a misuse's garbage), not a correct one."""
    r = run([ownsan, "run", "--", "/usr/bin/env"], env=clean_env())
    m = re.search(r"^OWNSAN_RUN_HEAP_ALLOCATOR=(.+)$", r.out, re.M)
    return {"LD_PRELOAD": m.group(1)} if m else {}


def unittest_ran(stderr):
    """How many tests a Python unittest run says it ran (its `Ran N tests`
    line), or None."""
    m = re.search(r"^Ran (\d+) tests?", stderr, re.M)
    return int(m.group(1)) if m else None


def checked_calls(text):
    """{pid: checked calls} from verbosity=1's work lines in `text`."""
    return {int(m[1]): int(m[2]) for m in re.finditer(
        r"==(\d+)==OwnSan: work: (\d+) checked calls", text)}


def check_same_under_ownsan(c, what, cmd, env, ownsan, min_checked,
                            timeout=900):
    """Runs a real client's `cmd` plain and under `ownsan run` (env should
    set verbosity=1): both exit 0 with the same stdout, nothing from OwnSan
    but the statistics, and at least `min_checked` checked calls (silence
    must mean ownsan looked). Returns (plain, under), or None when the
    plain run failed (nothing to compare)."""
    plain = run(cmd, env=env, timeout=timeout)
    under = run([ownsan, "run", "--"] + cmd, env=env, timeout=timeout)
    if not c.equal(plain.returncode, 0, f"{what}: runs without ownsan",
                   plain):
        return None
    check_ran_alike(c, what, plain, under, min_checked=min_checked)
    return plain, under


def check_ran_alike(c, what, plain, under, said=None, min_checked=1):
    """The checks of check_same_under_ownsan on two finished Runs: `under`
    exits 0 with `plain`'s stdout, and what ownsan wrote (`said`; default
    under's stderr: more where a pipe took some of it) has nothing from
    OwnSan but the statistics and at least `min_checked` checked calls."""
    shown = under if said is None else said
    said = under.err if said is None else said
    c.equal(under.returncode, 0, f"{what}: and under ownsan", under)
    c.equal(under.out, plain.out, f"{what}: the same output under ownsan",
            under)
    c.equal(ownsan_problems(said), [], f"{what}: no report, no leak", shown)
    calls = sum(checked_calls(said).values())
    c.check(calls >= min_checked, f"{what}: ownsan checked its LLVM-C calls "
            f"(at least {min_checked:,}; {calls:,})", shown)


def handles(text, prefix):
    """`PREFIX: ROLE = 0x...` lines the test programs print on stderr, as a
    dict role -> int."""
    out = {}
    for m in re.finditer(rf"^{re.escape(prefix)}: (\w+) = (?:0x)?([0-9a-fA-F]+)$",
                         text, re.M):
        out[m[1]] = int(m[2], 16)
    return out


def marker_line(path, marker):
    """The 1-based line of `path` that contains `marker` (exactly one)."""
    with open(path, encoding="utf-8") as f:
        hits = [i for i, line in enumerate(f, 1) if marker in line]
    if len(hits) != 1:
        raise RuntimeError(f"{path}: marker {marker!r} found {len(hits)} times")
    return hits[0]
