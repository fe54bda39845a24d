#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The runtime's reports through every output, for tests/report/report_prog.c.

    check_runtime_reports.py --case CASE --ownsan OWNSAN --program REPORT_PROG
                             --options-program OPTS_PROG

Cases:
  problem_ids  `report_prog two_sites` (no debug info): the two use-after-
               frees of use_twice are two problems with two problem ids in
               the JSON reports and the exit summary, the ids are the same
               in a second run (module offsets, not addresses), and `ownsan
               report` keeps them apart (two SARIF results, two JUnit
               failures).
  names        `report_prog names`: a function and a module whose names hold
               a forged report line, terminal escapes, bytes that are not
               UTF-8 and HTML. The text report has one ERROR and one SUMMARY
               line, no escape byte and no invalid UTF-8, and shows the names
               escaped (\\n, \\x1b, \\xff, \\u009b); every JSON line is valid
               UTF-8 JSON whose label is that same escaped text; `ownsan
               report`'s terminal summary, SARIF, JUnit and HTML carry it
               with no control character, and the HTML has the markup
               escaped.
  no_log       logs written with log_path=DIR/log (not DIR/ownsan):
               `opts_prog clean` leaves its exit summary, so `ownsan report
               DIR` says 0 problems from 1 process and exits 0; `report_prog
               two_sites` next to it is read (exit 1); a directory that is
               empty, or holds only files that are not ownsan's (text
               logs, other files), exits 2 with one line on stderr.
  leaks        `opts_prog leak` with report_leaks=1, twice (exit status 1
               each): `ownsan report` counts its leak sites as problems (exit
               1), with the same ids in both processes, in the terminal
               summary, SARIF (a result per site located at the creating
               line of opts_prog.c), JUnit (a failing case per site) and
               HTML (a page per site). The leak record's fields are the
               ones docs/reports.md's "Leak object" table lists.
  doc_examples every example report of docs/reports.md (a fenced block
               with an `==PID==ERROR: OwnSan:`, `SUMMARY: OwnSan:`,
               `OwnSan: suppressions used` / `not used` or Python frames
               note line) is marked `<!-- report
               example: NAME -->`, and the run EXAMPLES[NAME] makes prints
               it: the block's lines appear in that order in the run's
               stderr, consecutive (a `...` line of the block stands for any
               lines), modulo pids, addresses, directories and line numbers.

Prints one PASS/FAIL line per check and "N passed, M failed".
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
from ownsan_testing import case_main, clean_env, run, run_ownsan_report

ERROR_LINE = re.compile(rb"^==(\d+)==ERROR: OwnSan: ", re.M)
SUMMARY_LINE = re.compile(rb"^SUMMARY: OwnSan: (?!\d+ distinct problem)", re.M)

# What report_prog's names look like in a report: C escapes for control
# characters and bytes that are not UTF-8, valid UTF-8 kept.
FUNCTION_SHOWN = (
    "f\\n==42==ERROR: OwnSan: use-after-free on LLVMValueRef 0x1 (forged)\\n"
    "SUMMARY: OwnSan: forged\\x1b[31mred\\x1b]0;title\\x07\\u009b"
    "\\xff\\xfe\\xe2\\x82 caf\u00e9 <script>alert(1)</script>")
MODULE_SHOWN = "m\\r\\n==42==ERROR: OwnSan: forged module\\x1b[2J\\xff</td>&amp;"
LABEL = f'function @{FUNCTION_SHOWN} in module "{MODULE_SHOWN}"'


def ownsan_run(a, mode, options):
    """`ownsan run -- REPORT_PROG MODE` (a Run, text decoded)."""
    return run([a.ownsan, "run", "--", a.program, mode],
               env=clean_env(OWNSAN_OPTIONS=options))


def raw_run(a, mode, options):
    """stdout and stderr as bytes (Run decodes with errors='replace')."""
    p = subprocess.run([a.ownsan, "run", "--", a.program, mode],
                       env=clean_env(OWNSAN_OPTIONS=options),
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=300)
    return p


def json_objects(c, data, what):
    """Every line of `data` (bytes) decoded as strict UTF-8 and parsed."""
    objs, bad = [], []
    for line in data.splitlines():
        try:
            objs.append(json.loads(line.decode("utf-8")))
        except ValueError as e:  # UnicodeDecodeError is a ValueError
            bad.append(f"{e}: {line[:80]!r}")
    c.equal(bad, [], f"{what}: every line is valid UTF-8 and one JSON "
            "object")
    return objs


def log_bytes(d):
    out = b""
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out += f.read()
    return out


def opts_run(a, mode, options):
    """`ownsan run -- OPTS_PROG MODE` (tests/options/opts_prog.c)."""
    return run([a.ownsan, "run", "--", a.options_program, mode],
               env=clean_env(OWNSAN_OPTIONS=options))


FINAL = re.compile(r"^ownsan report: (\d+) distinct problems in (\d+) "
                   r"reports from (\d+) processes$", re.M)


def case_no_log(c, a):
    d = tempfile.mkdtemp(prefix="ownsan-nolog-")
    r = opts_run(a, "clean", f"report_format=json:log_path={d}/log")
    c.equal(r.returncode, 0, "clean run: exit 0", r)
    c.equal(os.listdir(d), [f"log.{r.pid}"], "clean run with JSON and "
            "log_path: its log PATH.PID is written", r)
    objs = json_objects(c, log_bytes(d), "clean run's log")
    c.equal([(o.get("ownsan_summary"), o.get("problems"), o.get("exitcode"))
             for o in objs], [(1, [], 0)], "clean run's log: one exit "
            "summary, no problem, exit code 0", objs)
    rr = run([a.ownsan, "report", d])
    c.equal(rr.returncode, 0, "ownsan report on the clean log: exit 0", rr)
    m = FINAL.search(rr.out)
    c.equal(m and m.groups(), ("0", "0", "1"), "ownsan report: 0 problems "
            "from 1 process", rr)

    r = ownsan_run(a, "two_sites", "halt_on_error=0:report_format=json:"
                   f"log_path={d}/log")
    c.equal(r.returncode, 1, "two_sites with log_path=DIR/log: exit 1", r)
    rr = run([a.ownsan, "report", d])
    c.equal(rr.returncode, 1, "ownsan report reads log.PID files: exit 1",
            rr)
    m = FINAL.search(rr.out)
    c.equal(m and m.groups(), ("2", "2", "2"), "ownsan report: the two "
            "problems, from the two processes", rr)

    empty = tempfile.mkdtemp(prefix="ownsan-empty-")
    other = tempfile.mkdtemp(prefix="ownsan-other-")
    # A text log (the default report_format) is not a record.
    r = ownsan_run(a, "two_sites", f"halt_on_error=0:log_path={other}/log")
    c.equal(r.returncode, 1, "two_sites with text reports: exit 1", r)
    with open(os.path.join(other, "notes.json"), "w") as f:
        f.write('{"report": 1, "pid": 3}\nnot json\n')
    for where, what in ((empty, "an empty directory"),
                        (other, "a directory of a text log and an "
                         "unrelated JSON file")):
        rr = run([a.ownsan, "report", where])
        c.equal(rr.returncode, 2, f"{what}: exit 2", rr)
        c.equal(len(rr.err_lines), 1, f"{what}: one line on stderr", rr)
        c.check("no ownsan record" in rr.err, f"{what}: the line says no "
                "ownsan record was found", rr)
        c.equal(rr.out, "", f"{what}: nothing on stdout", rr)


DOCS = os.path.join(HERE, "..", "..", "docs", "reports.md")


def doc_field_names(heading):
    """The field names of the table under `### heading` in reports.md."""
    names, inside = [], False
    with open(DOCS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip() == f"### {heading}"
                continue
            m = inside and re.match(r"\| `([^`]+)` \|", line)
            if m:
                names.append(m[1])
    return sorted(names)


def case_leaks(c, a):
    d = tempfile.mkdtemp(prefix="ownsan-leaks-")
    for attempt in (1, 2):
        r = opts_run(a, "leak", f"report_leaks=1:report_format=json:"
                     f"log_path={d}/ownsan")
        c.equal(r.returncode, 1, f"leak run {attempt}: exit 1", r)
    objs = json_objects(c, log_bytes(d), "the leak logs")
    leaks = [o for o in objs if "ownsan_leaks" in o]
    c.equal(len(leaks), 2, "one leak record per process", objs)
    sites = {g["function"] for o in leaks for g in o["groups"]}
    written = sorted({k for o in leaks for k in o} |
                     {f"groups[].{k}" for o in leaks for g in o["groups"]
                      for k in g})
    c.equal(written, doc_field_names("Leak object"), "the leak record's "
            "fields are those docs/reports.md documents", leaks[:1])
    out = tempfile.mkdtemp(prefix="ownsan-leaks-report-")
    rr, results, cases, pages = run_ownsan_report(c, a.ownsan, d, out)
    c.equal(rr.returncode, 1, "ownsan report: exit 1 (leaks are problems)",
            rr)
    n = len(leaks[0]["groups"]) if leaks else 0
    c.check(n >= 3, f"the program leaks from several sites ({n})", objs)
    m = FINAL.search(rr.out)
    c.equal(m and m.groups()[0::2], (str(n), "2"), f"terminal: {n} distinct "
            "problems (one per leak site, the same in both processes) from "
            "2 processes", rr)
    blocks = re.findall(r"^\[\d+\] leak: .* created by (\S+)$", rr.out,
                        re.M)
    c.equal(sorted(blocks), sorted(sites), "terminal: a leak block per "
            "creating call", rr)
    c.check(re.search(r"^    created by: LLVMModuleCreateWithNameInContext "
                      r"at \S*opts_prog\.c:\d+:\d+ in make_leaked_module ",
                      rr.out, re.M), "terminal: the creating line in "
            "opts_prog.c", rr)
    c.check(re.search(r"^    leaked: +6 objects never disposed in 2 "
                      r"processes$", rr.out, re.M),
            "terminal: the 3 modules of make_leaked_module counted over both "
            "processes (6)", rr)
    leak_results = [res for res in results if res.get("ruleId") == "leak"]
    c.equal(len(leak_results), n, "SARIF: one leak result per site",
            results)
    c.check(leak_results and all(
        res.get("level") == "error" and
        res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .endswith("opts_prog.c") and
        len(res["partialFingerprints"]["ownsanProblemId/v1"]) == 16
        for res in leak_results), "SARIF: each an error located in "
        "opts_prog.c, with a fingerprint", leak_results)
    failures = [tc for tc in cases if tc.find("failure") is not None and
                tc.find("failure").get("type") == "leak"]
    c.equal(len(failures), n, "JUnit: one failing case per leak site",
            [tc.attrib for tc in cases])
    c.check(failures and all("never disposed" in tc.find("failure").text
                             for tc in failures),
            "JUnit: the failure text says what was never disposed")
    c.equal(len([p for p in pages if p.startswith("problem")]), n,
            "HTML: one page per leak site", pages)
    html_text = ""
    for name in pages:
        with open(os.path.join(out, "html", name), encoding="utf-8") as f:
            html_text += f.read()
    c.check("never disposed" in html_text and
            "make_leaked_module" in html_text,
            "HTML: the pages show the leak and its creation stack")


def case_problem_ids(c, a):
    ids_by_run = []
    for attempt in (1, 2):
        d = tempfile.mkdtemp(prefix="ownsan-ids-")
        r = ownsan_run(a, "two_sites", "halt_on_error=0:report_format=json:"
                       f"log_path={d}/ownsan")
        c.equal(r.returncode, 1, f"run {attempt}: exit status 1", r)
        c.check("use_twice: done (NULL)" in r.out, f"run {attempt}: both "
                "calls were made (and skipped)", r)
        objs = json_objects(c, log_bytes(d), f"run {attempt}: the JSON log")
        reps = [o for o in objs if "ownsan_report" in o]
        sums = [o for o in objs if "ownsan_summary" in o]
        c.equal(len(reps), 2, f"run {attempt}: two reports", r)
        frames = [rep["use"]["stack"][0] for rep in reps
                  if rep["use"]["stack"]]
        c.check(len(frames) == 2 and
                all(f["file"] is None and f["function"] == "use_twice"
                    for f in frames) and frames[0]["pc"] != frames[1]["pc"],
                f"run {attempt}: (no debug info: both use stacks start in "
                f"use_twice, at two different pcs)", r)
        ids = [rep["problem_id"] for rep in reps]
        c.check(len(set(ids)) == 2, f"run {attempt}: two problem ids "
                f"({ids})", r)
        c.check(len(sums) == 1 and
                sorted(p["problem_id"] for p in sums[0]["problems"]) ==
                sorted(ids), f"run {attempt}: the exit summary lists the "
                "same two ids", r)
        ids_by_run.append(sorted(ids))
        if attempt == 2:
            out = tempfile.mkdtemp(prefix="ownsan-ids-report-")
            rr, results, cases, pages = run_ownsan_report(c, a.ownsan, d,
                                                          out)
            c.equal(rr.returncode, 1, "ownsan report: exit 1 (problems)",
                    rr)
            c.equal(len(results), 2, "ownsan report: two SARIF results "
                    "(the problems are not merged)", rr)
            failures = [tc for tc in cases if tc.find("failure") is not None]
            c.equal(len(failures), 2, "ownsan report: two JUnit failures",
                    rr)
            c.check(re.search(r"\b2 distinct problems in 2 reports", rr.out),
                    "ownsan report: '2 distinct problems in 2 reports'", rr)
    c.equal(ids_by_run[0], ids_by_run[1], "the ids are the same in both runs "
            "(module offsets, not addresses)")


def check_text(c, err, what):
    """`err`: bytes of a text report on stderr."""
    try:
        text = err.decode("utf-8")
        c.check(True, f"{what}: valid UTF-8")
    except UnicodeDecodeError as e:
        c.check(False, f"{what}: valid UTF-8 ({e})", err)
        text = err.decode("utf-8", errors="replace")
    c.equal(len(ERROR_LINE.findall(err)), 1, f"{what}: one ==PID==ERROR "
            "line (no forged one)", text)
    c.equal(len(SUMMARY_LINE.findall(err)), 1, f"{what}: one report "
            "SUMMARY line (no forged one)", text)
    c.check(b"\x1b" not in err and b"\x07" not in err and
            "\u009b" not in text and b"\r" not in err,
            f"{what}: no ESC, BEL, CSI or CR byte", text)
    c.check(f"({LABEL})" in text, f"{what}: the header names the object "
            "with its names escaped", text)


def check_no_controls(c, text, what, allow="\n"):
    bad = sorted({ch for ch in text if (ord(ch) < 0x20 or 0x7f <= ord(ch) <=
                                        0x9f) and ch not in allow})
    c.equal(bad, [], f"{what}: no control characters", None)


def case_names(c, a):
    p = raw_run(a, "names", "halt_on_error=0")
    c.equal(p.returncode, 1, "text: exit status 1 (one problem)", p.stderr)
    check_text(c, p.stderr, "text report")

    d = tempfile.mkdtemp(prefix="ownsan-names-")
    p = raw_run(a, "names", f"halt_on_error=0:report_format=json:"
                f"log_path={d}/ownsan")
    c.equal(p.returncode, 1, "json: exit status 1", p.stderr)
    objs = json_objects(c, log_bytes(d), "json log")
    reps = [o for o in objs if "ownsan_report" in o]
    if c.equal(len(reps), 1, "json: one report"):
        rep = reps[0]
        c.equal(rep["object"]["label"], LABEL, "json: the label is the "
                "escaped text, as in the text report")
        c.equal([link["label"] for link in rep["chain"]][-2:],
                [f'module "{MODULE_SHOWN}"', f"function @{FUNCTION_SHOWN}"],
                "json: the chain carries the escaped names")
        check_text(c, rep["text"].encode("utf-8"), "json: the text field")

    out = tempfile.mkdtemp(prefix="ownsan-names-report-")
    rr, results, cases, pages = run_ownsan_report(c, a.ownsan, d, out)
    c.equal(rr.returncode, 1, "ownsan report: exit 1", rr)
    check_no_controls(c, rr.out, "ownsan report terminal summary")
    c.check(FUNCTION_SHOWN in rr.out and not
            re.search(r"^==42==", rr.out, re.M),
            "ownsan report terminal summary: the escaped name, no forged "
            "line", rr)
    msgs = [res.get("message", {}).get("text", "") for res in results]
    c.check(len(msgs) == 1 and FUNCTION_SHOWN in msgs[0] and
            MODULE_SHOWN in msgs[0], "SARIF: the result's message names the "
            "escaped function and module", rr)
    check_no_controls(c, json.dumps(results, ensure_ascii=False), "SARIF")
    with open(os.path.join(out, "ownsan-junit.xml"), encoding="utf-8") as f:
        junit = f.read()
    check_no_controls(c, junit, "JUnit", allow="\n")
    case_text = ("".join(cases[0].itertext()) +
                 " ".join(cases[0].attrib.values())) if cases else ""
    c.check(len(cases) == 1 and FUNCTION_SHOWN in case_text,
            "JUnit: the test case carries the escaped name", junit)
    html_text = ""
    for name in pages:
        with open(os.path.join(out, "html", name), encoding="utf-8") as f:
            html_text += f.read()
    c.check(pages and "<script>alert(1)" not in html_text and
            "</td>&amp;" not in html_text.replace("&lt;/td&gt;&amp;amp;", ""),
            "HTML: the names' markup is not markup", rr)
    c.check("&lt;script&gt;alert(1)&lt;/script&gt;" in html_text and
            "&lt;/td&gt;&amp;amp;" in html_text,
            "HTML: the names appear HTML-escaped", rr)
    check_no_controls(c, html_text, "HTML")


DOCS = os.path.join(HERE, "..", "..", "docs", "reports.md")
RUNNER_PROG = os.path.join(HERE, "..", "pytest_suite", "runner_prog.py")


def example_runs(a):
    """NAME -> the runs whose stderr prints the example: (argv,
    OWNSAN_OPTIONS, {file in the working directory: its text})."""
    opts, supp = a.options_program, "suppressions=ownsan.supp"
    return {
        "option_errors": [([opts, "clean"], "no_such_option=1", {}),
                          ([opts, "clean"], "report_format=xml", {})],
        "runner": [([sys.executable, RUNNER_PROG], "halt_on_error=0", {})],
        "history_evicted": [([a.lifetime, "history_evicted"],
                             "history_size_mb=1", {})],
        "leaks": [([opts, "leak"], "report_leaks=1", {})],
        "suppressions_used": [([opts, "suppress"], supp,
                               {"ownsan.supp": "fun:LLVMGetValueKind\n"})],
        "suppressions_unused": [
            ([opts, "multi"], "halt_on_error=0:verbosity=1:" + supp,
             {"ownsan.supp": "fun:use_name\n"
              "double-free:LLVMGetValueName2\n"})],
        "python_too_old": [([opts, "oldpython"], "halt_on_error=0", {})],
        "segv": [([a.hostile, "null_deref_early", "build_add"], "", {})],
        "suppression_errors": [
            ([opts, "clean"], supp, {}),
            ([opts, "clean"], supp, {"ownsan.supp": "fun:ok\nfunc:typo\n"}),
            ([opts, "clean"], supp, {"ownsan.supp": "foo\n"}),
            ([opts, "clean"], supp, {"ownsan.supp": "src:\n"})],
    }


EXAMPLE_MARK = re.compile(r"^<!-- report example: (\S+) -->$")
REPORT_LINE = re.compile(r"==\d+==ERROR: OwnSan:|^SUMMARY: OwnSan:|"
                         r"==OwnSan: suppressions (not )?used:|"
                         r"==OwnSan: note: Python frames", re.M)


def doc_examples(path):
    """[(name or None, [lines], line number)]: the fenced blocks of `path`
    that hold a report, with the name of the marker line before them."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = lines.index("```", i + 1) if "```" in lines[i + 1:] else len(
                lines)
            block = lines[i + 1:j]
            if REPORT_LINE.search("\n".join(block)):
                m = EXAMPLE_MARK.match(lines[i - 1]) if i else None
                out.append((m and m[1], block, i + 1))
            i = j + 1
        else:
            i += 1
    return out


def normalized(line):
    """A line without what changes from run to run or machine to machine:
    pids, addresses, directories, line and column numbers."""
    line = re.sub(r"==\d+==", "==PID==", line)
    line = re.sub(r"0x[0-9a-f]+", "0x?", line)
    line = re.sub(r"(?<![\w.])/?(?:[\w.+-]+/)+(?=[\w.+-])", "", line)
    return re.sub(r"(\.\w+):\d+(?::\d+)?", r"\1:?", line.rstrip())


def example_matches(block, output):
    """The block's lines appear consecutively in `output` (a `...` line
    stands for any number of lines)."""
    parts = []
    for line in block:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(re.escape(normalized(line)) + r"\n")
    text = "".join(normalized(l) + "\n" for l in output.splitlines())
    return re.search("^" + "".join(parts), text, re.M) is not None


def case_doc_examples(c, a):
    runs = example_runs(a)
    examples = doc_examples(DOCS)
    c.check(len(examples) >= len(runs), f"docs/reports.md has its example "
            f"reports ({len(examples)})")
    names = [n for n, _, _ in examples]
    c.equal(sorted(set(names) - {None}), sorted(runs),
            "every example the driver can run is in docs/reports.md", names)
    for name, block, line in examples:
        if not c.check(name in runs, f"docs/reports.md:{line}: the example "
                       "report is marked '<!-- report example: NAME -->' "
                       f"with a NAME this driver runs (got {name})",
                       "\n".join(block)):
            continue
        output = ""
        with tempfile.TemporaryDirectory(prefix="ownsan-doc-") as d:
            for argv, options, files in runs[name]:
                for f in os.listdir(d):
                    os.remove(os.path.join(d, f))
                for fname, text in files.items():
                    with open(os.path.join(d, fname), "w") as f:
                        f.write(text)
                r = run([a.ownsan, "run", "--"] + argv, cwd=d,
                        env=clean_env(OWNSAN_OPTIONS=options))
                output += r.err
        c.check(example_matches(block, output),
                f"docs/reports.md:{line}: example '{name}' is what the "
                "runtime prints (modulo pids, addresses, directories, line "
                "numbers)", "--- documented:\n" +
                "\n".join(normalized(l) for l in block) +
                "\n--- printed:\n" +
                "\n".join(normalized(l) for l in output.splitlines()))


def main():
    def more(p):
        p.add_argument("--options-program",
                       help="tests/options/opts_prog (clean and leak modes)")
        p.add_argument("--lifetime",
                       help="tests/lifetime/lifetime (doc_examples)")
        p.add_argument("--hostile",
                       help="tests/hostile/hostile (doc_examples)")
    return case_main("report.runtime", globals(), timeout=300,
                     add_arguments=more)

if __name__ == "__main__":
    sys.exit(main())
