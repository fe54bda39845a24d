#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One test per OWNSAN_OPTIONS option, against real programs.

    check_options.py --case OPTION --ownsan OWNSAN --program OPTS_PROG
                     --python-program OPTS_PY --docs docs/reports.md
                     --flags-inc src/runtime/flags.inc
                     [--lifetime LIFETIME] [--symbolizer LLVM_SYMBOLIZER]

OPTS_PROG is tests/options/opts_prog.c built (modes clean, multi, suppress,
leak, deep, nofp, invalid; see its banner); OPTS_PY is tests/options/
opts_py.py, a ctypes program with one use-after-free (env
OWNSAN_TEST_LIBLLVM names the libLLVM); opts_fork.py reports on both sides
of a fork(). LIFETIME (tests/lifetime built) supplies the error kind and
the optional fields opts_prog does not make, for report_format=json.

CASE is an option of src/runtime/flags.inc, or `malformed` (every kind of
bad OWNSAN_OPTIONS value, and a check that every option has a case here).
Prints one line per assertion and a final "N passed, M failed" line; exits
non-zero when anything failed.
"""

import argparse
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import time

from ownsan_testing import (Checker, FormatError, clean_env, list_cases,
                            marker_line, ownsan_lines, parse_exit_summaries,
                            parse_json_lines, parse_leak_reports,
                            parse_reports, parse_suppressions_used, run)

HERE = os.path.dirname(os.path.abspath(__file__))
OPTS_PROG_C = os.path.join(HERE, "opts_prog.c")
OPTS_PY = os.path.join(HERE, "opts_py.py")
ERROR_LINE_RE = r"==(\d+)==ERROR: OwnSan: .+"

# The four distinct problems of `opts_prog multi`, in order:
# (kind, LLVM-C function, step function, occurrences)
MULTI = [
    ("use-after-free", "LLVMGetValueName2", "use_name", 3),
    ("use-after-free", "LLVMCountBasicBlocks", "use_block_count", 1),
    ("double-free", "LLVMDisposeModule", "dispose_module_again", 1),
    ("double-free", "LLVMDisposeBuilder", "dispose_builder_again", 1),
]
FIRST_MISUSE = "use_name: LLVMGetValueName2(@f)"


class Ctx:
    def __init__(self, args, c):
        self.a = args
        self.c = c
        self.tmp = tempfile.mkdtemp(prefix="ownsan-options-")

    def env(self, options=None, **more):
        return clean_env(OWNSAN_OPTIONS=options, **more)

    def prog(self, mode, options=None, before_exec=None, **more):
        return run([self.a.ownsan, "run", "--", self.a.program, mode],
                   env=self.env(options, **more), before_exec=before_exec)

    def py(self, options=None):
        return run([self.a.ownsan, "run", "--", sys.executable,
                    self.a.python_program],
                   env=self.env(options))

    def plain(self, mode):
        return run([self.a.program, mode], env=clean_env())

    def reports(self, text, what, r=None):
        try:
            return parse_reports(text, require_functions=True)
        except FormatError as e:
            self.c.check(False, f"{what}: the reports follow the text format "
                         f"({e})", r)
            return []


# --- Shared checks --------------------------------------------------------------

def check_malformed(x, options, key, what=None):
    """`options` must stop `opts_prog clean` before it runs: exit 1, empty
    stdout, exactly one stderr line "==PID==ERROR: OwnSan: ..." naming
    `key`."""
    c = x.c
    what = what or f"OWNSAN_OPTIONS={options!r}"
    r = x.prog("clean", options)
    c.equal(r.returncode, 1, f"{what}: exits 1", r)
    c.equal(r.out, "", f"{what}: the program does not run (empty stdout)", r)
    lines = r.err.splitlines()
    one = len(lines) == 1 and re.fullmatch(ERROR_LINE_RE, lines[0])
    c.check(one and int(one.group(1)) == r.pid,
            f"{what}: stderr is exactly one '=={r.pid}==ERROR: OwnSan: ...' "
            f"line", r)
    if key:
        c.check(f"'{key}'" in r.err, f"{what}: the line names '{key}'", r)


def check_clean_unchanged(x, options, what):
    """`opts_prog clean` under `options` prints exactly what it prints
    without ownsan, exits 0, and says nothing on stderr."""
    plain = x.plain("clean")
    r = x.prog("clean", options)
    x.c.check(r.returncode == 0 and r.out == plain.out and r.err == "",
              f"{what}: a clean program runs as without ownsan (exit 0, same "
              f"stdout, empty stderr)", r)


def check_halted_at_first(x, r, what):
    """The run stopped at its first misuse with one report."""
    c = x.c
    out = r.out.splitlines()
    c.check(out and out[-1] == FIRST_MISUSE,
            f"{what}: the program stopped at its first misuse (last stdout "
            f"line {FIRST_MISUSE!r})", r)
    reps = x.reports(r.err, what, r)
    c.equal(len(reps), 1, f"{what}: exactly one report", r)
    c.check(not parse_exit_summaries(r.err),
            f"{what}: no exit summary (the process ended at the report)", r)


def check_multi_continued(x, r, what, printed=4, exitcode=1):
    """`opts_prog multi` under halt_on_error=0: ran to the end, each
    offending call returned NULL/0, `printed` reports (the first ones of
    MULTI), a summary with every problem and its count."""
    c = x.c
    out = r.out.splitlines()
    c.equal(r.returncode, exitcode, f"{what}: exit status {exitcode}", r)
    c.check("multi: done" in out,
            f"{what}: the run went on past every bug ('multi: done')", r)
    c.equal(out.count("use_name: returned NULL"), 3,
            f"{what}: the three LLVMGetValueName2 calls on a freed function "
            f"returned NULL", r)
    c.check("use_block_count: returned 0" in out,
            f"{what}: LLVMCountBasicBlocks on a freed function returned 0 "
            f"(it returned 1 before the free)",
            r)
    c.check("multi: @f has 1 block(s)" in out,
            f"{what}: (the function had one block while alive)", r)
    reps = x.reports(r.err, what, r)
    want = MULTI[:printed]
    c.equal([(p.kind, p.sections.get("use") and
              p.sections["use"].heading.split(" of ")[1].split(" on ")[0])
             for p in reps], [(k, f) for k, f, _, _ in want],
            f"{what}: {printed} report(s), one per distinct problem, in "
            f"order (kind, LLVM-C function)", r)
    for rep, (kind, fn, step, _) in zip(reps, want):
        c.check(rep.stack("use") and rep.stack("use")[0].function == step,
                f"{what}: the {kind} in {fn} names {step} as its use site",
                rep.text)
        c.equal(rep.pid, r.pid, f"{what}: the {fn} report carries the "
                f"program's pid", rep.text)
    sums = parse_exit_summaries(r.err)
    ok = c.equal(len(sums), 1, f"{what}: one exit summary", r)
    if ok:
        s = sums[0]
        c.equal(s.pid, r.pid, f"{what}: the summary carries the pid", r)
        c.equal(s.distinct, len(MULTI),
                f"{what}: the summary counts {len(MULTI)} distinct problems",
                r)
        c.equal([n for n, _ in s.problems], [n for _, _, _, n in MULTI],
                f"{what}: each problem listed with its count (3, 1, 1, 1)", r)
        for (n, text), (kind, fn, step, _) in zip(s.problems, MULTI):
            c.check(text.startswith(f"{kind} in {fn} ") and f" in {step}"
                    in text, f"{what}: summary line '{n}x {text}' is the "
                    f"{kind} in {fn} at {step}", r)
        c.equal((s.total_distinct, s.total_occurrences), (4, 6),
                f"{what}: 'SUMMARY: OwnSan: 4 distinct problem(s), 6 "
                f"occurrence(s)'", r)
        by_summary = {rep.summary for rep in reps}
        c.check(all(text in by_summary for _, text in s.problems[:printed]),
                f"{what}: the summary lines repeat the reports' SUMMARY "
                f"lines", r)


# --- The cases --------------------------------------------------------------------

def case_halt_on_error(x):
    c = x.c
    r = x.prog("multi")
    c.equal(r.returncode, -signal.SIGABRT,
            "default (halt_on_error=1): the first report aborts", r)
    check_halted_at_first(x, r, "default (halt_on_error=1)")
    r = x.prog("multi", "halt_on_error=1:abort_on_error=0")
    c.equal(r.returncode, 1, "halt_on_error=1:abort_on_error=0: exit 1", r)
    check_halted_at_first(x, r, "halt_on_error=1")

    r = x.prog("multi", "halt_on_error=0")
    check_multi_continued(x, r, "halt_on_error=0")
    r = x.prog("multi", "halt_on_error=false:exitcode=7")
    check_multi_continued(x, r, "halt_on_error=false:exitcode=7", exitcode=7)
    check_clean_unchanged(x, "halt_on_error=0", "halt_on_error=0")
    check_malformed(x, "halt_on_error=yes", "halt_on_error")
    check_malformed(x, "halt_on_error=", "halt_on_error")


def case_abort_on_error(x):
    c = x.c
    r = x.prog("multi", "abort_on_error=1")
    c.equal(r.returncode, -signal.SIGABRT, "abort_on_error=1: abort()", r)
    r = x.prog("multi", "abort_on_error=0")
    c.equal(r.returncode, 1, "abort_on_error=0: exit status 1 (exitcode's "
            "default)", r)
    check_halted_at_first(x, r, "abort_on_error=0")
    r = x.prog("multi", "abort_on_error=0:exitcode=42")
    c.equal(r.returncode, 42, "abort_on_error=0:exitcode=42: exit status 42",
            r)
    check_halted_at_first(x, r, "abort_on_error=0:exitcode=42")
    r = x.prog("multi", "abort_on_error=0 exitcode=43")
    c.equal(r.returncode, 43, "items separated by a space: exit status 43", r)
    check_malformed(x, "abort_on_error=2", "abort_on_error")


def case_exitcode(x):
    c = x.c
    r = x.prog("multi", "abort_on_error=0:exitcode=3")
    c.equal(r.returncode, 3, "exitcode=3 when halting without abort", r)
    r = x.prog("multi", "halt_on_error=0:exitcode=4")
    c.equal(r.returncode, 4, "exitcode=4 at exit after reports in continue "
            "mode", r)
    c.check("multi: done" in r.out, "exitcode=4: (the run went to the end)", r)
    r = x.prog("leak", "report_leaks=1:exitcode=5")
    c.equal(r.returncode, 5, "exitcode=5 at exit after a leak report", r)
    r = x.prog("clean", "exitcode=6:halt_on_error=0:report_leaks=1")
    c.equal(r.returncode, 0, "exitcode=6: a clean program still exits 0", r)
    r = x.prog("multi", "abort_on_error=0:exitcode=255")
    c.equal(r.returncode, 255, "exitcode=255 is honoured", r)
    # An exit status is 8 bits: 256 would end a run with problems with
    # status 0, and so would 0 itself.
    for bad in ("0", "256", "-1", "511"):
        check_malformed(x, f"exitcode={bad}", "exitcode")
        r = x.prog("clean", f"exitcode={bad}")
        c.check(f"invalid value '{bad}' for option 'exitcode' in "
                f"OWNSAN_OPTIONS (expected int 1-255)" in r.err,
                f"exitcode={bad}: the line gives the range 1-255", r)
    check_malformed(x, "exitcode=abc", "exitcode")
    check_malformed(x, "exitcode=1.5", "exitcode")


def log_files(d):
    return sorted(os.listdir(d))


def case_log_path(x):
    c = x.c
    # A fresh directory: PATH.PID is created and holds every report and the
    # summary; stderr stays free of OwnSan.
    d = os.path.join(x.tmp, "log1")
    os.mkdir(d)
    base = os.path.join(d, "ownsan")
    r = x.prog("multi", f"halt_on_error=0:log_path={base}")
    path = f"{base}.{r.pid}"
    c.equal(log_files(d), [f"ownsan.{r.pid}"],
            "log_path: exactly one file, PATH.PID (the program's pid)", r)
    c.equal(ownsan_lines(r.err), [], "log_path: nothing of OwnSan on stderr",
            r)
    c.equal(r.returncode, 1, "log_path: the exit status is unchanged", r)
    if os.path.exists(path):
        text = open(path, encoding="utf-8").read()
        reps = x.reports(text, "log_path file")
        c.equal(len(reps), 4, "log_path: the file holds the 4 reports", text)
        sums = parse_exit_summaries(text)
        c.check(len(sums) == 1 and sums[0].total_occurrences == 6,
                "log_path: the file holds the exit summary", text)
        mode = stat.S_IMODE(os.stat(path).st_mode)
        c.check(not mode & 0o022, f"log_path: the file is not group/world "
                f"writable (mode {mode:o})")
        c.check(stat.S_ISREG(os.lstat(path).st_mode),
                "log_path: the file is a regular file")

    # Halting mode writes the one report to the file too.
    r = x.prog("multi", f"abort_on_error=0:log_path={base}")
    p2 = f"{base}.{r.pid}"
    c.check(os.path.exists(p2) and len(x.reports(open(p2).read(),
                                                 "halted log")) == 1,
            "log_path with halting: the report is in PATH.PID", r)
    c.equal(ownsan_lines(r.err), [], "log_path with halting: stderr is "
            "free of OwnSan", r)

    # A clean program leaves no file behind.
    d = os.path.join(x.tmp, "log_clean")
    os.mkdir(d)
    r = x.prog("clean", f"log_path={d}/ownsan")
    c.equal(log_files(d), [], "log_path: a clean run creates no file", r)

    # An existing file is not clobbered.
    d = os.path.join(x.tmp, "log_exists")
    os.mkdir(d)
    precious = "precious data\n"

    def pre_create(pid):
        with open(f"{d}/ownsan.{pid}", "w") as f:
            f.write(precious)
    r = x.prog("multi", f"halt_on_error=0:log_path={d}/ownsan",
               before_exec=pre_create)
    target = f"{d}/ownsan.{r.pid}"
    c.equal(open(target).read(), precious,
            "log_path: an existing PATH.PID is left untouched", r)
    check_fallback(x, r, target, "log_path onto an existing file")

    # A symlink at PATH.PID is not followed (neither to a missing target nor
    # to an existing file).
    for dangling in (True, False):
        d = os.path.join(x.tmp, "log_symlink_" + ("dangling" if dangling
                                                  else "file"))
        os.mkdir(d)
        victim = os.path.join(d, "victim")
        if not dangling:
            with open(victim, "w") as f:
                f.write(precious)

        def pre_link(pid, d=d, victim=victim):
            os.symlink(victim, f"{d}/ownsan.{pid}")
        r = x.prog("multi", f"halt_on_error=0:log_path={d}/ownsan",
                   before_exec=pre_link)
        what = ("log_path onto a symlink to a missing file" if dangling
                else "log_path onto a symlink to a file")
        if dangling:
            c.check(not os.path.exists(victim),
                    f"{what}: the symlink's target is not created", r)
        else:
            c.equal(open(victim).read(), precious,
                    f"{what}: the target is untouched", r)
        c.check(os.path.islink(f"{d}/ownsan.{r.pid}"),
                f"{what}: the symlink is left in place", r)
        check_fallback(x, r, f"{d}/ownsan.{r.pid}", what)

    # Directories where no file can be made.
    bad_dirs = [os.path.join(x.tmp, "no_such_dir")]
    f = os.path.join(x.tmp, "a_file")
    open(f, "w").close()
    bad_dirs.append(f)  # a path below a regular file
    if os.geteuid() != 0:
        ro = os.path.join(x.tmp, "read_only")
        os.mkdir(ro, 0o555)
        bad_dirs.append(ro)
    elif os.path.isdir("/sys"):
        bad_dirs.append("/sys")  # nobody, root included, creates files there
    for bad in bad_dirs:
        r = x.prog("multi", f"halt_on_error=0:log_path={bad}/ownsan")
        check_fallback(x, r, f"{bad}/ownsan.{r.pid}",
                       f"log_path in unwritable directory {bad}")
    # fork() without exec: the child reports too, and ends normally.
    d = os.path.join(x.tmp, "log_fork")
    os.mkdir(d)
    r = run([x.a.ownsan, "run", "--", sys.executable,
             os.path.join(HERE, "opts_fork.py")],
            env=x.env(f"halt_on_error=0:log_path={d}/ownsan"))
    m = re.search(r"^child status (-?\d+)$", r.out, re.M)
    status = int(m[1]) if m else None
    c.check(status is not None and os.WIFEXITED(status) and
            os.WEXITSTATUS(status) == 1,
            "fork: the child exits normally with exitcode 1 (its own report "
            "counted), not killed by a signal",
            f"wait status {status}\n" + r.describe())
    text = "".join(open(os.path.join(d, f)).read() for f in log_files(d))
    kinds = sorted(rep.handle_type for rep in x.reports(text, "fork logs"))
    c.equal(kinds, ["LLVMBuilderRef", "LLVMModuleRef"],
            "fork: the parent's and the child's reports are both logged",
            text + r.describe())
    check_malformed(x, "log_path", "log_path",
                    "OWNSAN_OPTIONS='log_path' (no '=')")


def case_log_path_streams(x):
    """log_path=stderr / stdout name the streams (as in the sanitizers):
    no file is made, the reports and the summary go to that stream."""
    c = x.c
    for stream in ("stderr", "stdout"):
        d = os.path.join(x.tmp, f"cwd_{stream}")
        os.mkdir(d)
        r = run([x.a.ownsan, "run", "--", x.a.program, "multi"], cwd=d,
                env=x.env(f"halt_on_error=0:log_path={stream}"))
        what = f"log_path={stream}"
        c.equal(log_files(d), [], f"{what}: no file is made (not even "
                f"{stream}.PID in the working directory)", r)
        text, other = (r.err, r.out) if stream == "stderr" else (r.out, r.err)
        errors = [l for l in text.splitlines() if "==ERROR: OwnSan:" in l]
        c.equal(len(errors), 4, f"{what}: the 4 reports go to {stream}", r)
        c.check("SUMMARY: OwnSan: 4 distinct problem(s), 6 occurrence(s)"
                in text, f"{what}: the exit summary goes to {stream}", r)
        c.equal(ownsan_lines(other), [], f"{what}: nothing of OwnSan on the "
                "other stream", r)
        c.equal(r.returncode, 1, f"{what}: exit status 1", r)


def case_separators(x):
    """OWNSAN_OPTIONS items are separated as compiler-rt's flag parser
    separates ASAN_OPTIONS (FlagParser::is_space): ':', ',', space, tab,
    newline, carriage return; a value may be quoted with ' or "."""
    c = x.c
    for opts in ("halt_on_error=0,abort_on_error=0,exitcode=7",
                 "halt_on_error=0 exitcode=7",
                 "halt_on_error=0\texitcode=7\r\n",
                 ",, halt_on_error=0,:exitcode=7,"):
        r = x.prog("multi", opts)
        c.check(r.returncode == 7 and "multi: done" in r.out,
                f"OWNSAN_OPTIONS={opts!r}: both items are read (the run "
                "goes on, exit status 7)", r)
    d = os.path.join(x.tmp, "a:b,c d")
    os.mkdir(d)
    for q in ("'", '"'):
        r = x.prog("multi", f"halt_on_error=0,log_path={q}{d}/o{q},"
                   "exitcode=5")
        c.check(log_files(d) == [f"o.{r.pid}"] and r.returncode == 5,
                f"a value quoted with {q} holds ':', ',' and ' ' (log_path "
                f"{d}/o), and the next item is read", r)
        for f in log_files(d):
            os.remove(os.path.join(d, f))
    check_malformed(x, "log_path='/tmp/x", "log_path",
                    "an unterminated quoted value")
    check_malformed(x, "halt_on_error=0,bogus", "bogus",
                    "an item without '=' after a comma")
    check_malformed(x, "exitcode=\"1\n2\"", "exitcode",
                    "a quoted value with a newline (one line)")


def check_fallback(x, r, path, what):
    """Reports went to stderr after one warning line naming `path`."""
    c = x.c
    lines = r.err.splitlines()
    warn = [l for l in lines if "WARNING: OwnSan:" in l]
    c.check(len(warn) == 1 and re.fullmatch(
        rf"=={r.pid}==WARNING: OwnSan: cannot create log file "
        rf"{re.escape(path)}: .+; writing reports to stderr", warn[0]),
        f"{what}: one warning line on stderr naming {path}", r)
    c.check(lines and lines[0] in warn,
            f"{what}: the warning comes before the first report", r)
    c.equal(len(x.reports(r.err, what, r)), 4,
            f"{what}: the 4 reports fall back to stderr", r)
    c.check(len(parse_exit_summaries(r.err)) == 1,
            f"{what}: the exit summary falls back to stderr", r)
    c.equal(r.returncode, 1, f"{what}: exit status 1", r)
    c.check("multi: done" in r.out, f"{what}: the program ran on", r)


# --- JSON -------------------------------------------------------------------------

def doc_fields(docs, heading):
    """{path: type} from the table under `### heading` in docs/reports.md."""
    fields = {}
    inside = False
    with open(docs, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip() == f"### {heading}"
                continue
            m = inside and re.match(r"\| `([^`]+)` \| ([^|]+?) \|", line)
            if m:
                fields[m[1]] = m[2].strip()
    return fields


TYPE_CHECKS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def type_ok(doc_type, value):
    """doc_type: "string", "integer or null", "array of frames", ..."""
    kinds = [t.strip().split()[0] for t in doc_type.split(" or ")]
    return any(TYPE_CHECKS.get(k, lambda v: False)(value) for k in kinds)


def flatten(obj, prefix="", out=None):
    """{path: [values]} for every key below `obj` (lists as "[]")."""
    out = {} if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}.{k}" if prefix else k
            out.setdefault(p, []).append(v)
            flatten(v, p, out)
    elif isinstance(obj, list):
        for v in obj:
            flatten(v, prefix + "[]", out)
    return out


def check_json_schema(x, objects, heading, what):
    """Every field of `objects` is documented under `### heading` with its
    type, and every documented field is present unless its parent is null
    or an empty array in all of them."""
    c = x.c
    doc = doc_fields(x.a.docs, heading)
    frame_doc = doc_fields(x.a.docs, "Frame objects")
    if not c.check(doc, f"{what}: docs/reports.md has a '### {heading}' "
                   f"field table"):
        return
    # Expand "array of frames" fields with the frame table.
    for path, t in list(doc.items()):
        if t.startswith("array of frames"):
            for fp, ft in frame_doc.items():
                doc[f"{path}[].{fp}"] = ft
    seen = {}
    for o in objects:
        for p, vs in flatten(o).items():
            seen.setdefault(p, []).extend(vs)
    undocumented = sorted(p for p in seen if p not in doc)
    c.equal(undocumented, [], f"{what}: every field written is documented")
    wrong = sorted(p for p, vs in seen.items() if p in doc
                   and not all(type_ok(doc[p], v) for v in vs))
    c.equal(wrong, [], f"{what}: every field has its documented type",
            {p: (doc[p], seen[p][:3]) for p in wrong})

    def reachable(p):
        # The parent of p was present and non-null/non-empty somewhere.
        parent = re.sub(r"(\[\])?\.[^.]+$", "", p) if "." in p else ""
        if not parent:
            return True
        vals = seen.get(parent, [])
        return any(v not in (None, []) for v in vals)
    missing = sorted(p for p in doc if p not in seen and reachable(p))
    c.equal(missing, [], f"{what}: every documented field is written")


def case_report_format(x):
    c = x.c
    r = x.prog("multi", "halt_on_error=0:report_format=json")
    objs = parse_json_lines(x.c, r.err, "report_format=json", r)
    reports = [o for o in objs if o.get("ownsan_report") == 1]
    sums = [o for o in objs if o.get("ownsan_summary") == 1]
    c.equal(len(reports) + len(sums), len(objs),
            "report_format=json: only report and summary objects", r)
    c.equal([(o["kind"], o["call"]["function"]) for o in reports],
            [(k, f) for k, f, _, _ in MULTI],
            "report_format=json: one report object per distinct problem", r)
    c.check(all(o["pid"] == r.pid for o in objs),
            "report_format=json: every object carries the program's pid", r)
    c.check(all(re.fullmatch(r"[0-9a-f]{16}", o["problem_id"])
                for o in reports), "report_format=json: problem ids are 16 "
            "hex digits", r)
    c.check(all(o["text"].startswith(f"=={r.pid}==ERROR: OwnSan: {o['kind']} "
                                      f"on {o['handle_type']} {o['handle']} ")
                and o["text"].endswith(f"SUMMARY: OwnSan: {o['summary']}\n")
                for o in reports),
            "report_format=json: 'text' is the whole text report", r)
    c.check(all(o["use"]["stack"] and o["use"]["stack"][0]["function"] == step
                for o, (_, _, step, _) in zip(reports, MULTI)),
            "report_format=json: use.stack[0] is each problem's use site", r)
    src_line = marker_line(OPTS_PROG_C, "LLVMGetValueName2(fn, &len)")
    f0 = reports[0]["use"]["stack"][0] if reports else {}
    c.check(f0.get("file", "").endswith("opts_prog.c") and
            f0.get("line") == src_line and f0.get("language") == "native",
            f"report_format=json: the first frame is opts_prog.c:{src_line}",
            f0)
    if c.equal(len(sums), 1, "report_format=json: one summary object at "
               "exit", r):
        s = sums[0]
        c.equal([(p["kind"], p["count"]) for p in s["problems"]],
                [(k, n) for k, _, _, n in MULTI],
                "report_format=json: the summary counts each problem", s)
        c.equal([p["problem_id"] for p in s["problems"]],
                [o["problem_id"] for o in reports],
                "report_format=json: the summary's problem ids are the "
                "reports'", s)
        c.equal((s["suppressed"], s["leaked"], s["exitcode"]), ([], 0, 1),
                "report_format=json: suppressed [], leaked 0, exitcode 1", s)
        c.check(objs and objs[-1] is s, "report_format=json: the summary is "
                "the last line", r)
    check_json_schema(x, reports, "Report objects",
                      "report_format=json report objects")
    check_json_schema(x, sums, "Summary object",
                      "report_format=json summary object")

    # The same problems get the same ids in another process.
    r2 = x.prog("multi", "halt_on_error=0:report_format=json")
    ids2 = [o.get("problem_id") for o in parse_json_lines(x.c, r2.err,
                                                           "second run")
            if o.get("ownsan_report")]
    c.equal(ids2, [o["problem_id"] for o in reports],
            "report_format=json: problem ids are stable across processes")

    # Every error kind, and the optional fields (note, free.during, related).
    more = []
    extra_runs = [([x.a.program, "invalid"], "")]
    if x.a.lifetime:
        extra_runs += [([x.a.lifetime, "builder_block_deleted"], ""),
                       ([x.a.lifetime, "pass_dce"], ""),
                       ([x.a.lifetime, "reuse_other_kind"],
                        ":quarantine_size_mb=0")]
    for i, (cmd, opt) in enumerate(extra_runs):
        # These programs print their own lines on stderr: log to a file.
        d = os.path.join(x.tmp, f"kinds{i}")
        os.mkdir(d)
        rr = run([x.a.ownsan, "run", "--"] + cmd,
                 env=x.env(f"halt_on_error=0:report_format=json:"
                           f"log_path={d}/o" + opt))
        text = "".join(open(os.path.join(d, f)).read() for f in log_files(d))
        objs = parse_json_lines(x.c, text, " ".join(cmd[1:]), rr)
        c.check(objs, f"{' '.join(cmd[1:])}: reports were written", rr)
        more += [o for o in objs if o.get("ownsan_report")]
    kinds = {o["kind"] for o in reports + more}
    c.equal(sorted(kinds), sorted(["use-after-free", "double-free",
                                   "invalid-free",
                                   "dangling-insertion-point"]),
            "report_format=json: the four error kinds these programs "
            "make are all seen")
    c.check(any(o["note"] for o in more), "(a report with a note)")
    c.check(any(o["free"] and o["free"]["during"] for o in more),
            "(a report with free.during)")
    c.check(any(o["related"] for o in more), "(a report with related)")
    check_json_schema(x, reports + more, "Report objects",
                      "report_format=json, all error kinds")

    # log_path + json: the file is JSON Lines too.
    d = os.path.join(x.tmp, "jsonlog")
    os.mkdir(d)
    r = x.prog("multi", f"halt_on_error=0:report_format=json:log_path={d}/o")
    files = log_files(d)
    if c.equal(files, [f"o.{r.pid}"], "report_format=json:log_path: one "
               "file", r):
        objs = parse_json_lines(x.c, open(os.path.join(d, files[0])).read(),
                                "report_format=json:log_path file")
        c.equal(len(objs), 5, "report_format=json:log_path: 4 reports and "
                "the summary in the file")
    c.equal(r.err, "", "report_format=json:log_path: stderr is empty", r)

    # Leaks with JSON: the log must stay JSON Lines.
    r = x.prog("leak", "report_leaks=1:report_format=json")
    parse_json_lines(x.c, r.err, "report_format=json:report_leaks=1", r)

    # Halting mode prints the one report as JSON, no summary.
    r = x.prog("multi", "abort_on_error=0:report_format=json")
    objs = parse_json_lines(x.c, r.err, "report_format=json, halting", r)
    c.equal([("ownsan_report" in o) for o in objs], [True],
            "report_format=json, halting: one report object, no summary", r)

    r = x.prog("multi", "halt_on_error=0:report_format=text")
    c.equal(len(x.reports(r.err, "report_format=text", r)), 4,
            "report_format=text: text reports", r)
    check_clean_unchanged(x, "report_format=json", "report_format=json")
    check_malformed(x, "report_format=xml", "report_format")
    check_malformed(x, "report_format=JSON", "report_format")


# --- Suppressions -------------------------------------------------------------------

SUPPRESS_STEPS = ["kind_in_main_file", "kind_in_other_file",
                  "opts_helper_value_kind"]


def supp_file(x, name, text):
    path = os.path.join(x.tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_suppressed(x, rules_text, silenced, used, what, json_too=True):
    """`opts_prog suppress` with a file of `rules_text`: the steps in
    `silenced` are not reported (their call goes through), the others are;
    the rules used are listed at exit as `used` [(count, "type:pattern")]."""
    c = x.c
    path = supp_file(x, f"supp{abs(hash(rules_text))}.txt", rules_text)
    r = x.prog("suppress", f"halt_on_error=0:suppressions={path}")
    reps = x.reports(r.err, what, r)
    reported = [rep.stack("use")[0].function for rep in reps
                if rep.stack("use")]
    want = [s for s in SUPPRESS_STEPS if s not in silenced]
    c.equal(reported, want, f"{what}: reported: {want}", r)
    for s in SUPPRESS_STEPS:
        got = (f"{s}: returned LLVMFunctionValueKind" if s in silenced
               else f"{s}: returned 0")
        c.check(got in r.out.splitlines(),
                f"{what}: {s} " + ("was let through (the call was made)"
                                   if s in silenced else "was skipped (0)"),
                r)
    used_blocks = parse_suppressions_used(r.err)
    c.equal(used_blocks, [(r.pid, used)] if used else [],
            f"{what}: the rules used are listed at exit with their counts", r)
    c.equal(r.returncode, 1 if want else 0,
            f"{what}: exit status {1 if want else 0}", r)
    if json_too:
        r = x.prog("suppress", f"halt_on_error=0:report_format=json:"
                   f"suppressions={path}")
        objs = parse_json_lines(x.c, r.err, what + " (json)", r)
        sums = [o for o in objs if "ownsan_summary" in o]
        c.check(sums and sums[-1]["suppressed"] ==
                [{"pattern": p, "count": n} for n, p in used],
                f"{what} (json): the summary lists the suppressions used",
                sums)
    return r


def case_suppressions_fun(x):
    c = x.c
    check_suppressed(x, "fun:kind_in_main_file\n", ["kind_in_main_file"],
                     [(1, "fun:kind_in_main_file")], "fun: (native function)")
    check_suppressed(x, "# wildcards\n\n  fun:kind_in_*_file  \n",
                     ["kind_in_main_file", "kind_in_other_file"],
                     [(2, "fun:kind_in_*_file")],
                     "fun: with a wildcard, a comment and blank lines")
    check_suppressed(x, "fun:LLVMGetValueKind\n", SUPPRESS_STEPS,
                     [(3, "fun:LLVMGetValueKind")],
                     "fun: (the LLVM-C function)")
    # A suppressed problem happening three times counts three.
    path = supp_file(x, "use_name.txt", "fun:use_name\n")
    r = x.prog("multi", f"halt_on_error=0:suppressions={path}")
    c.equal(parse_suppressions_used(r.err), [(r.pid, [(3, "fun:use_name")])],
            "fun:use_name: a rule matching 3 occurrences counts 3", r)
    c.equal(len(x.reports(r.err, "fun:use_name", r)), 3,
            "fun:use_name: the other 3 problems are still reported", r)
    # Python frames.
    path = supp_file(x, "py.txt", "fun:use_after_dispose\n")
    r = x.py(f"suppressions={path}")
    c.equal(ownsan_lines(r.err)[:1], [f"=={r.pid}==OwnSan: suppressions used:"],
            "fun: (Python function): the report is suppressed and the rule "
            "listed", r)
    c.equal(r.returncode, 0, "fun: (Python function): exit 0", r)


def case_suppressions_src(x):
    c = x.c
    check_suppressed(x, "src:*/opts_other.c\n", ["kind_in_other_file"],
                     [(1, "src:*/opts_other.c")], "src: (C file)")
    # As the sanitizers' suppressions (TemplateMatch): a substring of the
    # name, unless anchored with ^ or $.
    check_suppressed(x, "src:opts_other.c\n", ["kind_in_other_file"],
                     [(1, "src:opts_other.c")],
                     "src: a part of the path matches (as ASan's src:)",
                     json_too=False)
    check_suppressed(x, "src:^opts_other.c\nsrc:opts_other$\n", [], [],
                     "src: ^ anchors the start and $ the end",
                     json_too=False)
    check_suppressed(x, "fun:^kind_in_main\n", ["kind_in_main_file"],
                     [(1, "fun:^kind_in_main")], "fun: ^ anchors a prefix",
                     json_too=False)
    path = supp_file(x, "pysrc.txt", "src:*/opts_py.py\n")
    r = x.py(f"suppressions={path}")
    c.equal(ownsan_lines(r.err)[:1], [f"=={r.pid}==OwnSan: suppressions used:"],
            "src: (Python file): the report is suppressed and the rule "
            "listed", r)
    c.equal(r.returncode, 0, "src: (Python file): exit 0", r)


def case_suppressions_kind(x):
    """KIND:PATTERN (as TSan's race:) suppresses reports of that kind whose
    stacks or LLVM-C function name PATTERN; unused rules are listed at exit
    with verbosity=1."""
    c = x.c
    path = supp_file(x, "kinds.txt", "double-free:dispose_*_again\n"
                     "double-free:LLVMGetValueName2\n"
                     "use-after-free:LLVMCountBasicBlocks\n")
    r = x.prog("multi", f"halt_on_error=0:suppressions={path}")
    c.equal([(rep.kind, rep.stack("use")[0].function) for rep in
             x.reports(r.err, "kind rules", r) if rep.stack("use")],
            [("use-after-free", "use_name")],
            "kind rules: the two double-frees and the use-after-free in "
            "LLVMCountBasicBlocks are suppressed, the use in use_name is not",
            r)
    c.equal(parse_suppressions_used(r.err),
            [(r.pid, [(2, "double-free:dispose_*_again"),
                      (1, "use-after-free:LLVMCountBasicBlocks")])],
            "kind rules: the rules used are listed with their counts", r)
    c.check("suppressions not used" not in r.err,
            "verbosity=0: the unused rule is not listed", r)
    r = x.prog("multi", f"halt_on_error=0:verbosity=1:suppressions={path}")
    m = re.search(rf"^=={r.pid}==OwnSan: suppressions not used:\n"
                  rf"((?:  .*\n)*)", r.err, re.M)
    c.equal(m and m[1], f"  {path}:2: double-free:LLVMGetValueName2\n",
            "verbosity=1: the one unused rule is listed at exit with its "
            "file and line", r)
    # leak: (LeakSanitizer's) suppresses leak groups by the creating call or
    # a frame of the creation stack; other rules do not touch leaks.
    path = supp_file(x, "leaks.txt", "leak:make_leaked_module\n"
                     "leak:^LLVMContextCreate$\nfun:mode_leak\n")
    r = x.prog("leak", f"report_leaks=1:suppressions={path}")
    leaks = parse_leak_reports(r.err)
    c.check(len(leaks) == 1 and sorted(g.fn for g in leaks[0].groups) ==
            sorted(["LLVMModuleCreateWithName", "LLVMCreateBuilderInContext",
                    "LLVMCreateMemoryBufferWithMemoryRangeCopy"]) and
            (leaks[0].leaked, leaks[0].sites) == (3, 3),
            "leak: rules take out the groups of make_leaked_module and "
            "LLVMContextCreate (fun:mode_leak does not apply to leaks)", r)
    c.equal(parse_suppressions_used(r.err),
            [(r.pid, [(1, "leak:make_leaked_module"),
                      (1, "leak:^LLVMContextCreate$")])],
            "leak: rules are listed as used", r)
    c.equal(r.returncode, 1, "leaks left: exit status 1", r)
    path = supp_file(x, "allleaks.txt", "leak:mode_leak\n")
    r = x.prog("leak", f"report_leaks=1:suppressions={path}")
    c.check(r.returncode == 0 and not parse_leak_reports(r.err) and
            parse_suppressions_used(r.err) == [(r.pid, [(5, "leak:mode_leak")])],
            "every leak suppressed: no leak report, exit 0, the rule used for "
            "the 5 groups made in mode_leak", r)
    path = supp_file(x, "badkind.txt", "double_free:x\n")
    r = x.prog("clean", f"suppressions={path}")
    c.check(r.returncode == 1 and f"{path}:1: unknown suppression type "
            "'double_free' (expected fun, src, lib, leak or an error kind)"
            in r.err, "a misspelt kind is an unknown type", r)


def case_suppressions_lib(x):
    check_suppressed(x, "lib:*/libownsan_opts_helper.so\n",
                     ["opts_helper_value_kind"],
                     [(1, "lib:*/libownsan_opts_helper.so")], "lib:")
    check_suppressed(x, "lib:*/libownsan_opts_helper.so.1\n", [], [],
                     "lib: another name matches nothing")


def case_suppressions_errors(x):
    c = x.c
    # Malformed files and a missing file: one line, exit 1, nothing runs.
    for name, text, needle in [
            ("bad_type.txt", "fun:ok\nfunc:typo\n", ":2: unknown suppression "
             "type 'func'"),
            ("no_colon.txt", "# c\nkind_in_main_file\n",
             ":2: expected TYPE:PATTERN"),
            ("empty_pattern.txt", "src:\n", ":1: empty pattern")]:
        path = supp_file(x, name, text)
        check_malformed(x, f"suppressions={path}", None, f"malformed "
                        f"suppressions file ({name})")
        r = x.prog("clean", f"suppressions={path}")
        c.check(path + needle in r.err, f"malformed suppressions file "
                f"({name}): the line names the file and line ({needle!r})",
                r)
    missing = os.path.join(x.tmp, "no_such_file.txt")
    check_malformed(x, f"suppressions={missing}", None,
                    "missing suppressions file")
    r = x.prog("clean", f"suppressions={missing}")
    c.check(f"cannot read suppressions file '{missing}': No such file or "
            f"directory" in r.err, "missing suppressions file: the line "
            "names the file and says it does not exist (errno text)", r)
    # A directory and a FIFO (no writer: opening it must not wait) are not
    # regular files.
    fifo = os.path.join(x.tmp, "supp.fifo")
    os.mkfifo(fifo)
    for path, why in ((x.tmp, "not a regular file"),
                      (fifo, "not a regular file")):
        check_malformed(x, f"suppressions={path}", None, f"suppressions="
                        f"{os.path.basename(path)}")
        r = x.prog("clean", f"suppressions={path}")
        c.check(f"cannot read suppressions file '{path}': {why}" in r.err,
                f"suppressions={os.path.basename(path)}: '{why}'", r)


def case_suppressions(x):
    """Several rules together, and halting mode."""
    c = x.c
    check_suppressed(x, "fun:no_such_function\nsrc:*/opts_other.c\n"
                     "lib:*/libownsan_opts_helper.so\n",
                     ["kind_in_other_file", "opts_helper_value_kind"],
                     [(1, "src:*/opts_other.c"),
                      (1, "lib:*/libownsan_opts_helper.so")],
                     "several rules (unused ones are not listed)")
    check_suppressed(x, "fun:kind_in_*_file\nfun:kind_in_main_file\n",
                     ["kind_in_main_file", "kind_in_other_file"],
                     [(2, "fun:kind_in_*_file")],
                     "the first matching rule gets the report")
    path = supp_file(x, "halt.txt", "fun:LLVMGetValueKind\n")
    r = x.prog("suppress", f"suppressions={path}")
    c.check(r.returncode == 0 and "suppress: done" in r.out,
            "halt_on_error=1: suppressed reports do not stop the program", r)
    c.check(parse_suppressions_used(r.err) ==
            [(r.pid, [(3, "fun:LLVMGetValueKind")])],
            "halt_on_error=1: the rule is listed at exit", r)
    check_clean_unchanged(x, f"suppressions={path}",
                          "suppressions, clean program")
    # A suppressed double dispose is skipped, as in continue mode: LLVM does
    # not free twice, the program runs to its end and the exit summaries
    # are written (the forwarded dispose aborted in glibc before).
    path = supp_file(x, "double.txt", "fun:dispose_*_again\n")
    for fmt in ("text", "json"):
        r = x.prog("multi", f"halt_on_error=0:report_format={fmt}:"
                   f"suppressions={path}")
        what = f"suppressed double disposes ({fmt})"
        c.check(r.returncode == 1 and "multi: done" in r.out,
                f"{what}: the program runs to its end, exit 1 (bugs A and B "
                "reported)", r)
        if fmt == "text":
            kinds = [rep.kind for rep in x.reports(r.err, what, r)]
            c.equal(kinds, ["use-after-free", "use-after-free"],
                    f"{what}: only the two uses are reported", r)
            c.equal(parse_suppressions_used(r.err),
                    [(r.pid, [(2, "fun:dispose_*_again")])],
                    f"{what}: both double disposes matched the rule", r)
        else:
            objs = parse_json_lines(x.c, r.err, what, r)
            sums = [o for o in objs if "ownsan_summary" in o]
            c.check(len(sums) == 1 and sums[0]["suppressed"] ==
                    [{"pattern": "fun:dispose_*_again", "count": 2}] and
                    len(sums[0]["problems"]) == 2,
                    f"{what}: the JSON summary lists 2 problems and the "
                    "rule used twice", sums)
    path = supp_file(x, "all_multi.txt", "fun:use_name\nfun:use_block_count"
                     "\nfun:dispose_*_again\n")
    r = x.prog("multi", f"suppressions={path}")
    c.check(r.returncode == 0 and "multi: done" in r.out,
            "halt_on_error=1, every problem suppressed (two double disposes "
            "among them): the program runs to its end, exit 0", r)
    c.equal(parse_suppressions_used(r.err),
            [(r.pid, [(3, "fun:use_name"), (1, "fun:use_block_count"),
                      (2, "fun:dispose_*_again")])],
            "halt_on_error=1, every problem suppressed: the rules are listed "
            "at exit", r)


def case_max_reports(x):
    c = x.c
    for n in (1, 2):
        r = x.prog("multi", f"halt_on_error=0:max_reports={n}")
        check_multi_continued(x, r, f"max_reports={n}", printed=n)
    r = x.prog("multi", "halt_on_error=0:max_reports=0")
    check_multi_continued(x, r, "max_reports=0 (no limit)", printed=4)
    r = x.prog("multi", "halt_on_error=0:max_reports=1:report_format=json")
    objs = parse_json_lines(x.c, r.err, "max_reports=1 json", r)
    c.equal([("ownsan_report" in o) for o in objs], [True, False],
            "max_reports=1 json: one report object, then the summary", r)
    c.check(objs and len(objs[-1].get("problems", [])) == 4,
            "max_reports=1 json: the summary still lists 4 problems", r)
    check_malformed(x, "max_reports=-1", "max_reports")
    check_malformed(x, "max_reports=x", "max_reports")


def case_print_summary(x):
    c = x.c
    r = x.prog("multi", "halt_on_error=0:print_summary=0")
    c.equal(len(x.reports(r.err, "print_summary=0", r)), 4,
            "print_summary=0: the 4 reports are printed", r)
    c.equal(parse_exit_summaries(r.err), [],
            "print_summary=0: no exit summary", r)
    c.check("distinct problem" not in r.err,
            "print_summary=0: no 'distinct problem(s)' line", r)
    c.equal(r.returncode, 1, "print_summary=0: the exit status is still "
            "exitcode", r)
    r = x.prog("multi", "halt_on_error=0:print_summary=1")
    c.equal(len(parse_exit_summaries(r.err)), 1,
            "print_summary=1: the exit summary is printed", r)
    # The option's description: "list every distinct problem with its
    # count, and the suppressions used" -- both are off with 0.
    path = supp_file(x, "ps.txt", "fun:kind_in_main_file\n")
    r = x.prog("suppress", f"halt_on_error=0:print_summary=0:"
               f"suppressions={path}")
    c.equal(parse_suppressions_used(r.err), [],
            "print_summary=0: the suppressions used are not listed either", r)
    # JSON always ends with its summary object (ownsan report reads counts).
    r = x.prog("multi", "halt_on_error=0:print_summary=0:report_format=json")
    objs = parse_json_lines(x.c, r.err, "print_summary=0 json", r)
    c.check(objs and "ownsan_summary" in objs[-1],
            "print_summary=0 with json: the summary object is still written",
            r)
    check_malformed(x, "print_summary=2", "print_summary")


def case_strict_ownership(x):
    # Its reports are MLIR-C's (the spec's free_caller_owned: seeded case
    # mlir.seeded.destroy_owned_op_strict); LLVM-C's spec has no such
    # line, so here the option is taken and changes no report.
    c = x.c
    plain = x.prog("multi", "halt_on_error=0")
    strict = x.prog("multi", "halt_on_error=0:strict_ownership=1")
    c.equal(len(x.reports(strict.err, "strict_ownership=1", strict)),
            len(x.reports(plain.err, "default", plain)),
            "strict_ownership=1: the same reports as without it", strict)
    c.equal(strict.out, plain.out, "strict_ownership=1: the same stdout",
            strict)
    check_malformed(x, "strict_ownership=maybe", "strict_ownership")


def case_warn_blind_spots(x):
    # What it turns off is tested with the programs that have blind spots
    # (tests/blind: blind.static_llvm_off); here: a program ownsan sees
    # gets no warning either way, and the value is parsed like any bool.
    c = x.c
    for value in ("1", "0"):
        r = x.prog("clean", f"warn_blind_spots={value}")
        c.equal(r.returncode, 0, f"warn_blind_spots={value}: exit status 0",
                r)
        c.check("WARNING" not in r.err,
                f"warn_blind_spots={value}: no warning for a program ownsan "
                "sees", r)
    check_malformed(x, "warn_blind_spots=2", "warn_blind_spots")


def case_report_leaks(x):
    c = x.c
    r = x.prog("leak", "report_leaks=1")
    c.equal(r.returncode, 1, "report_leaks=1: exit status 1 (exitcode)", r)
    c.check("leak: done" in r.out, "report_leaks=1: the program ran to the "
            "end", r)
    try:
        leaks = parse_leak_reports(r.err)
    except FormatError as e:
        leaks = []
        c.check(False, f"report_leaks=1: the leak report follows the format "
                f"({e})", r)
    if c.equal(len(leaks), 1, "report_leaks=1: one leak report", r):
        lr = leaks[0]
        c.equal(lr.pid, r.pid, "report_leaks=1: it carries the pid", r)
        got = sorted((g.count, g.handle_type, g.fn) for g in lr.groups)
        want = sorted([
            (3, "LLVMModuleRef", "LLVMModuleCreateWithNameInContext"),
            (1, "LLVMModuleRef", "LLVMModuleCreateWithName"),
            (1, "LLVMContextRef", "LLVMContextCreate"),
            (1, "LLVMBuilderRef", "LLVMCreateBuilderInContext"),
            (1, "LLVMMemoryBufferRef",
             "LLVMCreateMemoryBufferWithMemoryRangeCopy")])
        c.equal(got, want, "report_leaks=1: one group per creation site, "
                "with its count and creating call", r)
        c.equal([g.fn for g in lr.groups],
                ["LLVMModuleCreateWithNameInContext", "LLVMContextCreate",
                 "LLVMModuleCreateWithName", "LLVMCreateBuilderInContext",
                 "LLVMCreateMemoryBufferWithMemoryRangeCopy"],
                "report_leaks=1: the biggest group first, then the groups "
                "of one size in the order they were created", r)
        c.equal((lr.leaked, lr.sites), (7, 5), "report_leaks=1: 'SUMMARY: "
                "OwnSan: 7 leaked object(s) from 5 allocation site(s)'", r)
        three = [g for g in lr.groups if g.count == 3]
        c.check(three and three[0].more and three[0].handle_type ==
                "LLVMModuleRef", "report_leaks=1: the group of 3 says "
                "'LLVMModuleRefs (module 0x..., ...)'", r)
        line = marker_line(OPTS_PROG_C, "return LLVMModuleCreateWithNameInContext(name, ctx);")
        fr = three[0].frames if three else []
        c.check(fr and fr[0].function == "make_leaked_module" and
                fr[0].line == line, f"report_leaks=1: the group's stack "
                f"starts at make_leaked_module (opts_prog.c:{line})", r)
        c.check([f.function for f in fr[1:3]] == ["mode_leak", "main"],
                "report_leaks=1: the group's creation stack goes on with "
                "mode_leak and main (the whole stack, not only frame #0)", r)
    r = x.prog("leak", "report_leaks=1:exitcode=9")
    c.equal(r.returncode, 9, "report_leaks=1:exitcode=9: exit status 9", r)
    r = x.prog("leak")
    c.check(r.returncode == 0 and r.err == "",
            "report_leaks=0 (default): no leak report, exit 0", r)
    r = x.prog("clean", "report_leaks=1")
    c.check(r.returncode == 0 and r.err == "",
            "report_leaks=1 on a program that disposes everything: no "
            "report, exit 0", r)
    d = os.path.join(x.tmp, "leaklog")
    os.mkdir(d)
    r = x.prog("leak", f"report_leaks=1:log_path={d}/o")
    p = os.path.join(d, f"o.{r.pid}")
    c.check(os.path.exists(p) and parse_leak_reports(open(p).read()) and
            r.err == "", "report_leaks=1:log_path: the leak report goes to "
            "PATH.PID", r)
    r = x.prog("multi", "halt_on_error=0:report_leaks=1")
    c.check(len(parse_exit_summaries(r.err)) == 1 and r.returncode == 1 and
            not parse_leak_reports(r.err),
            "report_leaks=1 with reports but no leaks: summary, no leak "
            "report", r)
    check_malformed(x, "report_leaks=yes", "report_leaks")


def native_frames_of(rep):
    return [f for s in ("use", "free", "create") for f in rep.stack(s)]


def case_symbolize(x):
    c = x.c
    line = marker_line(OPTS_PROG_C, "LLVMGetValueName2(fn, &len)")
    r = x.prog("deep", "halt_on_error=0")
    reps = x.reports(r.err, "symbolize=1", r)
    top = reps[0].stack("use")[0] if reps and reps[0].stack("use") else None
    c.check(top and top.function == "use_name" and
            top.file.endswith("tests/options/opts_prog.c") and
            top.line == line,
            f"symbolize=1 (default): frame #0 is use_name at "
            f"opts_prog.c:{line}", r)
    r = x.prog("deep", "halt_on_error=0:symbolize=0")
    reps = x.reports(r.err, "symbolize=0", r)
    frames = [f for rep in reps for f in native_frames_of(rep)]
    c.check(frames and all(f.file is None and f.module for f in frames),
            "symbolize=0: no file:line, every frame is (module+0xoffset)", r)
    use = reps[0].stack("use") if reps else []
    c.equal([f.function for f in use[:9]],
            ["use_name"] + [f"deep_{i}" for i in range(8, 0, -1)],
            "symbolize=0: dladdr still names exported functions", r)
    c.check(use and use[0].module == x.a.program,
            "symbolize=0: the module is the program's path", r)
    c.check(reps and re.fullmatch(
        r"use-after-free in LLVMGetValueName2 \(.*/opts_prog\+0x[0-9a-f]+\) "
        r"in use_name", reps[0].summary or ""),
        "symbolize=0: SUMMARY names (module+0xoffset) in use_name", r)
    check_malformed(x, "symbolize=2", "symbolize")


def case_symbolizer_path(x):
    c = x.c
    for path in ("/nonexistent", "/bin/false"):
        r = x.prog("deep", f"halt_on_error=0:symbolizer_path={path}")
        c.equal(r.returncode, 1, f"symbolizer_path={path}: no crash, exit 1",
                r)
        reps = x.reports(r.err, f"symbolizer_path={path}", r)
        use = reps[0].stack("use") if reps else []
        c.check(use and use[0].function == "use_name" and
                use[0].file is None and use[0].module == x.a.program,
                f"symbolizer_path={path}: frames fall back to dladdr names "
                f"(use_name in (opts_prog+0x...))", r)
        c.check("deep: done" in r.out, f"symbolizer_path={path}: the "
                "program ran on", r)
    # An explicit symbolizer: a script that notes each start, then runs
    # the real llvm-symbolizer.
    if c.check(x.a.symbolizer and os.access(x.a.symbolizer, os.X_OK),
               f"(llvm-symbolizer at {x.a.symbolizer})"):
        log = os.path.join(x.tmp, "symbolizer.log")
        script = os.path.join(x.tmp, "my-symbolizer")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\necho started >> '{log}'\n"
                    f"exec '{x.a.symbolizer}' \"$@\"\n")
        os.chmod(script, 0o755)
        r = x.prog("deep", f"halt_on_error=0:symbolizer_path={script}")
        c.check(os.path.exists(log), "symbolizer_path=SCRIPT: the given "
                "program is the one run", r)
        reps = x.reports(r.err, "symbolizer_path=SCRIPT", r)
        use = reps[0].stack("use") if reps else []
        c.check(use and use[0].file and
                use[0].file.endswith("opts_prog.c"),
                "symbolizer_path=SCRIPT: frames have file:line", r)
    check_clean_unchanged(x, "symbolizer_path=/nonexistent",
                          "symbolizer_path=/nonexistent")


def process_gone(pid):
    """No process `pid`, or only its zombie (reparented orphans are reaped by
    whoever is PID 1 here, which may never do it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def processes_gone(pids, within=2.0):
    """All of `pids` gone (process_gone) within `within` seconds: a process
    killed with SIGKILL just before the run ended may still be on its way
    out when the run's parent looks."""
    deadline = time.monotonic() + within
    while not all(process_gone(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def fake_symbolizer(x, name, body):
    """A symbolizer script that logs each start and its pid, then runs
    `body` (shell). Returns (script path, log path)."""
    log = os.path.join(x.tmp, f"{name}.log")
    script = os.path.join(x.tmp, name)
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\necho \"started $$\" >> '{log}'\n{body}\n")
    os.chmod(script, 0o755)
    return script, log


def logged(log, word):
    """The numbers logged after `word` (pids) in a fake symbolizer's log."""
    try:
        with open(log) as f:
            return [int(l.split()[1]) for l in f if l.startswith(word + " ")]
    except OSError:
        return []


def check_fallback_frames(x, r, what):
    reps = x.reports(r.err, what, r)
    use = reps[0].stack("use") if reps else []
    x.c.check(use and use[0].function == "use_name" and
              use[0].file is None and use[0].module == x.a.program,
              f"{what}: frames fall back to module+offset with dladdr names "
              f"(use_name in (opts_prog+0x...))", r)
    x.c.check("deep: done" in r.out and r.returncode == 1,
              f"{what}: the program ran to the end, exit 1", r)


def case_symbolizer_timeout_ms(x):
    c = x.c
    # Never answers: reads nothing, writes nothing, and has a child of its
    # own (as a wrapper script would).
    script, log = fake_symbolizer(
        x, "silent-symbolizer",
        f"sleep 1000 &\necho \"child $!\" >> '{os.path.join(x.tmp, 'silent-symbolizer.log')}'\nwait")
    try:
        for opt, limit in (("symbolizer_timeout_ms=500", 20),
                           ("", 60)):  # the default, 10 s
            what = f"a symbolizer that never answers, {opt or 'default'}"
            if os.path.exists(log):
                os.unlink(log)
            start = time.monotonic()
            r = run([x.a.ownsan, "run", "--", x.a.program, "deep"],
                    env=x.env(f"halt_on_error=0:symbolizer_path={script}" +
                              (f":{opt}" if opt else "")),
                    timeout=limit)
            took = time.monotonic() - start
            c.check(r.returncode is not None,
                    f"{what}: the report is printed (no hang; the run took "
                    f"{took:.1f} s, limit {limit} s)", r)
            check_fallback_frames(x, r, what)
            started, children = logged(log, "started"), logged(log, "child")
            c.equal(len(started), 1, f"{what}: started once, not again for "
                    "each of the report's three stacks", r)
            c.check(started and children and
                    processes_gone(started + children),
                    f"{what}: the symbolizer and its child were killed "
                    f"({started} {children})", r)
            if opt:
                c.check(took < 10, f"{what}: the run took {took:.1f} s "
                        "(less than 10 s)", r)
    finally:
        for pid in logged(log, "started") + logged(log, "child"):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    # Dies: at once on its first line of input, or halfway through its
    # answer, killed by a signal.
    for name, body in (
            ("dying-symbolizer", "read line\nkill -9 $$"),
            ("half-symbolizer", "read line\necho use_name\nkill -9 $$")):
        script, log = fake_symbolizer(x, name, body)
        r = run([x.a.ownsan, "run", "--", x.a.program, "deep"],
                env=x.env(f"halt_on_error=0:symbolizer_path={script}"),
                timeout=60)
        check_fallback_frames(x, r, f"a symbolizer that dies ({name})")
        c.check(len(logged(log, "started")) >= 1,
                f"({name} was started)", r)
    check_malformed(x, "symbolizer_timeout_ms=0", "symbolizer_timeout_ms")
    check_malformed(x, "symbolizer_timeout_ms=-5", "symbolizer_timeout_ms")
    check_malformed(x, "symbolizer_timeout_ms=soon", "symbolizer_timeout_ms")


def case_malloc_context_size(x):
    c = x.c
    r = x.prog("deep", "halt_on_error=0:malloc_context_size=1")
    reps = x.reports(r.err, "malloc_context_size=1", r)
    if c.equal(len(reps), 1, "malloc_context_size=1: one report", r):
        rep = reps[0]
        c.equal([(s, rep.stack(s) and [f.function for f in rep.stack(s)])
                 for s in ("use", "free", "create")],
                [("use", ["use_name"]), ("free", ["dispose_module"]),
                 ("create", ["make_unit"])],
                "malloc_context_size=1: every stack is its innermost frame",
                rep.text)
    r = x.prog("deep", "halt_on_error=0:malloc_context_size=3")
    reps = x.reports(r.err, "malloc_context_size=3", r)
    c.check(reps and [f.function for f in reps[0].stack("use")] ==
            ["use_name", "deep_8", "deep_7"],
            "malloc_context_size=3: three frames", r)
    r = x.prog("deep", "halt_on_error=0:malloc_context_size=0")
    reps = x.reports(r.err, "malloc_context_size=0", r)
    if c.equal(len(reps), 1, "malloc_context_size=0: one report", r):
        rep = reps[0]
        c.check(all(rep.sections[s].no_stack and not rep.stack(s)
                    for s in ("use", "free", "create")),
                "malloc_context_size=0: every stack says '<no stack "
                "recorded>'", rep.text)
        c.equal(rep.summary, "use-after-free in LLVMGetValueName2",
                "malloc_context_size=0: SUMMARY without a location", rep.text)
    r = x.prog("deep", "halt_on_error=0")
    reps = x.reports(r.err, "default depth", r)
    fns = [f.function for f in reps[0].stack("use")] if reps else []
    c.check(fns[:11] == ["use_name"] + [f"deep_{i}" for i in range(8, 0, -1)]
            + ["mode_deep", "main"],
            "malloc_context_size=24 (default): the whole 11-frame stack", r)
    r = x.prog("deep", "halt_on_error=0:malloc_context_size=128")
    c.equal(r.returncode, 1, "malloc_context_size=128 is accepted", r)
    check_malformed(x, "malloc_context_size=500", "malloc_context_size")
    check_malformed(x, "malloc_context_size=-1", "malloc_context_size")
    check_malformed(x, "malloc_context_size=129", "malloc_context_size")


def case_handle_segv(x):
    """The crash line itself is tested in tests/hostile (null_deref_chained,
    null_deref_unhandled, segv_outside, and handle_segv=0 there); here: the
    option parses and changes nothing for a program that does not crash."""
    c = x.c
    for value in ("0", "1"):
        r = x.prog("clean", f"handle_segv={value}")
        c.check(r.returncode == 0 and r.out and r.err == "",
                f"handle_segv={value}: a clean run is untouched", r)
    check_malformed(x, "handle_segv=maybe", "handle_segv")


def case_fast_unwind(x):
    c = x.c
    want = ["use_name", "fp_inner", "fp_middle", "fp_outer", "mode_nofp",
            "main"]
    r = x.prog("nofp", "halt_on_error=0:fast_unwind=0")
    reps = x.reports(r.err, "fast_unwind=0", r)
    fns = [f.function for f in reps[0].stack("use")] if reps else []
    c.equal(fns[:6], want, "fast_unwind=0: the DWARF unwinder gets through "
            "fp_middle (built without frame pointers) to fp_outer", r)
    r = x.prog("nofp", "halt_on_error=0:fast_unwind=1")
    reps = x.reports(r.err, "fast_unwind=1", r)
    fns = [f.function for f in reps[0].stack("use")] if reps else []
    c.check(fns[:3] == want[:3] and "fp_outer" not in fns and
            "mode_nofp" in fns,
            "fast_unwind=1 (the difference is real): the frame-pointer walk "
            "skips fp_outer", r)
    r = x.prog("deep", "halt_on_error=0:fast_unwind=0")
    reps = x.reports(r.err, "fast_unwind=0 deep", r)
    fns = [f.function for f in reps[0].stack("free")] if reps else []
    c.check(fns[:3] == ["dispose_module", "mode_deep", "main"],
            "fast_unwind=0: the free stack is complete too", r)
    check_clean_unchanged(x, "fast_unwind=0", "fast_unwind=0")
    check_malformed(x, "fast_unwind=yes", "fast_unwind")


def case_python_frames(x):
    c = x.c
    py_file = x.a.python_program
    lines = {m: marker_line(py_file, f"# PY-{m}")
             for m in ("USE", "FREE", "CREATE")}
    r = x.py("halt_on_error=0")
    reps = x.reports(r.err, "python_frames=1", r)
    if c.equal(len(reps), 1, "python_frames=1 (default): one report", r):
        rep = reps[0]
        for sec, marker, fn in (("use", "USE", "use_after_dispose"),
                                ("free", "FREE", "dispose_module"),
                                ("create", "CREATE", "make_function")):
            st = rep.stack(sec)
            c.check(st and st[0].python and st[0].file == py_file and
                    st[0].line == lines[marker] and st[0].function == fn,
                    f"python_frames=1: the {sec} stack starts at "
                    f"opts_py.py:{lines[marker]} in {fn} (python)", rep.text)
            c.check(len(st) > 1 and st[1].python and st[1].function == "main",
                    "python_frames=1: then main (python)", rep.text)
            c.check(not any(f.module and re.search(
                r"/(lib)?python|libffi|_ctypes", f.module) for f in st),
                f"python_frames=1: no interpreter/libffi frames in the {sec} "
                f"stack", rep.text)
        c.equal(rep.summary, f"use-after-free in LLVMGetValueName2 {py_file}:"
                f"{lines['USE']} in use_after_dispose",
                "python_frames=1: SUMMARY names the Python line", rep.text)
    c.check("use_after_dispose returned NULL" in r.out and r.returncode == 1,
            "python_frames=1: continue mode returned NULL, exit 1", r)
    r = x.py("halt_on_error=0:python_frames=0")
    reps = x.reports(r.err, "python_frames=0", r)
    if c.equal(len(reps), 1, "python_frames=0: one report", r):
        rep = reps[0]
        frames = native_frames_of(rep)
        c.check(not any(f.python for f in frames),
                "python_frames=0: no (python) frames", rep.text)
        c.check("opts_py.py" not in rep.text,
                "python_frames=0: the report does not name opts_py.py",
                rep.text)
        c.check(frames and all(f.pc and not f.python for f in frames),
                "python_frames=0: only native frames remain", rep.text)
    # A CPython before 3.9 cannot give its frames: one line says so, rather
    # than silently native stacks (opts_prog oldpython: a 3.8 imitation).
    note = ("note: Python frames need CPython 3.9 or later; this process "
            "runs 3.8.18, so stacks show native frames")
    r = x.prog("oldpython", "halt_on_error=0")
    c.equal([l for l in r.err.splitlines() if "Python frames" in l],
            [f"=={r.pid}==OwnSan: {note}"],
            "CPython 3.8: one note line (not one per stack)", r)
    c.check(r.returncode == 1 and len(x.reports(r.err, "oldpython", r)) == 1,
            "CPython 3.8: the report is still made, with native frames", r)
    r = x.prog("oldpython", "halt_on_error=0:python_frames=0")
    c.check("Python frames" not in r.err and r.returncode == 1,
            "CPython 3.8 with python_frames=0: no note", r)
    for what, r in (("a native program", x.prog("deep", "halt_on_error=0")),
                    ("CPython 3.9+", x.py("halt_on_error=0"))):
        c.check("Python frames" not in r.err and r.returncode == 1,
                f"{what}: no note", r)
    check_malformed(x, "python_frames=2", "python_frames")


def case_fold_frames(x):
    c = x.c
    # opts_py.py started by runpy: three or more standard-library frames.
    runpy = ("import runpy, sys; "
             "runpy.run_path(sys.argv[1], run_name='__main__')")
    for value, what in ((None, "default (1)"), ("0", "0")):
        opts = "halt_on_error=0" + (f":fold_frames={value}" if value else "")
        r = run([x.a.ownsan, "run", "--", sys.executable, "-c", runpy,
                 x.a.python_program], env=x.env(opts))
        reps = x.reports(r.err, f"fold_frames={what}", r)
        if not c.equal(len(reps), 1, f"fold_frames={what}: one report", r):
            continue
        use = reps[0].section("passed as argument")
        shown = re.search(r"runpy(\.py)?>?:\d+ in run_path", reps[0].text)
        if value is None:
            c.check(not shown and use.folded and use.folded[-1][1] ==
                    "python" and use.frames[0].function == "use_after_dispose",
                    "fold_frames=1: runpy's frames are one line '... N frames "
                    "in python' after the program's", reps[0].text)
        else:
            c.check(shown and not use.folded, "fold_frames=0: runpy's frames "
                    "are shown", reps[0].text)
    check_malformed(x, "fold_frames=2", "fold_frames")


def case_quarantine_size_mb(x):
    c = x.c
    for mb, limit in ((None, 64 << 20), (1, 1 << 20), (0, 0)):
        opt = "verbosity=1:halt_on_error=0" + (
            f":quarantine_size_mb={mb}" if mb is not None else "")
        r = x.prog("deep", opt)
        m = re.search(r"==OwnSan: quarantine: peak (\d+) bytes \(limit (\d+)\)"
                      r", (\d+) bytes in (\d+) chunks at exit, (\d+) chunks "
                      r"taken", r.err)
        c.check(m and int(m[2]) == limit,
                f"quarantine_size_mb={mb}: the quarantine limit is {limit} "
                f"bytes", r)
        if m and mb == 0:
            c.check(int(m[1]) == 0 and int(m[3]) == 0,
                    "quarantine_size_mb=0: nothing is held (peak 0, 0 bytes "
                    "at exit)", r)
        if m and mb != 0:
            c.check(int(m[1]) > 0 and int(m[3]) > 0,
                    f"quarantine_size_mb={mb}: the freed objects' memory is "
                    f"held until exit", r)
        c.equal(len(x.reports(r.err, "quarantine", r)), 1,
                f"quarantine_size_mb={mb}: the use-after-free is reported", r)
    check_malformed(x, "quarantine_size_mb=-1", "quarantine_size_mb")
    check_malformed(x, "quarantine_size_mb=1048577", "quarantine_size_mb")
    check_malformed(x, "quarantine_size_mb=big", "quarantine_size_mb")


HISTORY_RE = (r"==OwnSan: history: peak (\d+) bytes \(limit (\d+)\), "
              r"(\d+) bytes at exit, (\d+) records evicted; (\d+) record "
              r"slots, (\d+) free events")


def case_history_size_mb(x):
    # `lifetime history_evicted` disposes @f, then 60,600 objects, then uses
    # @f: with the default bound its whole history is reported; with
    # history_size_mb=1 its record was evicted and the report says so.
    c = x.c
    if not x.a.lifetime:
        c.check(False, "history_size_mb: needs --lifetime")
        return
    for mb in (None, 1):
        opt = "verbosity=1" + (f":history_size_mb={mb}" if mb else "")
        r = run([x.a.ownsan, "run", "--", x.a.lifetime, "history_evicted"],
                env=x.env(opt))
        reps = x.reports(r.err, f"history_size_mb={mb}", r)
        if not c.equal(len(reps), 1, f"history_size_mb={mb}: one report", r):
            continue
        text = reps[0].text
        if mb is None:
            c.check("freed by LLVMDisposeModule(module \"m\")" in text and
                    "history evicted" not in text,
                    "history_size_mb default: the stale function's whole "
                    "history is reported", text)
        else:
            c.check("(function, history evicted)" in text and
                    "its history is gone" in text and
                    "a larger history_size_mb keeps more" in text and
                    "freed by" not in text,
                    "history_size_mb=1: the use is reported, its history "
                    "is gone, and the option that keeps more is named", text)
    # The bound itself, on a clean run (the statistics print at exit).
    r = run([x.a.ownsan, "run", "--", x.a.lifetime, "history_evicted",
             "--fixed"], env=x.env("verbosity=1:history_size_mb=1"))
    m = re.search(HISTORY_RE, r.err)
    work = re.search(r"(\d+) objects registered", r.err)
    if c.check(m and work, "history_size_mb=1: the history statistics are "
               "printed", r):
        c.equal(int(m[2]), 1 << 20, "history_size_mb=1: the limit is 1 MiB")
        # (It may pass the limit by the deaths since the last registration:
        # a new record makes room. Here, one churn module's 100 globals.)
        c.check(int(m[1]) <= (1 << 20) + 64 * 1024,
                f"history_size_mb=1: the peak ({m[1]} bytes) stays at the "
                f"limit", r)
        c.check(int(m[4]) > 0, "history_size_mb=1: records were evicted", r)
        c.check(int(m[5]) < int(work[1]) // 2,
                f"history_size_mb=1: record slots are reused ({m[5]} slots "
                f"for {work[1]} objects)", r)
    check_malformed(x, "history_size_mb=0", "history_size_mb")
    check_malformed(x, "history_size_mb=1048577", "history_size_mb")
    check_malformed(x, "history_size_mb=big", "history_size_mb")


def case_verbosity(x):
    c = x.c
    plain = x.plain("clean")
    r = x.prog("clean", "verbosity=1")
    c.equal(r.out, plain.out, "verbosity=1: stdout unchanged", r)
    c.equal(r.returncode, 0, "verbosity=1: exit 0", r)
    lines = r.err.splitlines()
    c.check(any(re.fullmatch(rf"=={r.pid}==OwnSan: using /\S*libLLVM\S* "
                             rf"\(LLVM \d+\)", l) for l in lines),
            "verbosity=1: logs the libLLVM found", r)
    c.check(any(re.fullmatch(rf"=={r.pid}==OwnSan: quarantine: .* stacks", l)
                for l in lines), "verbosity=1: quarantine statistics at exit",
            r)
    # mode_clean makes 14 LLVM-C calls and is handed 9 objects (context,
    # module, two types, function, block, builder, instruction, message).
    c.check(f"=={r.pid}==OwnSan: work: 14 checked calls, 9 objects "
            f"registered, 0 handle arguments never seen" in lines,
            "verbosity=1: the work line counts 14 calls and 9 objects, and "
            "no handle it never saw handed out", r)
    c.check(any(re.fullmatch(rf"=={r.pid}==OwnSan: history: peak \d+ bytes "
                             rf"\(limit {16 << 20}\), .* free events", l)
                for l in lines), "verbosity=1: history statistics at exit", r)
    c.equal(len(lines), 4, "verbosity=1: exactly those four lines", r)
    # Calls of threads that have exited are counted (2 x 102; main: none).
    r = x.prog("threads", "verbosity=1")
    c.check(re.search(r"==OwnSan: work: 204 checked calls, ", r.err),
            "verbosity=1: calls of exited threads are counted (204)", r)
    # ... also those a thread makes from a destructor that runs after the
    # one that counted its calls (2 + 2 + 12).
    r = x.prog("late", "verbosity=1")
    c.check(r.returncode == 0 and
            re.search(r"==OwnSan: work: 16 checked calls, ", r.err),
            "verbosity=1: calls from a later thread-specific destructor are "
            "counted (16)", r)
    r = x.prog("clean", "verbosity=0")
    c.equal(r.err, "", "verbosity=0: nothing on stderr", r)
    check_malformed(x, "verbosity=x", "verbosity")
    check_malformed(x, "verbosity=-3", "verbosity")


def case_forward_only(x):
    c = x.c
    plain = x.plain("clean")
    r = x.prog("clean", "forward_only=1")
    c.check(r.out == plain.out and r.returncode == 0 and r.err == "",
            "forward_only=1: a correct program behaves and prints as without "
            "ownsan, nothing on stderr", r)
    # Nothing is checked or registered: the work line counts nothing (14
    # calls and 9 objects without the option, case_verbosity).
    r = x.prog("clean", "forward_only=1:verbosity=1")
    c.check(f"=={r.pid}==OwnSan: work: 0 checked calls, 0 objects "
            f"registered, 0 handle arguments never seen"
            in r.err.splitlines(),
            "forward_only=1: the work line counts 0 calls and 0 objects", r)
    # Nothing is reported: a program that leaks runs as without ownsan.
    plain = x.plain("leak")
    r = x.prog("leak", "forward_only=1:report_leaks=1")
    c.check(r.out == plain.out and r.returncode == plain.returncode == 0 and
            r.err == "", "forward_only=1: report_leaks finds nothing to "
            "report (exit 0, nothing on stderr)", r)
    r = x.prog("leak", "forward_only=0:report_leaks=1")
    c.check(r.returncode == 1 and "LLVMCreateBuilderInContext" in r.err,
            "forward_only=0: the same leaks are reported", r)
    check_malformed(x, "forward_only=2", "forward_only")


def case_follow_children(x):
    # What children get is tested in tests/majors/check_children.py; here,
    # that the process itself runs and is checked as before.
    c = x.c
    plain = x.plain("clean")
    r = x.prog("clean", "follow_children=0")
    c.check(r.out == plain.out and r.returncode == 0 and r.err == "",
            "follow_children=0: a correct program behaves and prints as "
            "without ownsan, nothing on stderr", r)
    r = x.prog("multi", "follow_children=0:abort_on_error=0")
    c.equal(r.returncode, 1, "follow_children=0: the process itself is "
            "still checked (halts at its first report, exit status 1)", r)
    check_halted_at_first(x, r, "follow_children=0")
    check_malformed(x, "follow_children=maybe", "follow_children")


def thp_mode():
    """The system's transparent huge page mode ("always", "madvise" or
    "never"), or None without THP."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        return None


def run_heap(x, cmd_extra=(), options=None, **env):
    """`ownsan run --glibc-heap CMD_EXTRA -- opts_prog heap` (glibc's heap:
    what the tunable is for): what it printed of GLIBC_TUNABLES, of the
    heap's huge pages and of other anonymous mappings' (yes/no), and the
    run."""
    r = run([x.a.ownsan, "run", "--glibc-heap", *cmd_extra, "--",
             x.a.program, "heap"], env=x.env(options, **env))
    x.c.check(r.returncode == 0 and r.err == "",
              f"heap {cmd_extra} {options} {env}: runs clean", r)
    found = [re.search(pattern, r.out, re.M) for pattern in (
        r"^GLIBC_TUNABLES=(.*)$", r"^heap huge pages: (yes|no)$",
        r"^other huge pages: (yes|no)$")]
    return (*(m.group(1) if m else None for m in found), r)


def case_huge_heap(x):
    # `ownsan run` (not an OWNSAN_OPTIONS option) asks the program's malloc
    # for transparent huge pages (glibc.malloc.hugetlb=1): the quarantine
    # grows the heap. The tunable travels with LD_PRELOAD (children the
    # runtime follows inherit it; follow_children=0 puts back what the
    # program was given); a tunable the user set, and --no-huge-heap, win.
    c = x.c
    advised = thp_mode() == "madvise"  # (glibc advises only in this mode)
    if not advised:
        c.note(f"transparent huge pages: {thp_mode()}; glibc advises none, "
               "so only the environment is checked")

    plain = run([x.a.program, "heap"], env=clean_env(GLIBC_TUNABLES=None))
    c.check("heap huge pages: no" in plain.out,
            "without ownsan the heap has no huge pages", plain)
    tunables, huge, _, r = run_heap(x, GLIBC_TUNABLES=None)
    c.equal(tunables, "glibc.malloc.hugetlb=1", "the tunable ownsan run "
            "added is in the environment (for the children it follows)", r)
    if advised:
        c.equal(huge, "yes", "ownsan run: the heap is advised for huge "
                "pages", r)
    tunables, huge, _, r = run_heap(
        x, GLIBC_TUNABLES="glibc.malloc.tcache_count=3")
    c.equal(tunables, "glibc.malloc.tcache_count=3:glibc.malloc.hugetlb=1",
            "the user's tunables come first, unchanged", r)
    if advised:
        c.equal(huge, "yes", "with the user's other tunables too", r)
    for given in (None, "glibc.malloc.tcache_count=3"):
        tunables, huge, _, r = run_heap(x, options="follow_children=0",
                                        GLIBC_TUNABLES=given)
        c.equal(tunables, given or "(unset)", "follow_children=0: the "
                "program's GLIBC_TUNABLES as it was given", r)
        if advised:
            c.equal(huge, "yes", "follow_children=0: the process's own heap "
                    "still has huge pages", r)
    tunables, huge, _, r = run_heap(
        x, GLIBC_TUNABLES="glibc.malloc.hugetlb=0")
    c.equal(tunables, "glibc.malloc.hugetlb=0", "a hugetlb the user set "
            "stays theirs", r)
    c.equal(huge, "no", "glibc.malloc.hugetlb=0 from the user: no huge "
            "pages", r)
    tunables, huge, _, r = run_heap(x, ("--no-huge-heap",),
                                    GLIBC_TUNABLES=None)
    c.equal(tunables, "(unset)", "--no-huge-heap: the environment as given",
            r)
    c.equal(huge, "no", "--no-huge-heap: no huge pages", r)


def heap_facts(out):
    """What `opts_prog heap` printed of its malloc's library and of
    LD_PRELOAD (its entries, as a list; [] when unset)."""
    malloc_from = re.search(r"^malloc from: (.*)$", out, re.M)
    preload = re.search(r"^LD_PRELOAD=(.*)$", out, re.M)
    entries = ([] if not preload or preload.group(1) == "(unset)"
               else re.split(r"[: ]+", preload.group(1).strip()))
    return malloc_from.group(1) if malloc_from else None, entries


def case_heap_allocator(x):
    # `ownsan run` makes the size-class allocator the build found
    # (--heap-allocator, "" if none) the program's malloc: preloaded after
    # the runtime and before the user's LD_PRELOAD, inherited by children
    # with the runtime, taken out with it by follow_children=0 (the process
    # keeps the malloc it started with); --glibc-heap keeps glibc's (and
    # its huge-page tunable); an allocator the user preloads already stays
    # theirs.
    c = x.c
    heap = x.a.heap_allocator
    name = os.path.basename(heap) if heap else None
    plain = run([x.a.program, "heap"], env=clean_env(GLIBC_TUNABLES=None))
    c.equal(heap_facts(plain.out)[0], "libc.so.6",
            "without ownsan the program's malloc is glibc's", plain)

    def heap_run(cmd_extra=(), options=None, **env):
        r = run([x.a.ownsan, "run", *cmd_extra, "--", x.a.program, "heap"],
                env=x.env(options, GLIBC_TUNABLES=None, **env))
        c.check(r.returncode == 0 and r.err == "",
                f"heap {cmd_extra} {options} {env}: runs clean", r)
        return (*heap_facts(r.out), r)

    runtime_name = None
    malloc_from, entries, r = heap_run()
    if entries:
        runtime_name = os.path.basename(entries[0])
    c.check(runtime_name and runtime_name.startswith("libownsan"),
            "ownsan run: the runtime is LD_PRELOAD's first entry", r)
    if not heap:
        c.note("this build found no size-class allocator: the program keeps "
               "glibc's malloc")
        c.equal(malloc_from, "libc.so.6", "no allocator: glibc's malloc", r)
        c.equal(len(entries), 1, "no allocator: the runtime alone is "
                "preloaded", r)
        return
    c.equal(malloc_from, name, "ownsan run: the program's malloc is the "
            "allocator's", r)
    c.equal(entries[1:], [heap], "the allocator is preloaded right after the "
            "runtime (the children it follows inherit both)", r)
    c.check("GLIBC_TUNABLES=(unset)" in r.out, "with the allocator, no "
            "glibc heap tunable is added", r)

    malloc_from, entries, r = heap_run(LD_PRELOAD="libm.so.6")
    c.equal([os.path.basename(e) for e in entries],
            [runtime_name, name, "libm.so.6"],
            "the user's LD_PRELOAD comes after the runtime and the "
            "allocator", r)

    malloc_from, entries, r = heap_run(options="follow_children=0",
                                       LD_PRELOAD="libm.so.6")
    c.equal(entries, ["libm.so.6"], "follow_children=0: the runtime and the "
            "allocator leave LD_PRELOAD, the user's entry stays", r)
    c.equal(malloc_from, name, "follow_children=0: the process keeps the "
            "allocator's malloc", r)

    malloc_from, entries, r = heap_run(options="follow_children=0",
                                       LD_PRELOAD=heap)
    c.equal(entries, [heap], "an allocator the user preloads is not added "
            "again, and stays theirs with follow_children=0", r)
    c.equal(malloc_from, name, "the user's allocator is the malloc", r)

    malloc_from, entries, r = heap_run(("--glibc-heap",))
    c.equal(malloc_from, "libc.so.6", "--glibc-heap: glibc's malloc", r)
    c.equal([os.path.basename(e) for e in entries], [runtime_name],
            "--glibc-heap: the runtime alone is preloaded", r)
    c.check("GLIBC_TUNABLES=glibc.malloc.hugetlb=1" in r.out,
            "--glibc-heap: the huge-page tunable, as before", r)


def case_huge_pages_for_metadata(x):
    # ownsan's own growing memory (records, events, the internal allocator's
    # slabs) stays in small pages unless the option asks for huge ones. The
    # program makes 100,000 values (2 MiB blocks of records); with
    # --no-huge-heap glibc advises nothing, so an advised anonymous mapping
    # that is not the heap is ownsan's.
    c = x.c
    plain = run([x.a.program, "heap"], env=clean_env(GLIBC_TUNABLES=None))
    c.check("other huge pages: no" in plain.out,
            "without ownsan no anonymous mapping is advised", plain)
    _, _, other, r = run_heap(x, ("--no-huge-heap",), GLIBC_TUNABLES=None)
    c.equal(other, "no", "by default ownsan's own memory is not advised for "
            "huge pages", r)
    _, _, other, r = run_heap(x, ("--no-huge-heap",),
                              "huge_pages_for_metadata=1",
                              GLIBC_TUNABLES=None)
    if thp_mode() in ("madvise", "always"):
        c.equal(other, "yes", "huge_pages_for_metadata=1: ownsan's growing "
                "memory is advised for huge pages", r)
    else:
        c.note(f"transparent huge pages: {thp_mode()}; the advice with "
               "the option on is not checked")
    check_malformed(x, "huge_pages_for_metadata=2", "huge_pages_for_metadata")


def flag_names(flags_inc):
    with open(flags_inc, encoding="utf-8") as f:
        return re.findall(r"^OWNSAN_(?:FLAG\(\s*[\w:]+,|INT_FLAG\()\s*(\w+),",
                          f.read(), re.M)


def case_help(x):
    c = x.c
    r = x.prog("clean", "help=1")
    c.equal(r.returncode, 0, "help=1: exit 0", r)
    c.equal(r.out, "", "help=1: the program does not run", r)
    for name in flag_names(x.a.flags_inc):
        c.check(re.search(rf"^\| `{name}` \| (bool|int, \d+(-\d+| or more)|"
                          rf"string) \|", r.err, re.M),
                f"help=1: lists option {name}", r)
    r = x.prog("clean", "help=0")
    c.check(r.returncode == 0 and r.out and r.err == "",
            "help=0: the program runs", r)
    check_malformed(x, "help=please", "help")


def case_malformed(x):
    c = x.c
    for options, key in [
            ("no_such_option=1", "no_such_option"),
            ("halt_on_error=0:bogus=1", "bogus"),
            ("halt_on_error=yes", "halt_on_error"),
            ("exitcode=abc", "exitcode"),
            ("exitcode=99999999999", "exitcode"),
            ("report_format=xml", "report_format"),
            ("max_reports=-1", "max_reports"),
            ("malloc_context_size=500", "malloc_context_size"),
            ("quarantine_size_mb=-1", "quarantine_size_mb"),
            ("verbosity=1x", "verbosity"),
            ("verbosity=-3", "verbosity"),
            ("exitcode=256", "exitcode"),
            ("print_summary=on", "print_summary")]:
        check_malformed(x, options, key)
    # Each option has its case in this file (so each has a test).
    names = flag_names(x.a.flags_inc)
    c.check(len(names) >= 17, f"flags.inc lists the options ({len(names)})")
    missing = [n for n in names if f"case_{n}" not in globals()]
    c.equal(missing, [], "every option of flags.inc has a test case here")


CASES = {name[len("case_"):]: fn for name, fn in globals().items()
         if name.startswith("case_")}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--list", action="store_true",
                   help="print the case names and exit")
    p.add_argument("--case", choices=sorted(CASES))
    p.add_argument("--ownsan")
    p.add_argument("--program")
    p.add_argument("--python-program", default=OPTS_PY)
    p.add_argument("--docs")
    p.add_argument("--flags-inc")
    p.add_argument("--lifetime")
    p.add_argument("--symbolizer")
    p.add_argument("--heap-allocator", default="",
                   help="the allocator `ownsan run` preloads ('' if none)")
    args = p.parse_args(argv)
    if args.list:
        list_cases(CASES)
        return 0
    if not (args.case and args.ownsan and args.program and args.docs
            and args.flags_inc):
        p.error("--case, --ownsan, --program, --docs and --flags-inc are "
                "required")
    if "OWNSAN_TEST_LIBLLVM" not in os.environ:
        p.error("set OWNSAN_TEST_LIBLLVM to the libLLVM of this build")
    c = Checker(f"options.{args.case}")
    x = Ctx(args, c)
    try:
        CASES[args.case](x)
    except Exception as e:  # a crash of the driver is a failure, not a pass
        import traceback
        traceback.print_exc()
        c.check(False, f"driver raised {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(x.tmp, ignore_errors=True)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
