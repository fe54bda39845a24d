#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan report`: exit codes, usage errors, deduplication and the
terminal summary.

    test_cli.py --ownsan PATH

Usage errors and unreadable input exit 2 with one line on stderr and nothing
on stdout; a run with problems exits 1, a clean one 0. The same problem
reported by several processes is one block whose count sums the exit
summaries' counts (or the report lines of a process without a summary), with
every test that hit it; malformed lines are skipped with one warning naming
file:line, and odd input never crashes the tool.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ownsan_testing import Checker
from report_common import (A, B, C, CLEAN, D, E, LABEL_A, LABEL_B, LABEL_C,
                           RACE, RUN, R, SOURCE_ROOT, SUMMARY_ONLY, X,
                           load_kinds, parse_args, report, script_path)

FINAL_RE = re.compile(r"^ownsan report: (\d+) distinct problems in (\d+) "
                      r"reports from (\d+) processes$")


def blocks(out):
    """{problem id: {"title": line, key: value}} from the terminal summary."""
    result = {}
    for chunk in out.split("\n\n"):
        lines = chunk.strip("\n").splitlines()
        if not lines or not re.match(r"^\[\d+\] ", lines[0]):
            continue
        fields = {"title": re.sub(r"^\[\d+\] ", "", lines[0]),
                  "order": int(lines[0][1:lines[0].index("]")])}
        for line in lines[1:]:
            m = re.match(r"^    ([a-z ]+):\s+(.*)$", line)
            if m:
                fields[m.group(1)] = m.group(2)
        result[fields.get("problem id")] = fields
    return result


def final_line(c, r, problems, reports, processes, what):
    last = r.out_lines[-1] if r.out_lines else ""
    m = FINAL_RE.match(last)
    c.check(m is not None, f"{what}: the last line of stdout is the "
            "'ownsan report: N distinct problems in M reports from P "
            "processes' line", r)
    if m:
        c.equal(tuple(int(x) for x in m.groups()),
                (problems, reports, processes),
                f"{what}: {problems} distinct problems in {reports} reports "
                f"from {processes} processes", r)


def usage_errors(c, ownsan, tmp):
    def one_line_error(r, exit_code, what, mentions=()):
        c.equal(r.returncode, exit_code, f"{what}: exits {exit_code}", r)
        c.equal(len(r.err_lines), 1, f"{what}: exactly one line on stderr",
                r)
        c.check(r.err.startswith("ownsan report: "),
                f"{what}: the line starts with 'ownsan report: '", r)
        for m in mentions:
            c.check(m in r.err, f"{what}: the line names {m!r}", r)
        c.equal(r.out, "", f"{what}: nothing on stdout", r)

    one_line_error(report(ownsan), 2, "no PATH", ["PATH"])
    one_line_error(report(ownsan, "--bogus", RUN), 2, "unknown option",
                   ["--bogus"])
    one_line_error(report(ownsan, RUN, "--sarif"), 2, "--sarif without a "
                   "value", ["--sarif"])
    one_line_error(report(ownsan, "--sar", "x.sarif", RUN), 2,
                   "an abbreviated option (--sar)", ["--sar"])
    missing = os.path.join(tmp, "no-such-dir")
    one_line_error(report(ownsan, missing), 2, "a PATH that does not exist",
                   [missing])
    dangling = os.path.join(tmp, "ownsan.dangling")
    os.symlink(missing, dangling)
    one_line_error(report(ownsan, RUN, dangling), 2,
                   "a dangling symlink given as PATH", [dangling])
    fifo = os.path.join(tmp, "ownsan.fifo")
    os.mkfifo(fifo)
    one_line_error(report(ownsan, fifo), 2, "a FIFO given as PATH "
                   "(not a regular file)", [fifo])
    a_file = os.path.join(tmp, "a-file")
    with open(a_file, "w") as f:
        f.write("x\n")
    one_line_error(report(ownsan, "--html", a_file, RUN), 2,
                   "--html naming an existing file", [a_file])
    bad_out = os.path.join(missing, "out.sarif")
    one_line_error(report(ownsan, "--sarif", bad_out, RUN), 2,
                   "--sarif into a missing directory", [bad_out])
    bad_out = os.path.join(missing, "out.xml")
    one_line_error(report(ownsan, "--junit", bad_out, RUN), 2,
                   "--junit into a missing directory", [bad_out])
    # A FIFO inside a directory is not a log (and must not block the read).
    fifo_dir = os.path.join(tmp, "fifo-dir")
    os.mkdir(fifo_dir)
    os.mkfifo(os.path.join(fifo_dir, "ownsan.77"))
    r = report(ownsan, fifo_dir)
    one_line_error(r, 2, "a directory holding only a FIFO named ownsan.77 "
                   "(skipped: no ownsan record)", ["no ownsan record"])

    r = report(ownsan, "--help")
    c.equal(r.returncode, 0, "--help exits 0", r)
    c.check("usage: ownsan report" in r.out and "--sarif" in r.out and
            "--source-root" in r.out, "--help prints the usage with every "
            "option on stdout", r)


def clean_runs(c, ownsan, tmp):
    r = report(ownsan, CLEAN)
    c.equal(r.returncode, 0, "clean fixture (an exit summary without "
            "problems): exit 0", r)
    c.equal(r.err, "", "clean fixture: nothing on stderr", r)
    final_line(c, r, 0, 0, 1, "clean fixture")
    # No log is not a clean run: nothing was checked.
    empty = os.path.join(tmp, "empty-dir")
    os.mkdir(empty)
    for path, what in ((empty, "an empty directory"),
                       (os.path.join(RUN, "README.txt"),
                        "a file holding no ownsan record")):
        r = report(ownsan, path)
        c.equal(r.returncode, 2, f"{what}: exit 2", r)
        # (A file named on the command line gets its warnings too.)
        c.equal(len(r.err_lines), 1 if path == empty else 2,
                f"{what}: one error line on stderr", r)
        c.check(r.err_lines and r.err_lines[-1].startswith(
            "ownsan report: error: no ownsan record"), f"{what}: the line "
            "says no ownsan record was found", r)
        c.equal(r.out, "", f"{what}: nothing on stdout", r)


def the_run(c, ownsan):
    r = report(ownsan, RUN)
    c.equal(r.returncode, 1, "fixtures/run: exit 1 (problems found)", r)
    final_line(c, r, 3, 5, 4, "fixtures/run")
    got = blocks(r.out)
    c.equal(sorted(got), sorted([A, B, C]),
            "fixtures/run: one block per distinct problem (A from three "
            "processes deduplicated)", r)
    a, b, cc = got.get(A, {}), got.get(B, {}), got.get(C, {})
    c.equal(a.get("order"), 1, "the most frequent problem (A, 6 times) "
            "comes first", r)
    c.equal(a.get("title"), f"use-after-free: {LABEL_A}",
            "A: kind and object label", r)
    c.equal(a.get("call"), "LLVMGetValueName2 (argument 1, LLVMValueRef)",
            "A: the call and argument", r)
    c.equal(a.get("at"), "tests/test_mod.py:42 in test_use_after_close",
            "A: at the user's frame: the first Python frame past the "
            "binding's wrapper (mybind/core.py)", r)
    c.equal(a.get("freed by"), 'LLVMDisposeModule(module "m"), because it '
            "belonged to that module at tests/test_mod.py:40 in "
            "test_use_after_close",
            "A: free call, target, cause and where (the user's frame)", r)
    c.equal(a.get("created by"), "LLVMBuildAdd at tests/helpers.py:12 in "
            "make_sum", "A: creation (the user's helper past the binding)",
            r)
    c.equal(a.get("seen"), "6 times in 3 processes",
            "A: count = 3 + 2 (exit summaries) + 1 (report line of a "
            "process without summary), in 3 processes", r)
    c.equal(a.get("tests"), "tests/test_mod.py::test_use_after_close, "
            "tests/test_other.py::test_reuse[2]",
            "A: each test once (pytest's ' (call)' phase dropped)", r)

    c.equal(b.get("title"), f"double-free: {LABEL_B}",
            "B: kind and label (shown as is on the terminal)", r)
    c.equal(b.get("at"), "/home/ci/proj/tests/seeded.c:120:3 in teardown",
            "B: native binding frame skips libownsan; absolute path "
            "without --source-root", r)
    c.equal(b.get("created by"), "LLVMModuleCreateWithNameInContext at "
            "/home/ci/proj/tests/seeded.c:60:10 in setup",
            "B: the creation frame skips libLLVM", r)
    c.equal(b.get("seen"), "1 time in 1 process", "B: seen once", r)
    c.equal(b.get("tests"), "seeded/double_free", "B: OWNSAN_TEST_NAME", r)

    c.equal(cc.get("title"), f"invalid-free: {LABEL_C}", "C: kind, label", r)
    c.equal(cc.get("freed by"), "(no free recorded)",
            "C: a null free section", r)
    c.equal(cc.get("at"), "tests/test_free.py:17 in test_delete_attached",
            "C: skips the stdlib ctypes frame, prefers Python over a native "
            "frame with a file", r)
    c.check(cc.get("note", "").startswith("LLVMDeleteInstruction frees only"),
            "C: the note is shown", r)

    warnings = [l for l in r.err_lines if l]
    want = [f"{RUN}/ownsan.1002:{n}:" for n in (2, 3, 4, 8)]
    c.equal(len(warnings), 4, "four malformed lines: four warnings (none for "
            "the unknown record type, unknown fields, or README.txt)", r)
    for w in want:
        c.check(any(l.startswith(f"ownsan report: warning: {w}")
                    for l in warnings), f"a one-line warning names {w}", r)

    r = report(ownsan, RUN, "--source-root", SOURCE_ROOT)
    b = blocks(r.out).get(B, {})
    c.equal(b.get("at"), "tests/seeded.c:120:3 in teardown",
            "--source-root: paths under it are shown relative to it", r)
    r = report(ownsan, "--source-root", SOURCE_ROOT + "/", RUN)
    c.equal(blocks(r.out).get(B, {}).get("at"),
            "tests/seeded.c:120:3 in teardown",
            "--source-root with a trailing slash, options before PATH", r)

    # The same file given twice (as a file and in its directory) is read once.
    r = report(ownsan, RUN, os.path.join(RUN, "ownsan.1001"))
    final_line(c, r, 3, 5, 4, "a file given again inside its directory")
    # A single file, as PATH.
    r = report(ownsan, os.path.join(RUN, "ownsan.1003"))
    c.equal(r.returncode, 1, "a single file as PATH: exit 1", r)
    final_line(c, r, 1, 1, 1, "fixtures/run/ownsan.1003 alone")


def summaries(c, ownsan):
    r = report(ownsan, SUMMARY_ONLY)
    c.equal(r.returncode, 1, "summary_only: exit 1", r)
    final_line(c, r, 2, 2, 2, "summary_only (two segments of one pid)")
    got = blocks(r.out)
    c.equal(sorted(got), sorted([D, E]), "summary_only: D and E", r)
    c.equal(got.get(E, {}).get("seen"), "5 times in 1 process",
            "E: a problem only in an exit summary is counted", r)
    c.check("LLVMGetTypeKind" in got.get(E, {}).get("details", ""),
            "E: its summary text is shown", r)
    c.equal(got.get(D, {}).get("seen"), "3 times in 2 processes",
            "D: summary count 2 + one report line after the summary "
            "(a later process with the same pid)", r)
    c.check("suppressed: fun:legacy_* (2), src:vendor/* (1)" in r.out_lines,
            "the suppressions used are listed", r)
    c.check(len(r.err_lines) == 1 and
            r.err_lines[0].startswith(f"ownsan report: warning: "
                                      f"{SUMMARY_ONLY}/ownsan.4001:2: "),
            "a summary with one bad entry: one warning naming file:line", r)

    r = report(ownsan, RUN, SUMMARY_ONLY, CLEAN)
    final_line(c, r, 5, 7, 7, "all fixtures together")
    c.check("suppressed: fun:legacy_* (4), src:vendor/* (1)" in r.out_lines,
            "suppression counts add up across processes", r)


def odd_input(c, ownsan, tmp):
    d = os.path.join(tmp, "odd")
    os.mkdir(d)
    good = {"ownsan_report": 1, "pid": 9, "kind": "use-after-free",
            "problem_id": "0123456789abcdef"}
    lines = [
        b"\x00\x01\x02\xff\xfe binary junk",
        b"[" * 100000 + b"]" * 100000,                  # nested too deeply
        b'{"ownsan_report": 1, "kind": 5, "problem_id": "x"}',
        b'{"ownsan_summary": 1, "pid": 9, "problems": "many"}',
        b'"just a string"',
        b"null",
        json.dumps(dict(good, object="str", call=[1], use=5, free="gone",
                        create={"stack": "x"}, chain="ctx", related=3,
                        thread=-1, test=7, text=None)).encode(),
        json.dumps(dict(good, use={"stack": [1, None, "x", {
            "index": "0", "language": 3, "function": ["f"], "file": 4,
            "line": "12", "column": True, "module": {}, "pc": 5}]})).encode(),
        # Not UTF-8 inside a string: still a report (LLVM names are bytes).
        b'{"ownsan_report": 1, "pid": 9, "kind": "double-free", '
        b'"problem_id": "fedcba9876543210", "object": {"kind": "module", '
        b'"label": "module \\"\xff\xfe\\u0007\\ud800\\u001b[31m\\""}, '
        b'"chain": [{"kind": "module", "label": "m\\u0000"}], '
        b'"text": "bell \\u0007 nul \\u0000", "summary": "x\\u0001"}',
        b'{"ownsan_report": 2, "pid": 9, "kind": "use-after-free", '
        b'"problem_id": "0123456789abcdef", "newer": true}',
        b"\xef\xbb\xbf{}",
        b"   ",
        b"",
    ]
    with open(os.path.join(d, "ownsan.9"), "wb") as f:
        f.write(b"\n".join(lines))  # no final newline, like a killed process
    out = os.path.join(tmp, "odd-out")
    r = report(ownsan, d, "--sarif", out + ".sarif", "--junit", out + ".xml",
               "--html", out)
    c.equal(r.returncode, 1, "odd input: no crash, exit 1 for the valid "
            "reports", r)
    c.check("Traceback" not in r.err, "odd input: no Python traceback", r)
    final_line(c, r, 2, 4, 1, "odd input (wrongly typed fields are ignored, "
               "not fatal)")
    warned = sorted(int(m.group(1)) for m in (
        re.search(r"/ownsan\.9:(\d+): ", l) for l in r.err_lines) if m)
    c.equal(warned, [1, 2, 3, 4, 5, 6, 11],
            "odd input: one warning per malformed line, naming file:line", r)
    c.check(all(l.startswith("ownsan report: warning: ")
                for l in r.err_lines), "odd input: only warnings on stderr",
            r)
    c.check("\x1b" not in r.out and "\x07" not in r.out,
            "control characters from input are not written to the "
            "terminal raw", r)
    c.check(os.path.exists(out + ".sarif") and os.path.exists(out + ".xml")
            and os.path.exists(os.path.join(out, "index.html")),
            "odd input: SARIF, JUnit and HTML are still written", r)

    # Many bad lines: the warnings stop after 20, with one line saying so.
    many = os.path.join(tmp, "many")
    os.mkdir(many)
    with open(os.path.join(many, "ownsan.10"), "w") as f:
        f.write("junk\n" * 50)
    r = report(ownsan, many)
    c.equal(r.returncode, 2, "50 junk lines: exit 2 (no ownsan record)", r)
    c.equal(len(r.err_lines), 22, "50 junk lines: 20 warnings, one line "
            "counting the rest and the error", r)

    # Outputs written into the input directory are not read back as input.
    same = os.path.join(tmp, "same")
    os.mkdir(same)
    with open(os.path.join(RUN, "ownsan.1001"), "rb") as src, \
            open(os.path.join(same, "ownsan.1001"), "wb") as dst:
        dst.write(src.read())
    args = [same, "--sarif", os.path.join(same, "ownsan.sarif"),
            "--junit", os.path.join(same, "ownsan.xml")]
    report(ownsan, *args)
    r = report(ownsan, *args)
    c.equal(r.err, "", "outputs named ownsan.* in the input directory are "
            "not read as logs", r)
    final_line(c, r, 1, 1, 1, "outputs in the input directory")


def freed_by_llvm(c, ownsan, tmp):
    """A value LLVM deleted by itself (during a pass): no free target."""
    d = os.path.join(tmp, "pass")
    os.mkdir(d)
    frame = {"index": 0, "language": "python", "function": "run",
             "file": "mybind/passes.py", "line": 14}
    with open(os.path.join(d, "ownsan.8"), "w") as f:
        f.write(json.dumps({
            "ownsan_report": 1, "pid": 8, "kind": "use-after-free",
            "problem_id": "8888888888888888",
            "object": {"kind": "instruction", "label": "instruction %dead"},
            "call": {"function": "LLVMGetInstructionOpcode", "argument": 1},
            "use": {"thread": 0, "stack": [dict(frame, line=20)]},
            "free": {"function": "LLVMRunPasses", "target": None,
                     "cause": None, "during": 'LLVMRunPasses("dce")',
                     "thread": 0, "stack": [frame]},
            "chain": [{"kind": "instruction", "label": "instruction %dead"}]
        }) + "\n")
    r = report(ownsan, d)
    c.equal(blocks(r.out).get("8888888888888888", {}).get("freed by"),
            'LLVM itself during LLVMRunPasses("dce") at mybind/passes.py:14 '
            "in run", "a free by LLVM during a pass names the pass", r)


def race_and_first_seen(c, ownsan):
    """The JSON fields `other` (context-race: the other thread's call) and
    `first_seen_in` (an object created outside the LLVM-C API)."""
    r = report(ownsan, RACE)
    c.equal(r.returncode, 1, "race fixture: exit 1", r)
    final_line(c, r, 2, 3, 1, "race fixture")
    got = blocks(r.out)
    c.equal(got.get(R, {}).get("other call"),
            "thread T1 is inside LLVMBuildAdd on the same context, entered "
            "at tests/test_threads.py:24 in worker",
            "context-race: the other thread's call and where it entered it",
            r)
    c.equal(got.get(X, {}).get("created"),
            "outside the LLVM-C API (first seen in a call to "
            "LLVMGetGlobalParent)",
            "created outside the API: the call ownsan first saw it in", r)
    c.check("other call" not in got.get(X, {}) and
            "created" not in got.get(R, {}),
            "neither row where its field is null", r)


def kind_list(c, ownsan, tmp):
    """The kind list (share/ownsan/error_kinds.json, generated from
    src/report/error_kinds.def) is read from beside the script; without it
    the tool still works, with a warning."""
    names = [k["name"] for k in load_kinds(ownsan)]
    c.equal(sorted(names), sorted([
        "use-after-free", "double-free", "invalid-free",
        "dangling-insertion-point", "context-race", "cross-context",
        "use-after-consume", "invalid-transfer", "wrong-handle-kind"]),
        "the kind list beside the script has the runtime's 9 kinds")
    alone = os.path.join(tmp, "alone")
    os.mkdir(alone)
    # The script and its modules (ownsan_*.py), not the kind list.
    share = os.path.dirname(script_path(ownsan))
    for module in sorted(os.listdir(share)):
        if module.startswith("ownsan_") and module.endswith(".py"):
            shutil.copy(os.path.join(share, module), alone)
    cmd = ["/usr/bin/python3", os.path.join(alone, "ownsan_report.py"), RACE]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = proc.stderr.decode("utf-8", "replace")
    c.equal(proc.returncode, 1, "without the kind list: still exit 1 with "
            "problems", err)
    c.check(re.fullmatch(r"ownsan report: warning: cannot read the kind list "
                         r"\S+/error_kinds\.json \(.*\); every kind gets a "
                         r"generic description\n", err),
            "without the kind list: one warning line naming the file", err)


def main():
    args = parse_args(__doc__)
    c = Checker("ownsan report: command line and terminal summary")
    with tempfile.TemporaryDirectory(prefix="ownsan-report-") as tmp:
        usage_errors(c, args.ownsan, tmp)
        clean_runs(c, args.ownsan, tmp)
        the_run(c, args.ownsan)
        summaries(c, args.ownsan)
        odd_input(c, args.ownsan, tmp)
        freed_by_llvm(c, args.ownsan, tmp)
        race_and_first_seen(c, args.ownsan)
        kind_list(c, args.ownsan, tmp)
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
