#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan report: merge the JSON reports of many processes into one view.

    ownsan report [--sarif OUT.sarif] [--junit OUT.xml] [--html OUTDIR]
                  [--source-root DIR] [--category NAME] PATH...

Each PATH is a JSON Lines file written by the runtime with
`OWNSAN_OPTIONS=report_format=json:log_path=DIR/NAME`, or a directory
searched (recursively) for such files: every file named `ownsan.*` and every
other file holding an ownsan record (the rest are skipped). Reports are
deduplicated by their `problem_id` across every process; each distinct
problem is counted (the exit summary's count of each process when it has
one, else its number of report lines) and the tests that hit it are listed.
Leaks (report_leaks=1) are problems too: one per creation site, with an id
made here from the creating call and its stack.

Writes a summary on stdout and, on request, SARIF 2.1.0, JUnit XML and a
self-contained HTML postmortem per problem. Exit status: 1 when any problem
was found, 0 when none, 2 for usage errors, unreadable input and input that
holds no ownsan record at all (no log is not a clean run: a clean run's log
holds its exit summary).

Only the Python standard library is used: this file is installed next to the
`ownsan` binary (share/ownsan/) and run by `ownsan report` with
/usr/bin/python3.
"""

import argparse
import hashlib
import html
import json
import os
import pathlib
import re
import stat
import sys
import urllib.parse
import xml.etree.ElementTree as ET

# ownsan_frames.py lies beside this file (tools/report/, share/ownsan/).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ownsan_frames  # noqa: E402
import ownsan_pages  # noqa: E402

PROG = "ownsan report"
TOOL_NAME = "ownsan"
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/"
                "sarif-schema-2.1.0.json")
SARIF_FINGERPRINT = "ownsanProblemId/v1"
SRCROOT = "SRCROOT"
MAX_WARNINGS_PER_FILE = 20

# What each error kind means and how to fix the binding: the SARIF rules,
# the HTML pages and the terminal share this list. It is generated from the
# report-kind table src/report/error_kinds.def at build time and lies beside
# this file, in a build tree and in an install (share/ownsan/). A kind not in
# it (a newer runtime's) gets a generic rule.
KINDS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "error_kinds.json")
KINDS_DOC = "docs/reports.md"


def load_kinds(path):
    """({kind name: entry}, None) in the table's order, or ({}, why not).
    Also sets TOOL_INFO from the list's tool_version and homepage."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for key in ("tool_version", "homepage"):
            if isinstance(doc.get(key), str):
                TOOL_INFO[key] = doc[key]
        kinds = {}
        for k in doc["kinds"]:
            for field in ("name", "id", "meaning", "details", "hint",
                          "sarif_level", "doc_anchor"):
                if not isinstance(k.get(field), str):
                    raise ValueError(f"a kind without a '{field}' string")
            kinds[k["name"]] = k
        return kinds, None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        return {}, (f"cannot read the kind list {path} ({why}); every kind "
                    "gets a generic description")


TOOL_INFO = {}  # tool_version, homepage: from the kind list
# The docs installed beside this script (share/doc/ownsan, as in the build
# tree): where rules link when the build names no published home page.
INSTALLED_DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              os.pardir, "doc", "ownsan")


def doc_uri(doc, anchor=""):
    """An absolute URI of `doc` (a path of ownsan's repository) at `anchor`:
    on the published home page, else the installed copy (file:), else ""."""
    fragment = f"#{anchor}" if anchor else ""
    if TOOL_INFO.get("homepage"):
        return f"{TOOL_INFO['homepage']}/blob/main/{doc}{fragment}"
    path = os.path.realpath(os.path.join(INSTALLED_DOCS,
                                         os.path.basename(doc)))
    return (pathlib.Path(path).as_uri() + fragment
            if os.path.exists(path) else "")
KINDS, KINDS_PROBLEM = load_kinds(KINDS_FILE)

# Leaks are not a kind of the runtime's table (they are found at exit, not
# at a call); `ownsan report` makes them problems of this kind.
LEAK_KIND = "leak"
LEAK_ENTRY = {
    "name": LEAK_KIND, "id": "Leak",
    "meaning": "An LLVM object the program owns was never disposed.",
    "details": "With `report_leaks=1` the runtime lists at exit the owned "
               "objects still alive (contexts the program created, modules, "
               "builders, memory buffers...), grouped by the call and stack "
               "that created them; the process then exits with `exitcode`.",
    "hint": "Dispose of the object when the binding is done with it (its "
            "`LLVMDispose...` call), or hand it to an owner that does.",
    "sarif_level": "error", "doc_anchor": "leak-reports",
    "cwe": 401, "security_severity": None}

# The keys that mark a line as an ownsan record.
RECORD_MARKERS = ("ownsan_report", "ownsan_summary", "ownsan_blind_spot",
                  "ownsan_leaks")


def kind_entry(kind):
    """The kind's table entry (the leak entry for leaks), or None."""
    return KINDS.get(kind) or (LEAK_ENTRY if kind == LEAK_KIND else None)

# Background colour of each kind of object in the ownership chain drawing.
# The chromium test reads this table; the colours are used nowhere else on
# a page.
CHAIN_COLORS = {
    "context": "#cfe0fb",
    "module": "#c6efcd",
    "function": "#fdf0b4",
    "block": "#e4d2f7",
    "instruction": "#ffd6c2",
}
CHAIN_OTHER_COLOR = "#e2e5e9"
FREED_COLOR = "#c62828"  # border of the freed object's box


class UsageError(Exception):
    """Exit status 2 with a one-line message."""


class Malformed(Exception):
    """A line that is not a valid ownsan record."""


class PartlyMalformed(Exception):
    """A record that was read, but with parts that had to be ignored."""


# --- small helpers -----------------------------------------------------------

_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _str(v):
    """v if it is a non-empty string (lone surrogates replaced), else None."""
    if not isinstance(v, str) or v == "":
        return None
    return _SURROGATES.sub("\ufffd", v)


def _int(v, minimum=None):
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    if minimum is not None and v < minimum:
        return None
    return v


def _dict(v):
    return v if isinstance(v, dict) else None


def oneline(s):
    """s with control characters shown as \\xNN (for the terminal)."""
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), s)


def xml_text(s):
    """s without the characters XML 1.0 cannot carry."""
    return _XML_BAD.sub("\ufffd", s)


def h(s):
    """HTML-escaped text (everything taken from input goes through here)."""
    if s is None:
        return ""
    return html.escape(xml_text(str(s)), quote=True)


def plural(n, word):
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}" + ("es" if word.endswith("s") else "s")


_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain(markdown):
    """The table's Markdown as text: links become their text, no backticks."""
    return _MD_LINK.sub(r"\1", markdown).replace("`", "")


_PHASE = re.compile(r" \((?:setup|call|teardown)\)$")


def clean_test(name):
    """A test id without pytest's ' (call)' phase suffix."""
    return _PHASE.sub("", name) if name else name


# --- the records -------------------------------------------------------------


class Frame:
    __slots__ = ("index", "language", "function", "file", "line", "column",
                 "module", "pc")

    @classmethod
    def parse(cls, d, i):
        if not isinstance(d, dict):
            return None
        f = cls()
        f.index = _int(d.get("index"), 0)
        if f.index is None:
            f.index = i
        f.language = _str(d.get("language")) or "native"
        f.function = _str(d.get("function"))
        f.file = _str(d.get("file"))
        f.line = _int(d.get("line"), 1)
        f.column = _int(d.get("column"), 1)
        f.module = _str(d.get("module"))
        f.pc = _str(d.get("pc"))
        return f

    @property
    def is_language(self):
        """A frame of the binding's language (Python...), not native code."""
        return self.language != "native"


def parse_stack(v):
    if not isinstance(v, list):
        return []
    frames = []
    for i, d in enumerate(v):
        f = Frame.parse(d, i)
        if f is not None:
            frames.append(f)
    return frames


class Event:
    """The use, free or create section of a report."""
    __slots__ = ("function", "target", "cause", "during", "thread", "stack")

    @classmethod
    def parse(cls, d):
        d = _dict(d)
        if d is None:
            return None
        e = cls()
        e.function = _str(d.get("function"))
        e.target = _str(d.get("target"))
        e.cause = _str(d.get("cause"))
        e.during = _str(d.get("during"))
        e.thread = _int(d.get("thread"), 0)
        e.stack = parse_stack(d.get("stack"))
        return e


class Report:
    """One `ownsan_report` line, normalized: fields of the wrong type are
    treated as absent; only `kind` and `problem_id` are required."""

    def __init__(self, d):
        self.kind = _str(d.get("kind"))
        if self.kind is None:
            raise Malformed("report without a 'kind' string")
        self.problem_id = _str(d.get("problem_id"))
        if self.problem_id is None:
            raise Malformed("report without a 'problem_id' string")
        self.pid = _int(d.get("pid"))
        self.handle = _str(d.get("handle"))
        self.handle_type = _str(d.get("handle_type"))
        obj = _dict(d.get("object")) or {}
        self.object_kind = _str(obj.get("kind"))
        self.object_label = _str(obj.get("label"))
        self.identity = _str(obj.get("identity"))
        call = _dict(d.get("call")) or {}
        self.call_function = _str(call.get("function"))
        self.call_argument = _int(call.get("argument"), 0)
        self.thread = _int(d.get("thread"), 0)
        self.test = clean_test(_str(d.get("test")))
        self.note = _str(d.get("note"))
        self.expected = _str(d.get("expected"))
        self.use = Event.parse(d.get("use"))
        if self.use is None:
            self.use = Event.parse({})
        if self.use.thread is None:
            self.use.thread = self.thread
        if self.use.function is None:
            self.use.function = self.call_function
        self.free = Event.parse(d.get("free"))
        self.create = Event.parse(d.get("create"))
        # context-race: the other thread's call on the same context.
        self.other = Event.parse(d.get("other"))
        # An object created outside the LLVM-C API (create is null): the
        # LLVM-C call ownsan first saw it in.
        self.first_seen_in = _str(d.get("first_seen_in"))
        self.chain = []
        if isinstance(d.get("chain"), list):
            for link in d["chain"]:
                link = _dict(link)
                if link is None:
                    continue
                label = _str(link.get("label"))
                kind = _str(link.get("kind")) or "object"
                if label is not None:
                    self.chain.append((kind, label))
        rel = _dict(d.get("related"))
        self.related = None
        if rel is not None and _str(rel.get("label")):
            self.related = (_str(rel.get("kind")) or "object",
                            _str(rel.get("label")), _str(rel.get("identity")))
        self.summary = _str(d.get("summary"))
        self.text = _str(d.get("text"))


class Leak:
    """One group of an `ownsan_leaks` line: objects made by one call and
    stack and never disposed."""

    def __init__(self, d):
        d = _dict(d)
        if d is None:
            raise Malformed("leak group is not an object")
        self.count = _int(d.get("count"), 1)
        self.function = _str(d.get("function"))
        if self.count is None or self.function is None:
            raise Malformed("leak group without a 'count' and a 'function'")
        self.handle_type = _str(d.get("handle_type"))
        self.object_kind = _str(d.get("kind")) or "object"
        self.example = _str(d.get("example"))
        self.thread = _int(d.get("thread"), 0)
        self.stack = parse_stack(d.get("stack"))

    @property
    def problem_id(self):
        """16 hex digits from the creating call and its stack's names and
        lines (no addresses, no directories): the same site gets the same
        id in every process."""
        parts = ["leak", self.function, self.handle_type or ""]
        for f in self.stack:
            if is_internal(f):
                continue
            parts.append(f"{f.function or ''}@"
                         f"{os.path.basename(f.file or f.module or '')}:"
                         f"{f.line or ''}")
        return hashlib.sha256("\0".join(parts).encode(
            "utf-8", "replace")).hexdigest()[:16]


class Segment:
    """The records of one process: one (file, pid) until its exit summary.
    (A file appended to by a later process with the same pid starts a new
    segment after the summary.)"""

    def __init__(self):
        self.reports = {}    # problem_id -> number of report lines
        self.summary = None  # problem_id -> count, once the summary is read
        self.leaks = {}      # leak problem_id -> objects leaked


class Problem:
    def __init__(self, problem_id, seq):
        self.problem_id = problem_id
        self.seq = seq
        self.kind = None
        self.report = None         # the first report line seen
        self.leak = None           # leaks: the first group seen
        self.summary_text = None   # from a summary object, if no report
        self.count = 0
        self.report_lines = 0
        self.tests = []
        self.processes = set()
        self.pids = []

    @property
    def summary(self):
        if self.report is not None and self.report.summary:
            return self.report.summary
        if self.leak is not None:
            s = f"leak of {self.leak.handle_type or self.leak.object_kind} " \
                f"created by {self.leak.function}"
            f = binding_frame(self.leak.stack)
            if f is not None:
                s += " " + frame_where(f, Paths(None))
            return s
        return self.summary_text or f"{self.kind} (problem {self.problem_id})"

    @property
    def label(self):
        if self.leak is not None:
            return f"{self.leak.object_kind} created by {self.leak.function}"
        if self.report is not None and self.report.object_label:
            return self.report.object_label
        if self.report is not None and self.report.handle:
            rep = self.report
            return f"{rep.handle_type or 'handle'} {rep.handle}"
        return "an object (details not in the logs)"


class Collector:
    """Reads log files and deduplicates their problems."""

    def __init__(self, err=sys.stderr):
        self.err = err
        self.problems = {}
        self.segments = {}
        self._segment_no = {}
        self.report_lines = 0
        self.records = 0  # ownsan records read (any type)
        self.files = 0
        self.warnings = 0
        self.suppressed = {}
        # (what, object) -> the processes that said it could not check it
        # (docs/blind-spots.md).
        self.blind_spots = {}
        self.llvm_majors = set()  # of the runtimes that wrote summaries

    def warn(self, where, message):
        self.warnings += 1
        print(f"{PROG}: warning: {oneline(where)}: {oneline(message)}",
              file=self.err)

    def _segment(self, path, pid):
        key = (path, pid)
        full = (path, pid, self._segment_no.get(key, 0))
        seg = self.segments.get(full)
        if seg is None:
            seg = self.segments[full] = Segment()
        return full, seg

    def _problem(self, problem_id):
        p = self.problems.get(problem_id)
        if p is None:
            p = self.problems[problem_id] = Problem(problem_id,
                                                    len(self.problems))
        return p

    def read_file(self, path, sniff=False):
        """Reads one log; an unreadable file raises UsageError. With sniff,
        a file that holds no ownsan record is skipped (returns False)."""
        if sniff and not holds_records(path):
            return False
        self.files += 1
        shown = 0
        try:
            with open(path, "rb") as f:
                for lineno, raw in enumerate(f, 1):
                    if not raw.strip():
                        continue
                    try:
                        self._read_line(path, raw)
                    except PartlyMalformed as e:
                        shown += 1
                        if shown <= MAX_WARNINGS_PER_FILE:
                            self.warn(f"{path}:{lineno}", str(e))
                    except Malformed as e:
                        shown += 1
                        if shown <= MAX_WARNINGS_PER_FILE:
                            self.warn(f"{path}:{lineno}",
                                      f"skipped malformed line: {e}")
                    except Exception as e:  # never crash on odd input
                        shown += 1
                        if shown <= MAX_WARNINGS_PER_FILE:
                            self.warn(f"{path}:{lineno}",
                                      "skipped malformed line: "
                                      f"{type(e).__name__}: {e}")
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror or e}")
        if shown > MAX_WARNINGS_PER_FILE:
            self.warn(path, f"{shown - MAX_WARNINGS_PER_FILE} more malformed "
                      "lines (no warning shown for them)")
        return True

    def _read_line(self, path, raw):
        # The runtime writes names as LLVM keeps them: bytes, not always
        # UTF-8. A bad byte is not a bad report.
        text = raw.decode("utf-8", errors="replace")
        try:
            obj = json.loads(text)
        except RecursionError:
            raise Malformed("nested too deeply")
        except ValueError as e:
            raise Malformed(f"not JSON ({e})")
        if not isinstance(obj, dict):
            raise Malformed(f"not a JSON object ({type(obj).__name__})")
        if "ownsan_report" in obj:
            add = lambda: self._add_report(path, Report(obj))
        elif "ownsan_summary" in obj:
            add = lambda: self._add_summary(path, obj)
        elif "ownsan_blind_spot" in obj:
            add = lambda: self._add_blind_spot(path, obj)
        elif "ownsan_leaks" in obj:
            add = lambda: self._add_leaks(path, obj)
        else:
            return  # other objects (later record types) are ignored
        try:
            add()
        except PartlyMalformed:
            self.records += 1
            raise
        self.records += 1

    def _add_report(self, path, rep):
        key, seg = self._segment(path, rep.pid)
        seg.reports[rep.problem_id] = seg.reports.get(rep.problem_id, 0) + 1
        p = self._problem(rep.problem_id)
        if p.report is None:
            p.report = rep
        if p.kind is None:
            p.kind = rep.kind
        if rep.test and rep.test not in p.tests:
            p.tests.append(rep.test)
        p.report_lines += 1
        self.report_lines += 1

    def _add_leaks(self, path, obj):
        groups = obj.get("groups")
        if not isinstance(groups, list):
            raise Malformed("leak record without a 'groups' list")
        key, seg = self._segment(path, _int(obj.get("pid")))
        bad = 0
        for g in groups:
            try:
                leak = Leak(g)
            except Malformed:
                bad += 1
                continue
            lid = leak.problem_id
            seg.leaks[lid] = seg.leaks.get(lid, 0) + leak.count
            p = self._problem(lid)
            p.kind = LEAK_KIND
            if p.leak is None:
                p.leak = leak
            p.report_lines += 1
            self.report_lines += 1
        if bad:
            raise PartlyMalformed(
                f"ignored {bad} leak groups without a 'count' and a "
                "'function' (the rest of the record was read)")

    def _add_blind_spot(self, path, obj):
        what, where = _str(obj.get("what")), _str(obj.get("object"))
        if what is None or where is None:
            raise Malformed("blind spot without 'what' and 'object'")
        pids = self.blind_spots.setdefault((what, where), set())
        pids.add((path, _int(obj.get("pid"))))

    def _add_summary(self, path, obj):
        problems = obj.get("problems")
        if not isinstance(problems, list):
            raise Malformed("summary without a 'problems' list")
        major = _int(obj.get("llvm_major"))
        if major is not None:
            self.llvm_majors.add(major)
        pid = _int(obj.get("pid"))
        entries = []
        bad = 0
        for e in problems:
            e = _dict(e)
            pid_ = _str(e.get("problem_id")) if e else None
            count = _int(e.get("count"), 0) if e else None
            if pid_ is None or count is None:
                bad += 1
                continue
            entries.append((pid_, count, _str(e.get("kind")),
                            _str(e.get("summary"))))
        supp = obj.get("suppressed")
        suppressed = []
        if isinstance(supp, list):
            for s in supp:
                s = _dict(s)
                pattern = _str(s.get("pattern")) if s else None
                count = _int(s.get("count"), 0) if s else None
                if pattern is not None and count is not None:
                    suppressed.append((pattern, count))
        key, seg = self._segment(path, pid)
        if seg.summary is None:
            seg.summary = {}
        for problem_id, count, kind, summary in entries:
            seg.summary[problem_id] = seg.summary.get(problem_id, 0) + count
            p = self._problem(problem_id)
            if p.kind is None:
                p.kind = kind or "unknown"
            if p.summary_text is None:
                p.summary_text = summary
        for pattern, count in suppressed:
            self.suppressed[pattern] = self.suppressed.get(pattern, 0) + count
        # The summary closes this process's segment.
        self._segment_no[(path, pid)] = self._segment_no.get((path, pid),
                                                             0) + 1
        if bad:
            raise PartlyMalformed(
                f"ignored {bad} summary entries without a 'problem_id' "
                "string and a 'count' (the rest of the summary was read)")

    def finish(self):
        """The distinct problems, counted, most frequent first."""
        for key, seg in self.segments.items():
            ids = set(seg.reports)
            if seg.summary:
                ids |= set(seg.summary)
            for problem_id, count in seg.leaks.items():
                p = self.problems[problem_id]
                p.count += count
                p.processes.add(key)
                if key[1] is not None and key[1] not in p.pids:
                    p.pids.append(key[1])
            for problem_id in ids:
                count = None
                if seg.summary is not None:
                    count = seg.summary.get(problem_id)
                if count is None:
                    count = seg.reports.get(problem_id, 0)
                p = self.problems[problem_id]
                p.count += count
                p.processes.add(key)
                if key[1] is not None and key[1] not in p.pids:
                    p.pids.append(key[1])
        return sorted(self.problems.values(),
                      key=lambda p: (-p.count, p.kind or "", p.seq))

    @property
    def process_count(self):
        return len(self.segments)


# --- which frame is the binding's --------------------------------------------

_NATIVE_MODULES = re.compile(
    r"^(?:libownsan|libLLVM|libpython|python\d*(?:\.\d+)?$|libffi|_ctypes|"
    r"libc[.-]|ld-linux|libstdc\+\+|libgcc_s|libpthread|libdl[.-])")
_NATIVE_FUNCTIONS = re.compile(
    r"^(?:__ownsan|ownsan::|_Py|Py[A-Z_]|ffi_|__libc_start|_start$|llvm::)")


def is_internal(f):
    """ownsan, libLLVM, the interpreter and test-runner internals."""
    if f.is_language:
        return ownsan_frames.runner_group(f) is not None
    if f.module and _NATIVE_MODULES.search(os.path.basename(f.module)):
        return True
    return bool(f.function and _NATIVE_FUNCTIONS.search(f.function))


def binding_frame(stack):
    """The frame a report points at. In a language (Python) stack, the first
    frame of the user's code past the binding's wrapper (the runtime's
    SUMMARY frame, ownsan_frames.user_frame); else the first native frame
    with a source file, skipping internals; failing that the first frame
    with a file."""
    uf = ownsan_frames.user_frame(stack)
    if uf is not None and uf.is_language and uf.file:
        return uf
    for f in stack:
        if not f.is_language and f.file and not is_internal(f):
            return f
    for f in stack:
        if f.file:
            return f
    return None


def summary_text(p, paths):
    """The problem's SUMMARY with its source path relative to
    --source-root."""
    s = p.summary
    if p.report is not None:
        for f in p.report.use.stack:
            if f.file and f.file in s:
                return s.replace(f.file, paths.show(f.file), 1)
    return s


# --- presentation helpers ----------------------------------------------------


class Paths:
    """Shows source paths relative to --source-root when under it."""

    def __init__(self, root, fold=True):
        self.fold = fold  # fold the runner's frames in HTML stacks
        self.roots = []
        if root:
            for r in (os.path.normpath(os.path.abspath(root)),
                      os.path.realpath(root)):
                if r not in self.roots:
                    self.roots.append(r)

    def relative(self, path):
        """(path relative to the root, True) or (path, False)."""
        if path and os.path.isabs(path):
            norm = os.path.normpath(path)
            for r in self.roots:
                if norm == r:
                    return ".", True
                prefix = r.rstrip("/") + "/"
                if norm.startswith(prefix):
                    return norm[len(prefix):], True
        return path, False

    def show(self, path):
        return self.relative(path)[0]


def frame_where(f, paths):
    """file:line[:col] in function (or the module when there is no file)."""
    fn = f.function or "<unknown>"
    if f.file:
        loc = paths.show(f.file)
        if f.line:
            loc += f":{f.line}"
            if f.column:
                loc += f":{f.column}"
        return f"{loc} in {fn}"
    if f.module:
        pc = f"+{f.pc}" if f.pc else ""
        return f"{fn} ({os.path.basename(f.module)}{pc})"
    return fn


def call_text(rep):
    fn = rep.call_function or "an LLVM-C function"
    s = fn
    if rep.call_argument:
        s += f" (argument {rep.call_argument}"
        s += f", {rep.handle_type})" if rep.handle_type else ")"
    return s


def free_text(ev):
    """What freed the object: call(target), cause."""
    if ev is None:
        return None
    if ev.function and ev.target:
        s = f"{ev.function}({ev.target})"
        if ev.cause:
            s += f", {ev.cause}"
        return s
    if ev.during:
        return f"LLVM itself during {ev.during}"
    if ev.function:
        return ev.function + (f", {ev.cause}" if ev.cause else "")
    return "outside any LLVM-C call"


def thread_name(t):
    return f"T{t}" if t is not None else "T?"


def other_text(ev):
    """context-race: what the other thread is doing."""
    return (f"thread {thread_name(ev.thread)} is inside "
            f"{ev.function or 'an LLVM-C call'} on the same context")


def outside_text(rep):
    """Where an object ownsan did not see created came from."""
    s = "outside the LLVM-C API"
    if rep.first_seen_in:
        s += f" (first seen in a call to {rep.first_seen_in})"
    return s


def leak_objects(leak):
    """'3 LLVMModuleRefs (module 0x..., ...)', as the runtime says it."""
    many = leak.count != 1
    s = plural(leak.count, leak.handle_type) if leak.handle_type else \
        plural(leak.count, "object")
    if leak.example:
        s += f" ({leak.object_kind} {leak.example}{', ...' if many else ''})"
    return s


def stack_lines(stack, paths):
    return [f"    #{f.index} {frame_where(f, paths)}" for f in stack]


def leak_text(p, paths):
    """The leak as a text report (JUnit's failure text)."""
    leak = p.leak
    lines = [f"leak: {leak_objects(leak)} created by {leak.function} on "
             f"thread {thread_name(leak.thread)}, never disposed:"]
    lines += stack_lines(leak.stack, paths)
    return "\n".join(lines) + "\n"


def leak_seen(p):
    return (f"{plural(p.count, 'object')} never disposed in "
            f"{plural(len(p.processes), 'process')}")


def tests_text(p):
    return ", ".join(p.tests) if p.tests else "(none named)"


def test_file_part(test):
    """'tests/test_mod.py::test_x[1]' -> 'tests/test_mod.py'."""
    return test.split("::", 1)[0] if test else test


def junit_classname(test):
    """pytest's own JUnit classname for a pytest id (its mangle_test_address):
    'tests/test_mod.py::TestX::test_y[a/b] (call)' -> 'tests.test_mod.TestX';
    another runner's id (OWNSAN_TEST_NAME, no '::') is kept as it is."""
    test = re.sub(r" \((setup|call|teardown)\)$", "", test)
    if "::" not in test:
        return test
    names = test.partition("[")[0].split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    return ".".join(names[:-1])


def without_addresses(label):
    """A label without its 0x... addresses ('context 0x5b69de0 (global)' ->
    'context (global)'), so a test name is the same in every run."""
    return re.sub(r" ?0x[0-9a-fA-F]+", "", label).strip() or label


# --- terminal ----------------------------------------------------------------


def terminal_summary(problems, col, paths, out):
    for n, p in enumerate(problems, 1):
        rep = p.report
        lines = [f"[{n}] {p.kind}: {p.label}"]
        rows = []
        if p.leak is not None:
            where = binding_frame(p.leak.stack)
            rows.append(("created by", p.leak.function +
                         (f" at {frame_where(where, paths)}" if where
                          else "") +
                         f" on thread {thread_name(p.leak.thread)}"))
            rows.append(("leaked", leak_seen(p)))
            rows.append(("objects", leak_objects(p.leak)))
        elif rep is not None:
            rows.append(("call", call_text(rep)))
            bf = binding_frame(rep.use.stack)
            rows.append(("at", frame_where(bf, paths) if bf
                         else "(no source frame in the use stack)"))
            if rep.free is not None:
                where = binding_frame(rep.free.stack)
                rows.append(("freed by", free_text(rep.free) +
                             (f" at {frame_where(where, paths)}" if where
                              else "")))
            else:
                rows.append(("freed by", "(no free recorded)"))
            if rep.create is not None:
                where = binding_frame(rep.create.stack)
                rows.append(("created by", (rep.create.function or "?") +
                             (f" at {frame_where(where, paths)}" if where
                              else "")))
            elif rep.first_seen_in:
                rows.append(("created", outside_text(rep)))
            if rep.other is not None:
                where = binding_frame(rep.other.stack)
                rows.append(("other call", other_text(rep.other) +
                             (f", entered at {frame_where(where, paths)}"
                              if where else "")))
            if rep.note:
                rows.append(("note", rep.note))
        else:
            rows.append(("details", "not in the logs (only counted by an "
                         "exit summary): " + p.summary))
        if p.leak is None:
            rows.append(("seen", f"{plural(p.count, 'time')} in "
                         f"{plural(len(p.processes), 'process')}"))
        rows.append(("tests", tests_text(p)))
        rows.append(("problem id", p.problem_id))
        for key, value in rows:
            lines.append(f"    {key + ':':<12}{value}")
        out.write(oneline_block(lines) + "\n\n")
    if col.suppressed:
        items = ", ".join(f"{pat} ({c})" for pat, c in
                          sorted(col.suppressed.items()))
        out.write(oneline(f"suppressed: {items}") + "\n")
    for (what, where), pids in sorted(col.blind_spots.items()):
        out.write(oneline(f"not checked: {what} ({where}) in "
                          f"{plural(len(pids), 'process')}; see "
                          "docs/blind-spots.md") + "\n")
    out.write(f"{PROG}: {len(problems)} distinct problems in "
              f"{col.report_lines} reports from {col.process_count} "
              "processes\n")


def oneline_block(lines):
    return "\n".join(oneline(l) for l in lines)


# --- SARIF -------------------------------------------------------------------


def sarif_artifact(path, paths):
    rel, under = paths.relative(path)
    if under or (paths.roots and not os.path.isabs(path)):
        return {"uri": urllib.parse.quote(rel, safe="/"), "uriBaseId": SRCROOT}
    if os.path.isabs(path):
        return {"uri": "file://" + urllib.parse.quote(path, safe="/")}
    return {"uri": urllib.parse.quote(path, safe="/")}


def sarif_physical(f, paths):
    loc = {"artifactLocation": sarif_artifact(f.file, paths)}
    if f.line:
        region = {"startLine": f.line}
        if f.column:
            region["startColumn"] = f.column
        loc["region"] = region
    return loc


def sarif_location(f, paths, message=None, loc_id=None):
    loc = {}
    if loc_id is not None:
        loc["id"] = loc_id
    if f is not None and f.file:
        loc["physicalLocation"] = sarif_physical(f, paths)
    if f is not None and f.function:
        loc["logicalLocations"] = [{"name": f.function, "kind": "function"}]
    if message:
        loc["message"] = {"text": message}
    return loc


def sarif_stack(title, stack, thread, paths):
    frames = []
    for f in stack:
        frame = {"location": sarif_location(f, paths)}
        if f.module:
            frame["module"] = f.module
        if thread is not None:
            frame["threadId"] = thread
        frames.append(frame)
    return {"message": {"text": title}, "frames": frames}


def kind_level(kind):
    k = kind_entry(kind)
    return k["sarif_level"] if k else "error"


def rule_for(kind):
    k = kind_entry(kind)
    if k is None:
        return {"id": kind,
                "name": "".join(w.capitalize() for w in
                                re.split(r"[^A-Za-z0-9]+", kind)) or "Problem",
                "shortDescription": {"text": f"ownsan reported {kind}."},
                "fullDescription": {
                    "text": f"ownsan reported a {kind} problem."},
                "help": {"text": "See the report's text for the objects and "
                         "stacks involved."},
                "defaultConfiguration": {"level": "error"}}
    rule = {"id": kind, "name": k["id"],
            "shortDescription": {"text": k["meaning"]},
            "fullDescription": {"text": plain(k["details"]),
                                "markdown": k["details"]},
            "help": {"text": plain(k["hint"]), "markdown": k["hint"]},
            "defaultConfiguration": {"level": k["sarif_level"]},
            "properties": {"docs": f"{KINDS_DOC}#{k['doc_anchor']}",
                           "tags": rule_tags(k)}}
    help_uri = doc_uri(KINDS_DOC, k["doc_anchor"])
    if help_uri:
        rule["helpUri"] = help_uri
    if isinstance(k.get("security_severity"), str):
        # GitHub code scanning ranks security alerts by it.
        rule["properties"]["security-severity"] = k["security_severity"]
    return rule


def rule_tags(k):
    """A kind with a security severity is a memory-safety bug; its CWE as
    code scanning spells it."""
    tags = (["security", "memory-safety"] if k.get("security_severity")
            else ["correctness"])
    if isinstance(k.get("cwe"), int):
        tags.append(f"external/cwe/cwe-{k['cwe']}")
    return tags


def automation_id(col, category):
    """runs[].automationDetails.id: one category per LLVM major, so the
    SARIF of each job of a matrix (LLVM 14, 19, ...) is its own analysis in
    code scanning instead of replacing the others'."""
    if category is None:
        majors = sorted(col.llvm_majors)
        category = ("llvm-" + "+".join(str(m) for m in majors) if majors
                    else "")
    return f"{TOOL_NAME}/{category}/" if category else f"{TOOL_NAME}/"


def build_sarif(problems, col, paths, category=None):
    kinds = list(KINDS)
    for p in problems:
        if p.kind not in kinds:
            kinds.append(p.kind)
    rules = [rule_for(k) for k in kinds]
    results = []
    for p in problems:
        rep = p.report
        result = {
            "ruleId": p.kind,
            "ruleIndex": kinds.index(p.kind),
            "level": kind_level(p.kind),
            "message": {"text": (
                f"{summary_text(p, paths)} ({p.label})" if rep is not None
                else p.summary)},
            "partialFingerprints": {SARIF_FINGERPRINT: p.problem_id},
            "properties": {
                "count": p.count,
                "processes": len(p.processes),
                "tests": list(p.tests),
                "problemId": p.problem_id,
            },
        }
        if p.leak is not None:
            leak = p.leak
            lf = binding_frame(leak.stack)
            msg = f"created by {leak.function}"
            result["message"]["text"] = f"{p.summary}: {leak_seen(p)}"
            result["locations"] = ([sarif_location(lf, paths)]
                                   if lf is not None else [])
            result["stacks"] = [sarif_stack(msg, leak.stack, leak.thread,
                                            paths)]
            props = result["properties"]
            props["objectKind"] = leak.object_kind
            if leak.handle_type:
                props["handleType"] = leak.handle_type
            props["createdBy"] = leak.function
            results.append(result)
            continue
        if rep is None:
            result["locations"] = []
            results.append(result)
            continue
        if rep.note:
            result["message"]["text"] += f". {rep.note}"
        use_f = binding_frame(rep.use.stack)
        result["locations"] = ([sarif_location(use_f, paths)]
                               if use_f is not None else [])
        related = []
        flow = []  # (frame, what happened there), in time order
        stacks = []
        if rep.create is not None:
            cf = binding_frame(rep.create.stack)
            msg = f"created by {rep.create.function or '?'}"
            if cf is not None:
                related.append(sarif_location(cf, paths, msg, 2))
            flow.append((cf, msg))
            stacks.append(sarif_stack(msg, rep.create.stack,
                                      rep.create.thread, paths))
        if rep.free is not None:
            ff = binding_frame(rep.free.stack)
            msg = f"freed by {free_text(rep.free)}"
            if ff is not None:
                related.append(sarif_location(ff, paths, msg, 1))
            flow.append((ff, msg))
            stacks.append(sarif_stack(msg, rep.free.stack, rep.free.thread,
                                      paths))
        use_msg = f"used: {call_text(rep)}"
        flow.append((use_f, use_msg))
        stacks.append(sarif_stack(use_msg, rep.use.stack, rep.use.thread,
                                  paths))
        other_flow = None
        if rep.other is not None:
            of = binding_frame(rep.other.stack)
            msg = f"at the same time {other_text(rep.other)}"
            if of is not None:
                related.append(sarif_location(of, paths, msg, 3))
            other_flow = (of, msg)
            stacks.append(sarif_stack(msg, rep.other.stack, rep.other.thread,
                                      paths))
        related.sort(key=lambda l: l["id"])
        if related:
            result["relatedLocations"] = related
        thread_flows = [{"locations": [
            {"location": sarif_location(f, paths, msg)} for f, msg in flow]}]
        if other_flow is not None:
            # context-race: the other thread's call is a flow of its own.
            thread_flows.append({"locations": [
                {"location": sarif_location(other_flow[0], paths,
                                            other_flow[1])}]})
        result["codeFlows"] = [{
            "message": {"text": " -> ".join(
                msg.split(" ", 1)[0].rstrip(":") for _, msg in flow)},
            "threadFlows": thread_flows,
        }]
        result["stacks"] = stacks
        props = result["properties"]
        if rep.object_label:
            props["object"] = rep.object_label
        if rep.object_kind:
            props["objectKind"] = rep.object_kind
        if rep.handle_type:
            props["handleType"] = rep.handle_type
        if rep.first_seen_in:
            props["firstSeenIn"] = rep.first_seen_in
        if rep.other is not None:
            props["otherThread"] = rep.other.thread
            if rep.other.function:
                props["otherFunction"] = rep.other.function
        if rep.expected:
            props["expected"] = rep.expected
        results.append(result)
    driver = {"name": TOOL_NAME}
    if TOOL_INFO.get("tool_version"):
        driver["version"] = TOOL_INFO["tool_version"]
    home = TOOL_INFO.get("homepage") or doc_uri("README.md")
    if home:
        driver["informationUri"] = home
    driver["rules"] = rules
    run = {
        "tool": {"driver": driver},
        "automationDetails": {"id": automation_id(col, category)},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if col.blind_spots:
        # What the runs could not check: the tool's own notifications, so a
        # viewer shows that silence did not mean "checked".
        run["invocations"] = [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [
                {"level": "warning", "descriptor": {"id": what},
                 "message": {"text": f"not checked: {what} ({where}) in "
                             f"{plural(len(pids), 'process')}"},
                 "properties": {"object": where}}
                for (what, where), pids in sorted(col.blind_spots.items())]}]
    if paths.roots:
        root = paths.roots[0].rstrip("/") + "/"
        run["originalUriBaseIds"] = {
            SRCROOT: {"uri": "file://" + urllib.parse.quote(root, safe="/")}}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


# --- JUnit -------------------------------------------------------------------


def build_junit(problems, col, paths):
    n = len(problems)
    # A clean run still shows one (passing) case, so CI lists the check.
    tests = n if n else 1
    suites = ET.Element("testsuites", {
        "name": "ownsan", "tests": str(tests), "failures": str(n),
        "errors": "0", "skipped": "0", "time": "0"})
    suite = ET.SubElement(suites, "testsuite", {
        "name": "ownsan", "tests": str(tests), "failures": str(n),
        "errors": "0", "skipped": "0", "time": "0"})
    if not n:
        ET.SubElement(suite, "testcase", {
            "classname": "ownsan", "name": "no ownership problems",
            "time": "0"})
    used_names = set()
    for p in problems:
        classname = junit_classname(p.tests[0]) if p.tests else "ownsan"
        name = f"{p.kind} {without_addresses(p.label)}"
        if (classname, name) in used_names:
            name += f" [{p.problem_id}]"
        used_names.add((classname, name))
        case = ET.SubElement(suite, "testcase", {
            "classname": xml_text(classname), "name": xml_text(name),
            "time": "0"})
        failure = ET.SubElement(case, "failure", {
            "message": xml_text(summary_text(p, paths)),
            "type": xml_text(p.kind)})
        if p.leak is not None:
            text = leak_text(p, paths)
        elif p.report is not None and p.report.text:
            text = p.report.text
        else:
            text = p.summary + "\n"
        extra = [leak_seen(p) if p.leak is not None else
                 f"seen {plural(p.count, 'time')} in "
                 f"{plural(len(p.processes), 'process')}",
                 "tests: " + tests_text(p),
                 f"problem id: {p.problem_id}"]
        failure.text = xml_text(text.rstrip("\n") + "\n\n" +
                                "\n".join(extra) + "\n")
    ET.indent(suites)
    return ET.ElementTree(suites)


# --- HTML --------------------------------------------------------------------

CSS = """
*{box-sizing:border-box}
body{margin:0;padding:20px 28px;font:14px/1.45 "DejaVu Sans",Arial,sans-serif;
 color:#1d2330;background:#ffffff}
a{color:#1a56b0}
h1{font-size:20px;margin:4px 0 6px}
h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #d5d9e0;
 padding-bottom:3px}
h3{font-size:14px;margin:16px 0 6px}
.kindtag{display:inline-block;background:#1d2330;color:#ffffff;
 border-radius:4px;padding:1px 8px;margin-right:6px;font-size:15px}
.summary{font-family:"DejaVu Sans Mono",monospace;font-size:13px;
 color:#404858;margin:0 0 4px}
.nav{margin:0 0 6px;font-size:13px}
.chain{display:flex;flex-wrap:nowrap;align-items:stretch;margin:8px 0 4px}
.box{flex:1 1 0;min-width:0;border:2px solid #5f6b7a;border-radius:8px;
 padding:10px 10px 12px;overflow-wrap:anywhere}
.box .bkind{font-size:11px;text-transform:uppercase;letter-spacing:.06em;
 color:#4a5365}
.box .blabel{font-family:"DejaVu Sans Mono",monospace;font-size:13px;
 margin-top:2px}
.box.freed{border:5px solid #c62828}
.box.died{border:3px dashed #c62828}
.box.used{box-shadow:0 0 0 3px #1d2330}
.badge{display:inline-block;margin-top:6px;margin-right:4px;
 padding:0 6px;border-radius:3px;font-size:11px;font-weight:bold;
 color:#ffffff;background:#c62828}
.badge.usedb{background:#1d2330}
.badge.diedb{background:#ffffff;color:#c62828;border:1px solid #c62828}
.arrow{flex:0 0 34px;position:relative;align-self:center;height:16px}
.arrow::before{content:"";position:absolute;left:3px;right:11px;top:6px;
 height:4px;background:#5f6b7a}
.arrow::after{content:"";position:absolute;right:1px;top:0;
 border-left:11px solid #5f6b7a;border-top:8px solid transparent;
 border-bottom:8px solid transparent}
.relsep{flex:0 0 auto;align-self:center;margin:0 10px;padding:2px 0;
 font-size:11px;color:#566074;border-top:3px dotted #5f6b7a;
 border-bottom:3px dotted #5f6b7a}
.box.related{flex:1 1 0}
.legend{font-size:12px;color:#566074;margin:6px 0 0}
.timeline{display:flex;align-items:stretch;margin:6px 0}
.step{flex:1 1 0;min-width:0;border:1px solid #b8c0cc;border-radius:8px;
 padding:8px 10px;background:#f6f7f9;overflow-wrap:anywhere}
.step.freedstep{border-left:6px solid #c62828}
.step.usedstep{border-left:6px solid #1d2330}
.step.createdstep{border-left:6px solid #3d7a4a}
.step.otherstep{border-left:6px solid #8a5a00}
.step .stitle{font-weight:bold}
.step .where{font-family:"DejaVu Sans Mono",monospace;font-size:12px;
 color:#404858}
table{border-collapse:collapse}
table.facts td,table.facts th{padding:2px 10px 2px 0;vertical-align:top;
 text-align:left}
table.facts th{color:#566074;font-weight:normal;white-space:nowrap}
table.stack,table.list{width:100%;font-size:12.5px}
table.stack th,table.stack td,table.list th,table.list td{
 border:1px solid #d5d9e0;padding:3px 6px;text-align:left;vertical-align:top;
 overflow-wrap:anywhere}
table.stack th,table.list th{background:#eef0f3;white-space:nowrap}
table.stack td.nw,table.list td.nw{white-space:nowrap;overflow-wrap:normal}
table.stack td.mono,table.list td.mono{font-family:"DejaVu Sans Mono",
 monospace}
tr.binding td{background:#fff8dc;font-weight:bold}
pre{background:#f6f7f9;border:1px solid #d5d9e0;padding:10px;
 overflow-x:auto;font-size:12px;white-space:pre-wrap}
.muted{color:#6b7385}
.kindtag a{color:#ffffff}
"""


def kind_class(kind):
    return "kind-" + (re.sub(r"[^a-z0-9]+", "-", (kind or "object").lower())
                      .strip("-") or "object")


def chain_css():
    rules = [f".{kind_class(k)}{{background:{c}}}"
             for k, c in CHAIN_COLORS.items()]
    known = "".join(f":not(.{kind_class(k)})" for k in CHAIN_COLORS)
    rules.append(f".box{known}{{background:{CHAIN_OTHER_COLOR}}}")
    return "\n".join(rules)


def page(title, body, css=""):
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
            "<meta charset=\"utf-8\">\n"
            f"<title>{h(title)}</title>\n"
            f"<style>{CSS}\n{chain_css()}\n{css}</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n")


def page_name(problem_id):
    if re.fullmatch(r"[0-9A-Za-z-]{1,64}", problem_id):
        return f"problem-{problem_id}.html"
    return "problem_" + hashlib.sha256(
        problem_id.encode("utf-8", "replace")).hexdigest()[:16] + ".html"


def _names(target, label):
    """Does a free's target (a full label: 'function @f in module "m"')
    name the object with this (short or full) label?"""
    return target == label or target.startswith(label + " ")


def freed_index(rep):
    """Which link of the chain the free started at: the link the free's
    target names (the deepest, when several prefixes match), or the object
    itself when the free has no target (LLVM deleted it itself); None when
    the freed object is not in the chain (a builder's insertion point)."""
    if rep.free is None or not rep.chain:
        return None
    target = rep.free.target
    if target is None:
        return len(rep.chain) - 1
    for i, (_, label) in enumerate(rep.chain):
        if label == target:
            return i
    best = None
    for i, (_, label) in enumerate(rep.chain):
        if _names(target, label):
            best = i
    if best is None and rep.object_label and _names(target, rep.object_label):
        best = len(rep.chain) - 1
    return best


def html_box(kind, label, classes, badges):
    return (f'<div class="{" ".join(["box", kind_class(kind)] + classes)}">'
            f'<div class="bkind">{h(kind)}</div>'
            f'<div class="blabel">{h(label)}</div>{"".join(badges)}</div>')


def html_chain(rep):
    chain = list(rep.chain)
    if not chain:
        chain = [(rep.object_kind or "object",
                  rep.object_label or rep.handle or "object")]
        freed = (0 if rep.free is not None and (
            rep.free.target is None or not rep.object_label
            or _names(rep.free.target, rep.object_label)) else None)
    else:
        freed = freed_index(rep)
    arrow = '<div class="arrow" aria-hidden="true"></div>'
    parts = []
    last = len(chain) - 1
    for i, (kind, label) in enumerate(chain):
        classes = []
        badges = []
        if freed is not None and i == freed:
            classes.append("freed")
            badges.append('<span class="badge">freed</span>')
        elif freed is not None and i > freed:
            classes.append("died")
            badges.append('<span class="badge diedb">died with it</span>')
        if i == last:
            classes.append("used")
            badges.append('<span class="badge usedb">used</span>')
        if i:
            parts.append(arrow)
        parts.append(html_box(kind, label, classes, badges))
    legend = "Arrows point from owner to owned object"
    if freed is not None:
        legend += ("; the red box is the object whose free destroyed the "
                   "used one")
    legend += "; the dark outline is the object the handle names."
    if rep.related is not None:
        # The object the report also involves: a builder's freed insertion
        # point, or the live object that now has a stale handle's address.
        kind, label, identity = rep.related
        # A dangling insertion point's block is dead, whatever freed it.
        related_freed = rep.kind == "dangling-insertion-point" or (
            rep.free is not None and rep.free.target is not None
            and _names(rep.free.target, label))
        word = "insertion point" if rep.object_kind == "builder" else "related"
        parts.append('<div class="relsep">' + h(word) + "</div>")
        parts.append(html_box(
            kind, label + (f" ({identity})" if identity else ""),
            ["related"] + (["freed"] if related_freed else []),
            ['<span class="badge">freed</span>'] if related_freed else []))
        legend += (" The box after the gap is the " + h(word) +
                   " object" + (", freed" if related_freed else "") + ".")
    return (f'<div class="chain">{"".join(parts)}</div>'
            f'<p class="legend">{legend}</p>')


def html_where(frame, paths):
    if frame is None:
        return '<div class="where muted">no source frame</div>'
    return f'<div class="where">at {h(frame_where(frame, paths))}</div>'


def html_timeline(rep, paths):
    steps = []
    if rep.create is not None:
        steps.append(
            '<div class="step createdstep"><div class="stitle">1. created'
            f'</div><div>by {h(rep.create.function or "?")} on thread '
            f'{h(thread_name(rep.create.thread))}</div>'
            f'{html_where(binding_frame(rep.create.stack), paths)}</div>')
    elif rep.first_seen_in:
        steps.append('<div class="step createdstep"><div class="stitle">'
                     '1. created</div><div>outside the LLVM-C API</div>'
                     f'<div>first seen in a call to {h(rep.first_seen_in)}'
                     '</div></div>')
    else:
        steps.append('<div class="step createdstep"><div class="stitle">'
                      '1. created</div><div class="muted">outside the LLVM-C '
                      'API, or before ownsan saw it</div></div>')
    if rep.free is not None:
        cause = f"<div>{h(rep.free.cause)}</div>" if rep.free.cause else ""
        during = (f"<div>during {h(rep.free.during)}</div>"
                  if rep.free.during and rep.free.target else "")
        target = (f"{h(rep.free.function or '?')}({h(rep.free.target)})"
                  if rep.free.target else h(free_text(rep.free)))
        steps.append(
            '<div class="step freedstep"><div class="stitle">2. freed</div>'
            f'<div>by {target} on thread {h(thread_name(rep.free.thread))}'
            f'</div>{cause}{during}'
            f'{html_where(binding_frame(rep.free.stack), paths)}</div>')
    else:
        steps.append('<div class="step freedstep"><div class="stitle">'
                     '2. freed</div><div class="muted">no free recorded'
                     '</div></div>')
    note = f"<div>{h(rep.note)}</div>" if rep.note else ""
    steps.append(
        '<div class="step usedstep"><div class="stitle">3. used</div>'
        f'<div>{h(call_text(rep))} on thread {h(thread_name(rep.use.thread))}'
        f'</div>{note}{html_where(binding_frame(rep.use.stack), paths)}</div>')
    arrow = '<div class="arrow" aria-hidden="true"></div>'
    timeline = arrow.join(steps)
    if rep.other is not None:
        # context-race: the other thread's call, at the same time as the use.
        timeline += (
            '<div class="relsep">meanwhile</div>'
            '<div class="step otherstep"><div class="stitle">other thread'
            f'</div><div>{h(other_text(rep.other))}</div>'
            f'{html_where(binding_frame(rep.other.stack), paths)}</div>')
    return f'<div class="timeline">{timeline}</div>'


def html_stack(title, stack, paths):
    if not stack:
        return f"<h3>{h(title)}</h3><p class=\"muted\">no stack recorded</p>"
    bf = binding_frame(stack)
    rows = []
    for f in ownsan_frames.fold(stack, paths.fold):
        if isinstance(f, tuple):  # a run of the runner's frames
            rows.append(f'<tr class="folded"><td colspan="6" class="muted">'
                        f"... {f[0]} frames in {h(f[1])}</td></tr>")
            continue
        loc = ""
        if f.file:
            loc = paths.show(f.file)
            if f.line:
                loc += f":{f.line}" + (f":{f.column}" if f.column else "")
        cls = ' class="binding"' if f is bf else ""
        rows.append(
            f'<tr{cls}><td class="nw">#{f.index}</td>'
            f'<td class="nw">{h(f.language)}</td>'
            f'<td class="mono">{h(f.function or "<unknown>")}</td>'
            f'<td class="mono">{h(loc)}</td>'
            f'<td class="mono">{h(f.module or "")}</td>'
            f'<td class="mono nw">{h(f.pc or "")}</td></tr>')
    return (f"<h3>{h(title)}</h3><table class=\"stack\"><tr><th>#</th>"
            "<th>language</th><th>function</th><th>location</th>"
            "<th>module</th><th>pc</th></tr>" + "".join(rows) + "</table>")


def html_problem(p, col, paths, prev_link=None, next_link=None):
    rep = p.report
    title = f"ownsan: {p.kind} on {p.label}"
    body = [ownsan_pages.nav(prev_link, next_link),
            f'<h1><span class="kindtag">{kind_link(p.kind)}</span>'
            f'{h(p.label)}</h1>',
            f'<p class="summary">SUMMARY: {h(summary_text(p, paths))}</p>']
    facts = []
    leak = p.leak
    if leak is not None:
        body.append("<h2>Timeline</h2>")
        body.append(
            '<div class="timeline"><div class="step createdstep">'
            f'<div class="stitle">1. created</div><div>by '
            f'{h(leak.function)} on thread {h(thread_name(leak.thread))}'
            f'</div>{html_where(binding_frame(leak.stack), paths)}</div>'
            '<div class="arrow" aria-hidden="true"></div>'
            '<div class="step freedstep"><div class="stitle">2. never '
            'disposed</div><div>still alive when the process exited</div>'
            '</div></div>')
        facts.append(("objects", leak_objects(leak)))
        facts.append(("created by", leak.function))
    elif rep is not None:
        body.append("<h2>Ownership chain</h2>")
        body.append(html_chain(rep))
        body.append("<h2>Timeline</h2>")
        body.append(html_timeline(rep, paths))
        if rep.handle:
            facts.append(("handle", f"{rep.handle_type or ''} {rep.handle}"))
        if rep.identity:
            facts.append(("identity", rep.identity))
        facts.append(("call", call_text(rep)))
        if rep.note:
            facts.append(("note", rep.note))
        if rep.expected:
            facts.append(("expected", rep.expected))
        if rep.create is None and rep.first_seen_in:
            facts.append(("created", outside_text(rep)))
        if rep.other is not None:
            facts.append(("other thread", other_text(rep.other)))
    else:
        body.append('<p class="muted">This problem was only counted by an '
                    'exit summary (for example after max_reports); its '
                    'details are not in the logs.</p>')
    seen = (leak_seen(p) if leak is not None else
            f"{plural(p.count, 'time')} in "
            f"{plural(len(p.processes), 'process')}")
    facts.append(("leaked" if leak is not None else "seen", seen
                  + (f" (pids {', '.join(str(x) for x in p.pids)})"
                     if p.pids else "")))
    facts.append(("tests", ", ".join(p.tests) if p.tests else "(none named)"))
    facts.append(("problem id", p.problem_id))
    body.append("<h2>Facts</h2><table class=\"facts\">" + "".join(
        f"<tr><th>{h(k)}</th><td>{h(v)}</td></tr>" for k, v in facts)
        + "</table>")
    kind = kind_entry(p.kind)
    if kind is not None:
        body.append(
            f"<h2>What it means</h2><p>{h(kind['meaning'])}</p>"
            f"<p>{h(plain(kind['details']))}</p>"
            f"<h2>How to fix the binding</h2><p>{h(plain(kind['hint']))}</p>"
            f'<p class="muted">See {kind_link(p.kind)} ({h(KINDS_DOC)}#'
            f'{h(kind["doc_anchor"])})</p>')
    if leak is not None:
        body.append("<h2>Stacks</h2>")
        body.append(html_stack(
            f"1. created by {leak.function} on thread "
            f"{thread_name(leak.thread)}", leak.stack, paths))
        body.append(f"<h2>Report</h2><pre>{h(leak_text(p, paths))}</pre>")
    if rep is not None:
        # The use first, as a sanitizer prints it: where the program failed.
        body.append("<h2>Stacks</h2>")
        body.append(html_stack(
            f"3. used: {call_text(rep)} on thread "
            f"{thread_name(rep.use.thread)}", rep.use.stack, paths))
        if rep.free is not None:
            body.append(html_stack(
                f"2. freed by {free_text(rep.free)} on thread "
                f"{thread_name(rep.free.thread)}", rep.free.stack, paths))
        else:
            body.append("<h3>2. freed</h3><p class=\"muted\">no free "
                        "recorded</p>")
        if rep.create is not None:
            body.append(html_stack(
                f"1. created by {rep.create.function or '?'} on thread "
                f"{thread_name(rep.create.thread)}", rep.create.stack, paths))
        else:
            body.append("<h3>1. created</h3><p class=\"muted\">no creation "
                        f"recorded: {h(outside_text(rep))}</p>")
        if rep.other is not None:
            body.append(html_stack(
                f"meanwhile: {other_text(rep.other)}, entered at",
                rep.other.stack, paths))
        if rep.text:
            body.append(f"<h2>Report</h2><pre>{h(rep.text)}</pre>")
    return page(title, "\n".join(body))


def kind_link(kind):
    """The kind linking to its section of kinds.html (its doc section)."""
    k = kind_entry(kind)
    return ownsan_pages.kind_link(kind, k["doc_anchor"] if k else kind)


def html_kinds(problems):
    """kinds.html: each kind's documentation, anchored as in docs/reports.md
    (the kind list's text)."""
    entries = []
    names = list(KINDS) + [LEAK_KIND] + [p.kind for p in problems]
    for name in dict.fromkeys(names):
        k = kind_entry(name)
        if k is None:
            entries.append((name, name, f"ownsan reported {name}.", "", ""))
        else:
            entries.append((name, k["doc_anchor"], k["meaning"],
                            plain(k["details"]), plain(k["hint"])))
    return page("ownsan: error kinds", ownsan_pages.kinds_page_body(entries))


def html_index(problems, col, paths):
    filt = ownsan_pages.IndexFilter(problems)
    rows = []
    for n, p in enumerate(problems, 1):
        at = ""
        call = ""
        if p.report is not None:
            bf = binding_frame(p.report.use.stack)
            at = frame_where(bf, paths) if bf else ""
            call = p.report.call_function or ""
        elif p.leak is not None:
            bf = binding_frame(p.leak.stack)
            at = frame_where(bf, paths) if bf else ""
            call = p.leak.function
        rows.append(
            f'<tr class="{filt.row_class(p)}">'
            f"<td>{n}</td><td>{kind_link(p.kind)}</td>"
            f'<td><a href="{page_name(p.problem_id)}">{h(p.label)}</a></td>'
            f'<td class="mono nw">{h(call)}</td><td class="mono">{h(at)}</td>'
            f'<td class="nw">{p.count}</td>'
            f"<td>{h(', '.join(p.tests))}</td></tr>")
    head = (f"{len(problems)} distinct problems in {col.report_lines} reports "
            f"from {col.process_count} processes")
    body = [f"<h1>ownsan report</h1><p>{h(head)}</p>"]
    if rows:
        body.append(filt.controls())
        body.append(
            '<table class="list"><tr><th>#</th><th>kind</th><th>object</th>'
            "<th>call</th><th>at</th><th>count</th><th>tests</th></tr>"
            + "".join(rows) + "</table>")
    else:
        body.append("<p>No ownership problems were reported.</p>")
    if col.suppressed:
        body.append("<h2>Suppressed</h2><ul>" + "".join(
            f"<li>{h(pat)}: {c}</li>"
            for pat, c in sorted(col.suppressed.items())) + "</ul>")
    return page("ownsan report", "\n".join(body), filt.css())


# --- command line ------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see '{PROG} --help')")


def parse_args(argv):
    p = _Parser(prog=PROG, allow_abbrev=False,
                description="Merge, deduplicate and render ownsan JSON "
                "reports (files written with OWNSAN_OPTIONS="
                "report_format=json:log_path=DIR/ownsan).",
                epilog="Exit status: 1 if any problem was found (leaks "
                "included), 0 if none, 2 on usage errors, unreadable input "
                "or input holding no ownsan record.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a report file, or a directory searched for files "
                   "holding ownsan records")
    p.add_argument("--sarif", metavar="OUT.sarif",
                   help="write SARIF 2.1.0 (one result per problem)")
    p.add_argument("--junit", metavar="OUT.xml",
                   help="write JUnit XML (one failing case per problem)")
    p.add_argument("--html", metavar="OUTDIR",
                   help="write OUTDIR/index.html and one page per problem")
    p.add_argument("--source-root", metavar="DIR",
                   help="show source paths under DIR relative to it")
    p.add_argument("--all-frames", action="store_true",
                   help="show the test runner's and the interpreter's "
                   "frames in HTML stacks (folded by default)")
    p.add_argument("--category", metavar="NAME",
                   help="the SARIF run's category (automationDetails.id "
                   "ownsan/NAME/; default: llvm-N, the LLVM major of the "
                   "runtimes that wrote the logs)")
    return p.parse_intermixed_args(argv)


def holds_records(path):
    """Does the file hold a line that is an ownsan record? (A log given
    another name than ownsan.* by log_path; unreadable files hold none.)"""
    try:
        with open(path, "rb") as f:
            for raw in f:
                if b'"ownsan_' not in raw:
                    continue
                try:
                    obj = json.loads(raw.decode("utf-8", errors="replace"))
                except (ValueError, RecursionError):
                    continue
                if isinstance(obj, dict) and any(m in obj for m in
                                                 RECORD_MARKERS):
                    return True
    except OSError:
        pass
    return False


def collect_inputs(paths, skip):
    """The log files named by PATHs, as (path, sniff): files as given;
    directories searched recursively for regular files (not our own
    outputs), those not named ownsan.* to be read only if they hold an
    ownsan record."""
    files = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror or e}")
        if stat.S_ISDIR(st.st_mode):
            found = []
            for dirpath, dirnames, filenames in os.walk(
                    path, onerror=_walk_error):
                dirnames.sort()
                if os.path.realpath(dirpath) in skip:
                    dirnames[:] = []
                    continue
                for name in sorted(filenames):
                    full = os.path.join(dirpath, name)
                    try:
                        if not stat.S_ISREG(os.stat(full).st_mode):
                            continue
                    except OSError:
                        continue
                    if os.path.realpath(full) not in skip:
                        found.append((full, not name.startswith("ownsan.")))
            files.extend(found)
        elif stat.S_ISREG(st.st_mode):
            files.append((path, False))
        else:
            raise UsageError(f"cannot read {path}: not a regular file or "
                             "directory")
    seen = set()
    unique = []
    for f, sniff in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            unique.append((f, sniff))
    return unique


def _walk_error(e):
    raise UsageError(f"cannot read {e.filename}: {e.strerror or e}")


def _write(path, what, writer):
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            writer(f)
    except OSError as e:
        raise UsageError(f"cannot write {what} {path}: {e.strerror or e}")


def check_outputs(args):
    """Fails early (before reading any input) on outputs that cannot be
    written: a missing parent directory, a directory where a file goes, a
    file where the HTML directory goes."""
    for path, what in ((args.sarif, "SARIF"), (args.junit, "JUnit")):
        if not path:
            continue
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise UsageError(f"cannot write {what} {path}: No such file or "
                             "directory")
        if os.path.isdir(path):
            raise UsageError(f"cannot write {what} {path}: Is a directory")
    if args.html and os.path.exists(args.html) and \
            not os.path.isdir(args.html):
        raise UsageError(f"cannot write HTML to {args.html}: not a directory")


def write_outputs(args, problems, col, paths):
    if args.sarif:
        doc = build_sarif(problems, col, paths, args.category)
        _write(args.sarif, "SARIF",
               lambda f: (json.dump(doc, f, indent=2, ensure_ascii=False),
                          f.write("\n")))
    if args.junit:
        tree = build_junit(problems, col, paths)
        try:
            tree.write(args.junit, encoding="UTF-8", xml_declaration=True)
        except OSError as e:
            raise UsageError(f"cannot write JUnit {args.junit}: "
                             f"{e.strerror or e}")
    if args.html:
        try:
            os.makedirs(args.html, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot write HTML to {args.html}: "
                             f"{e.strerror or e}")
        if not os.path.isdir(args.html):
            raise UsageError(f"cannot write HTML to {args.html}: not a "
                             "directory")
        for i, p in enumerate(problems):
            link = lambda j: ((page_name(problems[j].problem_id),
                               f"{problems[j].kind} {problems[j].label}")
                              if 0 <= j < len(problems) else None)
            text = html_problem(p, col, paths, link(i - 1), link(i + 1))
            _write(os.path.join(args.html, page_name(p.problem_id)), "HTML",
                   lambda f, t=text: f.write(t))
        kinds = html_kinds(problems)
        _write(os.path.join(args.html, ownsan_pages.KINDS_PAGE), "HTML",
               lambda f: f.write(kinds))
        index = html_index(problems, col, paths)
        _write(os.path.join(args.html, "index.html"), "HTML",
               lambda f: f.write(index))


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    try:
        args = parse_args(argv)
        check_outputs(args)
        skip = set()
        for out in (args.sarif, args.junit, args.html):
            if out:
                skip.add(os.path.realpath(out))
        files = collect_inputs(args.paths, skip)
        col = Collector()
        if KINDS_PROBLEM:
            print(f"{PROG}: warning: {oneline(KINDS_PROBLEM)}",
                  file=sys.stderr)
        for f, sniff in files:
            col.read_file(f, sniff)
        if not col.records:
            # A CI gate must not pass on logs that were never written.
            raise UsageError(
                f"no ownsan record in {' '.join(args.paths)}: nothing was "
                "checked, or the logs are elsewhere (write them with "
                "OWNSAN_OPTIONS=report_format=json:log_path=DIR/NAME; a "
                "clean run leaves its exit summary there)")
        problems = col.finish()
        paths = Paths(args.source_root, fold=not args.all_frames)
        write_outputs(args, problems, col, paths)
    except UsageError as e:
        print(f"{PROG}: error: {oneline(str(e))}", file=sys.stderr)
        return 2
    terminal_summary(problems, col, paths, sys.stdout)
    sys.stdout.flush()
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `ownsan report ... | head`: stop quietly; stdout goes nowhere now.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
