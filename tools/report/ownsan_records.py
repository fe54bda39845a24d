# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The input of `ownsan report`: each line of a log read and validated
into a Report, the Leak groups of a leak record or an exit summary (a field
of the wrong type is absent; a line that is no record is skipped with a
warning), and the Collector that merges the records of every process into
deduplicated, counted Problems."""

import hashlib
import json
import os
import re
import sys

from ownsan_frames import binding_frame, is_internal
from ownsan_kinds import LEAK_KIND
from ownsan_text import Paths, frame_where, oneline

PROG = "ownsan report"
MAX_WARNINGS_PER_FILE = 20

# The keys that mark a line as an ownsan record.
RECORD_MARKERS = ("ownsan_report", "ownsan_summary", "ownsan_blind_spot",
                  "ownsan_leaks")


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


class UsageError(Exception):
    """Exit status 2 with a one-line message."""


class Malformed(Exception):
    """A line that is not a valid ownsan record."""


class PartlyMalformed(Exception):
    """A record that was read, but with parts that had to be ignored."""


# --- fields ------------------------------------------------------------------

_SURROGATES = re.compile("[\ud800-\udfff]")


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
