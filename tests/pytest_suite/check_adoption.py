#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The seeded pytest suite (tests/pytest_suite/suite) as a binding's CI runs
it: the pytest plugin, stable problem ids, readable stacks (issue 21).

    check_adoption.py --case plugin|ids|stacks --ownsan OWNSAN --program PY

plugin: `pytest -p ownsan` serially (halt_on_error=0) and with `-n 2`
        (default options: the plugin keeps the run going): each seeded test
        fails with the report as its text and its SUMMARY as the message,
        the teardown bug is an error of its test, the clean tests keep the
        outcomes they have without ownsan, pytest's exit status and
        --junitxml say so; without the runtime the plugin does nothing;
        `python3 -m ownsan.unittest` fails a unittest test the same way.
ids:    the suite copied to two directories, run from one serially and from
        the other with `-n 2`: each seeded bug has one problem id, the same
        in both runs; `ownsan report --source-root` gives one SARIF result
        per bug with that id as its fingerprint and a message whose path is
        relative.
stacks: text reports fold pytest's frames (`... N frames in pytest`) and
        fold_frames=0 shows them; the SUMMARY line and `ownsan report`
        point at the test's line, not the binding's wrapper; a double
        free's two callers are both shown.

Env OWNSAN_TEST_LIBLLVM names the libLLVM (suite/llvmbind.py).
"""

import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

from ownsan_testing import (case_main, clean_env, marker_line,
                            parse_json_lines, parse_reports, run)
from run_suite import BUGS, HERE, SEEDED_NODES, junit_outcomes

PYTEST = ["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
          "-q"]


def plugin_dir(ownsan):
    return os.path.join(os.path.dirname(os.path.realpath(ownsan)), "..",
                        "share", "ownsan", "python")


class Suite:
    """A copy of the suite in `where` (under a fresh temporary directory)."""

    def __init__(self, a, tmp, where="suite"):
        self.a, self.tmp = a, tmp
        self.dir = os.path.join(tmp, where)
        shutil.copytree(os.path.join(HERE, "suite"), self.dir)
        self.bind = os.path.join(self.dir, "llvmbind.py")

    def line(self, bug, marker):
        path = self.bind if marker == "BIND" else os.path.join(self.dir,
                                                               bug.file)
        text = {"USE": f"# SEEDED-USE: {bug.id}",
                "FREE": f"# SEEDED-FREE: {bug.id}",
                "BIND": f"# BIND: {bug.bind_use}"}[marker]
        return marker_line(path, text)

    def pytest(self, name, options=None, extra=(), under_ownsan=True,
               env_extra=None, run_args=()):
        """(Run, junit path) of pytest in the suite's directory."""
        junit = os.path.join(self.tmp, f"{name}.junit.xml")
        cmd = PYTEST + [f"--junitxml={junit}"] + list(extra)
        if under_ownsan:
            cmd = [self.a.ownsan, "run"] + list(run_args) + ["--"] + cmd
        env = clean_env(PYTHONDONTWRITEBYTECODE="1", OWNSAN_OPTIONS=options,
                        COLUMNS="300", **(env_extra or {}))
        return run(cmd, env=env, cwd=self.dir), junit

    def logged(self, name, options, extra=(), env_extra=None, run_args=()):
        """pytest with log_path=DIR/ownsan plus `options`: (Run, logs)."""
        logdir = os.path.join(self.tmp, f"{name}-logs")
        os.mkdir(logdir)
        r, _ = self.pytest(name, f"log_path={logdir}/ownsan:" + options,
                           extra, env_extra=env_extra, run_args=run_args)
        text = ""
        for f in sorted(os.listdir(logdir)):
            with open(os.path.join(logdir, f), encoding="utf-8") as fh:
                text += fh.read()
        return r, logdir, text


def testcases(path):
    """{nodeid: [(tag, message, text)]} of the failure/error elements."""
    out = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        node = (tc.get("classname", "").replace(".", "/") + ".py::" +
                tc.get("name", ""))
        out[node] = [(ch.tag, ch.get("message") or "", ch.text or "")
                     for ch in tc if ch.tag in ("failure", "error")]
    return out


def bug_of(node):
    """The seeded bug a node id (or test id with its phase) belongs to."""
    base = re.sub(r"\[\d+\]$", "", re.sub(r" \(\w+\)$", "", node))
    for bug in BUGS:
        if re.sub(r"\[\d+\]$", "", bug.node_id) == base:
            return bug
    return None


def nodes_of(bug):
    return [n for n in SEEDED_NODES if bug_of(n) is bug]


# --- plugin ------------------------------------------------------------------

def case_plugin(c, a):
    with tempfile.TemporaryDirectory(prefix="ownsan-plugin-") as tmp:
        plugin(c, a, Suite(a, tmp))


def plugin(c, a, s):
    r, junit = s.pytest("base", None, ["-p", "ownsan", "-m", "not seeded"],
                        under_ownsan=False,
                        env_extra={"PYTHONPATH": plugin_dir(a.ownsan)})
    base = junit_outcomes(junit) if os.path.exists(junit) else {}
    c.check(len(base) >= 10 and "ownsan: a report fails" not in r.out,
            "without the runtime, `-p ownsan` loads and does nothing (the "
            "clean tests run, no plugin header)", r)
    for mode, options, extra in (
            ("serial", "halt_on_error=0", []),
            ("xdist -n 2, default options", None, ["-n", "2"])):
        r, junit = s.pytest(mode.split()[0], options,
                            ["-p", "ownsan", "-rA"] + extra)
        if not c.check(os.path.exists(junit), f"{mode}: pytest wrote its "
                       "--junitxml", r):
            continue
        got = junit_outcomes(junit)
        cases = testcases(junit)
        c.equal(r.returncode, 1, f"{mode}: pytest's exit status 1 (tests "
                "failed), not the runtime's", r)
        c.equal({n: o for n, o in got.items() if n not in SEEDED_NODES},
                base, f"{mode}: every clean test has its outcome without "
                "ownsan")
        for bug in BUGS:
            for node in nodes_of(bug):
                check_plugin_node(c, s, mode, bug, node, cases.get(node), r)
    unittest_runner(c, a, s)


def check_plugin_node(c, s, mode, bug, node, elems, r):
    what = f"{mode}: {node}"
    if not c.check(elems is not None, f"{what}: in pytest's JUnit", r):
        return
    tags = [t for t, _, _ in elems]
    if bug.phase == "teardown":
        ok = tags == ["error"] and "double-free on" in elems[0][2]
        c.check(ok, f"{what}: the report in a fixture's teardown is an "
                "error of the test (its call passed)", elems)
        return
    want_msg = f"OwnSan: {bug.kind} in {bug.fn} "
    ok = (tags == ["failure"] and elems[0][1].startswith(want_msg) and
          f"ERROR: OwnSan: {bug.kind} on " in elems[0][2] and
          f"while running test {node} (call)\n" in elems[0][2])
    c.check(ok, f"{what}: fails; message '{want_msg}...' (the SUMMARY), the "
            "text report naming this test as its text", elems)
    c.check(re.search(rf"^FAILED {re.escape(node)} - {re.escape(want_msg)}",
                      r.out, re.M),
            f"{what}: pytest's short summary: 'FAILED {node} - "
            f"{want_msg}...'", r)


UNITTEST = '''\
import os, sys, unittest
sys.path.insert(0, {suite!r})
from llvmbind import Builder, Context


class Builders(unittest.TestCase):
    def setUp(self):
        self.ctx = Context()

    def tearDown(self):
        self.ctx.dispose()

    def test_clean(self):
        Builder(self.ctx).dispose()

    def test_disposed_twice(self):
        b = Builder(self.ctx)
        b.dispose()
        b.dispose()
'''


def unittest_runner(c, a, s):
    d = os.path.join(s.tmp, "ut")
    os.mkdir(d)
    with open(os.path.join(d, "test_ut.py"), "w") as f:
        f.write(UNITTEST.format(suite=s.dir))
    r = run([a.ownsan, "run", "--", "/usr/bin/python3", "-m",
             "ownsan.unittest", "-v", "test_ut"],
            env=clean_env(PYTHONDONTWRITEBYTECODE="1"), cwd=d)
    c.check(r.returncode == 1 and
            re.search(r"^test_clean .* \.\.\. ok$", r.err, re.M) and
            re.search(r"^FAIL: test_disposed_twice ", r.err, re.M) and
            "ERROR: OwnSan: double-free on LLVMBuilderRef" in r.err and
            "FAILED (failures=1)" in r.err,
            "python3 -m ownsan.unittest: the test that disposes a builder "
            "twice fails with the report, the clean one passes, exit 1", r)


# --- ids ---------------------------------------------------------------------

def case_ids(c, a):
    with tempfile.TemporaryDirectory(prefix="ownsan-ids-") as tmp:
        ids(c, a, tmp)


def problem_ids(c, what, text):
    """{bug id: {problem ids}} of the JSON reports in `text`."""
    out = {}
    for o in parse_json_lines(c, text, what):
        if o.get("ownsan_report"):
            bug = bug_of(o.get("test") or "")
            out.setdefault(bug.id if bug else None, set()).add(
                o["problem_id"])
    return out


def ids(c, a, tmp):
    one = Suite(a, tmp, "one/suite")
    two = Suite(a, tmp, "elsewhere/deeper/suite")
    opts = "halt_on_error=0:report_format=json"
    r1, _, text1 = one.logged("serial", opts)
    r2, logdir2, text2 = two.logged("xdist", opts, ["-n", "2"])
    got1 = problem_ids(c, "serial", text1)
    got2 = problem_ids(c, "xdist", text2)
    for got, what, r in ((got1, "serial", r1), (got2, "xdist -n 2", r2)):
        c.equal(sorted((k, len(v)) for k, v in got.items()),
                sorted((b.id, 1) for b in BUGS),
                f"{what}: each seeded bug has one problem id (the "
                "parametrized one too, across workers)", r)
    c.equal(got1, got2, "the same ids from another directory under "
            "`-n 2` as from this one serially")
    if a.other_llvm:
        # The same bugs on another LLVM major (its runtime and libLLVM):
        # the ids name the program's frames only, not LLVM's.
        major, libllvm = a.other_llvm.split("=", 1)
        three = Suite(a, tmp, "third/suite")
        r3, _, text3 = three.logged(
            "other-llvm", opts, env_extra={"OWNSAN_TEST_LIBLLVM": libllvm},
            run_args=["--llvm", major])
        c.equal(problem_ids(c, f"LLVM {major}", text3), got1,
                f"the same ids on LLVM {major} (its runtime, its libLLVM) as "
                "on this build's", r3)
    out = os.path.join(tmp, "sarif")
    os.mkdir(out)
    sarif = os.path.join(out, "o.sarif")
    r = run([a.ownsan, "report", "--source-root", two.dir, "--sarif", sarif,
             logdir2])
    try:
        with open(sarif, encoding="utf-8") as f:
            results = json.load(f)["runs"][0]["results"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        c.check(False, f"ownsan report wrote its SARIF ({e})", r)
        return
    fps = sorted(x["partialFingerprints"]["ownsanProblemId/v1"]
                 for x in results)
    c.equal(fps, sorted(i for v in got1.values() for i in v),
            "SARIF: one result per bug, fingerprinted with the serial run's "
            "ids", r)
    for x in results:
        msg = x["message"]["text"]
        c.check(tmp not in msg and re.search(r" test_\w+\.py:\d+ in ", msg),
                f"SARIF message relative to --source-root: {msg!r}")


# --- stacks ------------------------------------------------------------------

def case_stacks(c, a):
    with tempfile.TemporaryDirectory(prefix="ownsan-stacks-") as tmp:
        stacks(c, a, Suite(a, tmp))


def stacks(c, a, s):
    r, _, text = s.logged("text", "halt_on_error=0")
    try:
        reps = parse_reports(text, require_functions=True)
    except Exception as e:
        c.check(False, f"text reports parse ({e})", text)
        return
    by_bug = {}
    for rep in reps:
        by_bug.setdefault(bug_of(rep.test or ""), rep)
    for bug in BUGS:
        rep = by_bug.get(bug)
        if not c.check(rep is not None, f"{bug.id}: reported", text):
            continue
        test_fn = bug.test.split("[")[0]
        if bug.phase == "teardown":
            test_fn = "module_in_context"
        use = rep.section("passed as argument")
        c.check(use.folded and any("pytest" in g for _, g in use.folded) and
                not any("/_pytest/" in l or "/pluggy/" in l for l in use.raw),
                f"{bug.id}: pytest's frames are folded ('... N frames in "
                f"pytest'), none shown", rep.text)
        want = f"{s.dir}/{bug.file}:{s.line(bug, 'USE')} in {test_fn}"
        c.equal(rep.summary, f"{bug.kind} in {bug.fn} {want}",
                f"{bug.id}: the SUMMARY names the test's line, not the "
                "binding's wrapper", rep.text)
    # fold_frames=0: every frame.
    r0, _, text0 = s.logged("unfolded", "halt_on_error=0:fold_frames=0",
                            ["test_modules.py::test_module_disposed_twice"])
    c.check("/_pytest/" in text0 and "frames in pytest" not in text0,
            "fold_frames=0: pytest's frames are shown", text0 or r0)
    # ownsan report: the double free's two callers.
    r, logdir, _ = s.logged("json", "halt_on_error=0:report_format=json",
                            ["test_modules.py::test_module_disposed_twice"])
    rr = run([a.ownsan, "report", "--source-root", s.dir, logdir])
    bug = [b for b in BUGS if b.id == "module-disposed-twice"][0]
    use, free = s.line(bug, "USE"), s.line(bug, "FREE")
    c.check(re.search(rf"^    at: +test_modules\.py:{use} in "
                      r"test_module_disposed_twice$", rr.out, re.M) and
            re.search(rf"^    freed by: +LLVMDisposeModule.* at "
                      rf"test_modules\.py:{free} in "
                      r"test_module_disposed_twice$", rr.out, re.M),
            "ownsan report: the double free's use and free are at the "
            "test's two lines (relative to --source-root)", rr)
    junit = os.path.join(s.tmp, "ownsan-junit.xml")
    run([a.ownsan, "report", "--junit", junit, logdir])
    texts = [f.text or "" for f in ET.parse(junit).getroot().iter("failure")]
    c.check(len(texts) == 1 and "frames in pytest" in texts[0] and
            "/_pytest/" not in texts[0], "ownsan report --junit: the "
            "failure's text report has pytest's frames folded", texts)
    for extra, folded in (([], True), (["--all-frames"], False)):
        out = os.path.join(s.tmp, "html" + "".join(extra))
        run([a.ownsan, "report", "--html", out] + extra + [logdir])
        page = [f for f in os.listdir(out) if f.startswith("problem-")]
        with open(os.path.join(out, page[0]), encoding="utf-8") as f:
            text = f.read()
        steps = re.findall(r'<div class="where">at ([^<]*)</div>', text)
        tables = "".join(re.findall(r'<table class="stack">.*?</table>',
                                    text, re.S))
        shown = "/_pytest/" in tables
        c.check(bool(re.search(r'<tr class="folded"><td[^>]*>\.\.\. \d+ '
                               r"frames in pytest", tables)) == folded and
                shown != folded and
                [w.split(" in ")[0].rsplit("/", 1)[-1] for w in steps[1:]] ==
                [f"test_modules.py:{free}", f"test_modules.py:{use}"],
                f"ownsan report --html {' '.join(extra)}: pytest's frames "
                + ("folded" if folded else "shown") + "; the timeline's "
                "free and use at the test's two lines", steps)


if __name__ == "__main__":
    def add_arguments(p):
        p.add_argument("--other-llvm", metavar="N=LIBLLVM",
                       help="another major's libLLVM, whose runtime `ownsan "
                       "run --llvm N` finds (case ids)")
    sys.exit(case_main("pytest_suite", globals(), timeout=600,
                       add_arguments=add_arguments))
