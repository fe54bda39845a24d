#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A pytest suite with seeded ownership bugs, run under `ownsan run`.

    run_suite.py --ownsan OWNSAN [--seeded SEEDED_C_PROGRAM]

The suite (tests/pytest_suite/suite: a tiny ctypes binding, llvmbind.py,
and four test files, most tests clean, five seeded bugs marked
`@pytest.mark.seeded`, with `# SEEDED-USE: <bug>` / `# SEEDED-FREE: <bug>`
on the lines that misuse and free; its conftest.py skips them when ownsan is
not loaded) is copied to a temporary directory and run four ways:

  1. without ownsan, `-m "not seeded"` (the seeded bugs would really touch
     freed memory): the reference outcome of every clean test;
  2. `ownsan run -- /usr/bin/python3 -m pytest -p no:cacheprovider` with
     OWNSAN_OPTIONS=halt_on_error=0:log_path=DIR/ownsan:report_format=json:
     each seeded bug reported exactly once, with its pytest test id and
     Python frames at the binding's line and the test's marked line; the
     exit summary counts it; every clean test has its reference outcome;
  3. the same with text reports; and, without log_path, a report on
     stderr must reach the terminal although pytest captures fd 2;
  4. `ownsan report --sarif --junit --html DIR` on run 2's logs: each bug
     once in the SARIF results and the JUnit failures, with its test id.

Then OWNSAN_TEST_NAME with programs that are not pytest: runner_prog.py (a
runner that sets it per case) and, with --seeded, a C program given it in
the environment.

Env OWNSAN_TEST_LIBLLVM names the libLLVM. Prints "N passed, M failed".
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
from ownsan_testing import (Checker, FormatError, clean_env, marker_line,
                            parse_exit_summaries, parse_json_lines,
                            parse_reports, run, run_ownsan_report)

PYTHON = "/usr/bin/python3"
PYTEST = [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q"]


class Bug:
    def __init__(self, bug_id, file, test, kind, fn, bind_use, bind_free,
                 count=1, phase="call"):
        self.id, self.file, self.test = bug_id, file, test
        self.kind, self.fn = kind, fn
        self.bind_use, self.bind_free = bind_use, bind_free
        self.count, self.phase = count, phase

    @property
    def test_id(self):  # what pytest puts in PYTEST_CURRENT_TEST
        return f"{self.file}::{self.test} ({self.phase})"

    @property
    def node_id(self):
        return f"{self.file}::{self.test}"


BUGS = [
    Bug("name-after-module-dispose", "test_functions.py",
        "test_name_after_module_dispose", "use-after-free",
        "LLVMGetValueName2", "Function.name", "Module.dispose"),
    Bug("module-disposed-twice", "test_modules.py",
        "test_module_disposed_twice", "double-free", "LLVMDisposeModule",
        "Module.dispose", "Module.dispose"),
    Bug("module-after-context-in-teardown", "test_modules.py",
        "test_with_module_fixture", "double-free", "LLVMDisposeModule",
        "Module.dispose", "Context.dispose", phase="teardown"),
    Bug("builder-disposed-twice", "test_builders.py",
        "test_builder_disposed_twice", "double-free", "LLVMDisposeBuilder",
        "Builder.dispose", "Builder.dispose"),
    Bug("block-count-after-context-dispose", "test_params.py",
        "test_block_count_after_context_dispose[0]", "use-after-free",
        "LLVMCountBasicBlocks", "Function.block_count", "Context.dispose",
        count=3),
]
SEEDED_NODES = [
    "test_functions.py::test_name_after_module_dispose",
    "test_modules.py::test_module_disposed_twice",
    "test_modules.py::test_with_module_fixture",
    "test_builders.py::test_builder_disposed_twice",
] + [f"test_params.py::test_block_count_after_context_dispose[{i}]"
     for i in range(3)]
SEEDED_ITEMS = len(SEEDED_NODES)


def junit_outcomes(path):
    """{nodeid: outcome} from pytest's --junitxml file."""
    out = {}
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        cls, name = tc.get("classname", ""), tc.get("name", "")
        node = cls.replace(".", "/") + ".py::" + name
        outcome = "passed"
        for child in tc:
            if child.tag in ("failure", "error"):
                outcome = child.tag
            elif child.tag == "skipped":
                outcome = ("xfailed" if child.get("type") == "pytest.xfail"
                           else "skipped")
        out[node] = outcome
    return out


def pytest_counts(text):
    """{"passed": n, ...} from pytest's last line."""
    lines = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed)",
                                                       l)]
    if not lines:
        return {}
    return {k: int(n) for n, k in re.findall(r"(\d+) (\w+)", lines[-1])}


class Suite:
    def __init__(self, args, c):
        self.a, self.c = args, c
        self.tmp = tempfile.mkdtemp(prefix="ownsan-pytest-suite-")
        self.dir = os.path.join(self.tmp, "suite")
        shutil.copytree(os.path.join(HERE, "suite"), self.dir)
        self.bind = os.path.join(self.dir, "llvmbind.py")

    def lines(self, bug):
        f = os.path.join(self.dir, bug.file)
        return {"use": marker_line(f, f"# SEEDED-USE: {bug.id}"),
                "free": marker_line(f, f"# SEEDED-FREE: {bug.id}"),
                "bind_use": marker_line(self.bind, f"# BIND: {bug.bind_use}"),
                "bind_free": marker_line(self.bind,
                                         f"# BIND: {bug.bind_free}")}

    def pytest(self, name, options=None, extra=()):
        junit = os.path.join(self.tmp, f"{name}.junit.xml")
        cmd = PYTEST + [f"--junitxml={junit}"] + list(extra) + ["."]
        if options is not None:
            cmd = [self.a.ownsan, "run", "--"] + cmd
        env = clean_env(PYTHONDONTWRITEBYTECODE="1", OWNSAN_OPTIONS=options)
        r = run(cmd, env=env, cwd=self.dir)
        outcomes = junit_outcomes(junit) if os.path.exists(junit) else {}
        return r, outcomes


def frames_ok(stack, want):
    """stack[i] is a Python frame at (file suffix, line) for each want[i]."""
    if len(stack) < len(want):
        return False
    for f, (suffix, line) in zip(stack, want):
        lang = f.get("language") if isinstance(f, dict) else (
            "python" if f.python else "native")
        file = f.get("file") if isinstance(f, dict) else f.file
        ln = f.get("line") if isinstance(f, dict) else f.line
        if lang != "python" or not (file or "").endswith("/" + suffix) or \
                ln != line:
            return False
    return True


def check_clean_outcomes(s, what, base, got):
    c = s.c
    clean = {n: o for n, o in got.items() if n not in SEEDED_NODES}
    c.equal(clean, base, f"{what}: every clean test has the outcome it has "
            f"without ownsan")
    c.equal({n: got.get(n) for n in SEEDED_NODES},
            {n: "passed" for n in SEEDED_NODES},
            f"{what}: the {len(SEEDED_NODES)} seeded test items ran (and "
            f"passed: they assert nothing about the misused call)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--seeded", help="tests/seeded/c/seeded.c built")
    a = p.parse_args(argv)
    c = Checker("pytest_suite")
    s = Suite(a, c)
    try:
        body(s)
    except Exception as e:
        import traceback
        traceback.print_exc()
        c.check(False, f"driver raised {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(s.tmp, ignore_errors=True)
    return c.finish()


def body(s):
    c, a = s.c, s.a

    # --- 1. Reference: without ownsan, seeded tests deselected -----------------
    base_run, base = s.pytest("base", None, ["-m", "not seeded"])
    base_counts = pytest_counts(base_run.out)
    c.check(base and base_counts.get("passed", 0) >= 10 and
            base_counts.get("deselected") == SEEDED_ITEMS,
            f"reference run: clean tests ran, {SEEDED_ITEMS} seeded items "
            f"deselected ({base_counts})", base_run)
    c.check(not set(SEEDED_NODES) & set(base),
            "reference run: no seeded test ran", base_run)

    # --- 2. JSON run -------------------------------------------------------------
    logdir = os.path.join(s.tmp, "json-logs")
    os.mkdir(logdir)
    opts = f"halt_on_error=0:log_path={logdir}/ownsan:report_format=json"
    r, got = s.pytest("json", opts)
    counts = pytest_counts(r.out)
    c.equal(r.returncode, 1, "json run: exit status 1 (exitcode: problems "
            "were reported)", r)
    want_counts = dict(base_counts)
    want_counts.pop("deselected", None)
    want_counts["passed"] = want_counts.get("passed", 0) + SEEDED_ITEMS
    c.equal(counts, want_counts, "json run: pytest's counts are the "
            "reference's plus the seeded items (all passing)", r)
    check_clean_outcomes(s, "json run", base, got)
    c.check("OwnSan" not in r.err and "OwnSan" not in r.out,
            "json run: nothing of OwnSan on the terminal (all in the log)", r)
    files = sorted(os.listdir(logdir))
    c.equal(files, [f"ownsan.{r.pid}"], "json run: one log file, "
            "ownsan.<pytest's pid>", r)
    objs = []
    for name in files:
        with open(os.path.join(logdir, name), encoding="utf-8") as fh:
            objs += parse_json_lines(c, fh.read(), f"json run: log {name}")
    reports = [o for o in objs if o.get("ownsan_report")]
    sums = [o for o in objs if o.get("ownsan_summary")]
    c.equal(len(reports), len(BUGS), f"json run: {len(BUGS)} reports, one per "
            f"seeded bug", [o.get("summary") for o in reports])
    by_id = {}
    for bug in BUGS:
        mine = [o for o in reports if o.get("test") == bug.test_id]
        if not c.equal(len(mine), 1, f"json run: {bug.id}: reported once, "
                       f"for test {bug.test_id!r}",
                       [(o.get("test"), o.get("summary")) for o in reports]):
            continue
        o = mine[0]
        by_id[bug.id] = o
        L = s.lines(bug)
        c.equal((o["kind"], o["call"]["function"]), (bug.kind, bug.fn),
                f"json run: {bug.id}: {bug.kind} in {bug.fn}", o["summary"])
        c.check(frames_ok(o["use"]["stack"], [("llvmbind.py", L["bind_use"]),
                                              (bug.file, L["use"])]),
                f"json run: {bug.id}: use stack = llvmbind.py:{L['bind_use']} "
                f"({bug.bind_use}), then {bug.file}:{L['use']}",
                o["use"]["stack"][:3])
        c.check(o["free"] and frames_ok(
            o["free"]["stack"], [("llvmbind.py", L["bind_free"]),
                                 (bug.file, L["free"])]),
            f"json run: {bug.id}: free stack = llvmbind.py:{L['bind_free']} "
            f"({bug.bind_free}), then {bug.file}:{L['free']}",
            o["free"] and o["free"]["stack"][:3])
        want_fn = bug.bind_use.split(".")[1]
        c.equal(o["use"]["stack"][0].get("function"), want_fn,
                f"json run: {bug.id}: the innermost frame is in {want_fn}")
    if c.equal(len(sums), 1, "json run: one exit summary"):
        counts_by_id = {p["problem_id"]: p["count"] for p in sums[0]["problems"]}
        for bug in BUGS:
            o = by_id.get(bug.id)
            c.check(o and counts_by_id.get(o["problem_id"]) == bug.count,
                    f"json run: {bug.id}: counted {bug.count} time(s) in the "
                    f"summary", sums[0]["problems"])
        c.equal(len(sums[0]["problems"]), len(BUGS),
                "json run: the summary lists only the seeded problems")

    # --- 3. Text run ---------------------------------------------------------------
    tlog = os.path.join(s.tmp, "text-logs")
    os.mkdir(tlog)
    r, got = s.pytest("text", f"halt_on_error=0:log_path={tlog}/ownsan")
    check_clean_outcomes(s, "text run", base, got)
    tfiles = sorted(os.listdir(tlog))
    text = "".join(open(os.path.join(tlog, f)).read() for f in tfiles)
    try:
        treps = parse_reports(text, require_functions=True)
    except FormatError as e:
        treps = []
        c.check(False, f"text run: reports parse ({e})", text)
    c.equal(len(treps), len(BUGS), "text run: one report per seeded bug",
            text)
    for bug in BUGS:
        mine = [t for t in treps if t.test == bug.test_id]
        if not c.equal(len(mine), 1, f"text run: {bug.id}: one report with "
                       f"'while running test {bug.test_id}'",
                       [t.test for t in treps]):
            continue
        t = mine[0]
        L = s.lines(bug)
        c.check(t.kind == bug.kind and frames_ok(
            t.stack("use"), [("llvmbind.py", L["bind_use"]),
                             (bug.file, L["use"])]) and frames_ok(
            t.stack("free"), [("llvmbind.py", L["bind_free"]),
                              (bug.file, L["free"])]),
            f"text run: {bug.id}: {bug.kind}; use and free stacks start at "
            f"the binding's line, then the test's marked line", t.text)
        c.check(all(f.python for f in t.stack("use")),
                f"text run: {bug.id}: no interpreter frames in the use stack",
                t.text)
    sm = parse_exit_summaries(text)
    c.check(len(sm) == 1 and sorted(n for n, _ in sm[0].problems) ==
            sorted(b.count for b in BUGS),
            "text run: the exit summary counts each problem", text)

    # --- Reports on stderr under pytest's output capture -------------------
    # README's `ownsan run -- python3 -m pytest tests/`: a report must reach
    # the terminal, although pytest captures fd 2 while a test runs.
    one = ["test_functions.py::test_name_after_module_dispose"]
    for options, what in ((None, "default options (halting)"),
                          ("halt_on_error=0", "halt_on_error=0, no log_path")):
        r = run([a.ownsan, "run", "--"] + PYTEST + one,
                env=clean_env(PYTHONDONTWRITEBYTECODE="1",
                              OWNSAN_OPTIONS=options), cwd=s.dir)
        c.check("ERROR: OwnSan: use-after-free on LLVMValueRef" in
                r.out + r.err, f"pytest, reports on stderr, {what}: the "
                f"report reaches the terminal despite pytest's capture", r)

    # --- 4. ownsan report ------------------------------------------------------------
    check_ownsan_report(s, logdir, by_id)

    # --- 5. OWNSAN_TEST_NAME outside pytest --------------------------------------------
    prog = os.path.join(HERE, "runner_prog.py")
    r = run([a.ownsan, "run", "--", PYTHON, prog],
            env=clean_env(OWNSAN_OPTIONS="halt_on_error=0:report_format=json"))
    objs = parse_json_lines(c, r.err, "runner: stderr", r)
    reps = [o for o in objs if o.get("ownsan_report")]
    got = [(o.get("test"), o["use"]["stack"][1]["line"] if
            len(o["use"]["stack"]) > 1 else None) for o in reps]
    want = [("runner/case-a", marker_line(prog, "# RUNNER-USE: case-a")),
            ("runner/case-b", marker_line(prog, "# RUNNER-USE: case-b")),
            (None, marker_line(prog, "# RUNNER-USE: outside"))]
    c.equal(got, want, "OWNSAN_TEST_NAME set by a runner per case names each "
            "case's report; none once it is unset", r)
    r = run([a.ownsan, "run", "--", PYTHON, prog],
            env=clean_env(OWNSAN_OPTIONS="halt_on_error=0"))
    try:
        tests = [t.test for t in
                 parse_reports(r.err, require_functions=True)]
    except FormatError:
        tests = None
    c.equal(tests, ["runner/case-a", "runner/case-b", None],
            "OWNSAN_TEST_NAME (text): 'while running test runner/case-a' ...",
            r)
    if a.seeded:
        cmd = [a.ownsan, "run", "--", a.seeded, "use_after_module_dispose"]
        r = run(cmd, env=clean_env(OWNSAN_OPTIONS="halt_on_error=0",
                                   OWNSAN_TEST_NAME="ctest: seeded #7"))
        try:
            tests = [t.test for t in
                 parse_reports(r.err, require_functions=True)]
        except FormatError:
            tests = None
        c.equal(tests, ["ctest: seeded #7"], "OWNSAN_TEST_NAME given to a C "
                "program names its report", r)
        r = run(cmd, env=clean_env(OWNSAN_OPTIONS="halt_on_error=0:"
                                   "report_format=json",
                                   OWNSAN_TEST_NAME="mine",
                                   PYTEST_CURRENT_TEST="t.py::x (call)"))
        tests = [json.loads(l).get("test") for l in r.err.splitlines()
                 if l.startswith('{"ownsan_report"')]
        c.equal(tests, ["mine"], "OWNSAN_TEST_NAME wins over "
                "PYTEST_CURRENT_TEST", r)
        r = run(cmd, env=clean_env(OWNSAN_OPTIONS="halt_on_error=0"))
        c.check("while running test" not in r.err and "OwnSan" in r.err,
                "no test variable: no 'while running test' line", r)


def check_ownsan_report(s, logdir, by_id):
    c, a = s.c, s.a
    h = run([a.ownsan, "report", "--help"], env=clean_env())
    if not c.check(h.returncode == 0 and "--sarif" in h.out,
                   "`ownsan report` exists (ownsan report --help); the report "
                   "tool is missing otherwise", h):
        return
    out = os.path.join(s.tmp, "report-out")
    os.mkdir(out)
    r, results, cases, pages = run_ownsan_report(c, a.ownsan, logdir, out)
    c.equal(r.returncode, 1, "ownsan report: exit 1 (problems found)", r)
    for bug in BUGS:
        c.check(bug.node_id in r.out,
                f"ownsan report (terminal): names test {bug.node_id}", r)
    # SARIF
    c.equal(len(results), len(BUGS), "SARIF: one result per seeded bug",
            [x.get("message") for x in results])
    for bug in BUGS:
        o = by_id.get(bug.id)
        if not o:
            continue
        mine = [x for x in results if x.get("partialFingerprints", {}).get(
            "ownsanProblemId/v1") == o["problem_id"]]
        if not c.equal(len(mine), 1, f"SARIF: {bug.id}: exactly one result "
                       f"with its problem id"):
            continue
        x = mine[0]
        props = x.get("properties", {})
        c.equal((x.get("ruleId"), props.get("tests"), props.get("count")),
                (bug.kind, [bug.node_id], bug.count),
                f"SARIF: {bug.id}: rule {bug.kind}, tests [{bug.node_id}], "
                f"count {bug.count}")
        loc = (x.get("locations") or [{}])[0].get("physicalLocation", {})
        c.check(loc.get("artifactLocation", {}).get("uri", "").endswith(
            "/" + bug.file) and loc.get("region", {}).get("startLine") ==
            s.lines(bug)["use"],
            f"SARIF: {bug.id}: located at the user's line {bug.file}:"
            f"{s.lines(bug)['use']}, past the binding's wrapper", loc)
    # JUnit
    failing = [tc for tc in cases if tc.find("failure") is not None]
    c.equal((len(cases), len(failing)), (len(BUGS), len(BUGS)),
            "JUnit: one failing testcase per seeded bug")
    for bug in BUGS:
        o = by_id.get(bug.id)
        if not o:
            continue
        mine = [tc for tc in failing if re.search(
            rf"^tests: {re.escape(bug.node_id)}$",
            tc.find("failure").text or "", re.M)]
        if not c.equal(len(mine), 1, f"JUnit: {bug.id}: one failing case "
                       f"listing 'tests: {bug.node_id}'"):
            continue
        tc = mine[0]
        f = tc.find("failure")
        c.check(f.get("message") == o["summary"] and
                tc.get("classname") == bug.file[:-len(".py")] and
                f.get("type") == bug.kind and
                f"ERROR: OwnSan: {bug.kind} on " in (f.text or ""),
                f"JUnit: {bug.id}: message = its SUMMARY, classname "
                f"{bug.file[:-len('.py')]} (pytest's), type {bug.kind}, the "
                "text report inside",
                ET.tostring(tc, encoding="unicode")[:600])
    # HTML
    want = sorted(["index.html", "kinds.html"] +
                  [f"problem-{o['problem_id']}.html" for o in by_id.values()])
    c.equal(pages, want, "HTML: index.html, kinds.html and one page per "
            "problem")


if __name__ == "__main__":
    sys.exit(main())
