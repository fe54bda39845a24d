#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Debian's OCaml LLVM bindings (libllvm-19-ocaml-dev) under ownsan.

    check_ocaml.py --ownsan OWNSAN --program OCAML_SUITE --source SUITE_ML

OCAML_SUITE is tests/ocaml/ocaml_suite.ml built with ocamlopt -g against
the bindings: a small suite with clean tests and five seeded bugs, one of
them a GC finalizer that disposes a module after its context was disposed.
It names the running test in OWNSAN_TEST_NAME ("ocaml/<name>"). Checks:

  1. clean tests without ownsan: the reference stdout;
  2. the same under ownsan, default options and report_leaks=1: the same
     stdout, exit 0, nothing on stderr (the builders' finalizers dispose
     them after their context is gone, which is harmless and must not be
     reported; report_leaks sees those disposes);
  3. every test under ownsan with halt_on_error=0:fast_unwind=0 and JSON
     reports in a log file: each seeded bug reported once, for its test,
     with its kind, LLVM-C call, freeing call and cause, and use, free and
     create stacks reaching the suite's marked lines (ocamlopt keeps no
     frame pointers: fast_unwind=0 walks through OCaml frames); the clean
     tests print as in 1; the exit summary counts the five problems;
  4. `ownsan report --sarif --junit --html` on that log: one SARIF result
     per bug, located at the marked use line, with its test; one failing
     JUnit case per bug; one HTML page per problem;
  5. every test with default unwinding (fast_unwind=1, whose frame-pointer
     walk stops at the bindings' C stubs): still one report per bug, each
     use stack at its line (a report unwinds its use stack with DWARF when
     the walk stopped early; two of the bugs reach LLVM through the same
     stub and would otherwise be one problem);
  6. one seeded test with default options: ownsan halts at the misuse with
     one text report naming the test.

Prints "N passed, M failed".
"""

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
from ownsan_testing import (Checker, FormatError, clean_env, marker_line,
                            parse_json_lines, parse_leak_reports,
                            parse_reports, run, run_ownsan_report)

SUITE_FILE = "ocaml_suite.ml"


class Bug:
    def __init__(self, name, kind, fn, free_fn, cause):
        self.name, self.kind, self.fn = name, kind, fn
        self.free_fn, self.cause = free_fn, cause

    @property
    def test(self):
        return f"ocaml/{self.name}"


BUGS = [
    Bug("use-after-module-dispose", "use-after-free", "LLVMGetLinkage",
        "LLVMDisposeModule", "because it belonged to that module"),
    Bug("module-disposed-twice", "double-free", "LLVMDisposeModule",
        "LLVMDisposeModule", None),
    Bug("type-after-context-dispose", "use-after-free", "LLVMGetTypeKind",
        "LLVMContextDispose", "because it belonged to that context"),
    Bug("finalizer-after-context", "double-free", "LLVMDisposeModule",
        "LLVMContextDispose", "because it belonged to that context"),
    Bug("linkage-after-module-dispose", "use-after-free", "LLVMGetLinkage",
        "LLVMDisposeModule", "because it belonged to that module"),
]


def suite_frame(stack):
    """The first frame of `stack` (JSON frames) in the suite's source."""
    for f in stack:
        if (f.get("file") or "").endswith("/" + SUITE_FILE):
            return f
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--program", required=True)
    p.add_argument("--source", required=True)
    a = p.parse_args()
    c = Checker("ocaml")
    tmp = tempfile.mkdtemp(prefix="ownsan-ocaml-")
    try:
        body(a, c, tmp)
    except Exception as e:
        import traceback
        traceback.print_exc()
        c.check(False, f"driver raised {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.finish()


def body(a, c, tmp):
    def under_ownsan(which, options):
        return run([a.ownsan, "run", "--", a.program, which],
                   env=clean_env(OWNSAN_OPTIONS=options))

    # --- 1. Reference ----------------------------------------------------------
    ref = run([a.program, "clean"], env=clean_env())
    c.check(ref.returncode == 0 and "ocaml_suite: 3 test(s) ran" in ref.out
            and "define i32 @add" in ref.out,
            "reference: the clean tests run without ownsan", ref)

    # --- 2. Clean tests under ownsan ----------------------------------------------
    for options in (None, "report_leaks=1"):
        r = under_ownsan("clean", options)
        c.check(r.returncode == 0 and r.out == ref.out and r.err == "",
                f"clean tests, OWNSAN_OPTIONS={options}: same stdout, exit "
                f"0, nothing on stderr", r)
    # The check above can see a missed finalizer dispose: a builder left
    # undisposed is a leak report.
    r = under_ownsan("clean_build_and_print", "report_leaks=1")
    try:
        leaks = parse_leak_reports(r.err)
    except FormatError:
        leaks = None
    c.equal(leaks, [], "report_leaks=1: the builder's GC finalizer disposed "
            "it (no leak report)", r)
    r = under_ownsan("keep_a_builder", "report_leaks=1")
    try:
        leaks = parse_leak_reports(r.err)
    except FormatError:
        leaks = None
    c.check(leaks and [(g.count, g.handle_type, g.fn) for g in
                       leaks[0].groups] ==
            [(1, "LLVMBuilderRef", "LLVMCreateBuilderInContext")],
            "report_leaks=1: a builder kept until exit (its finalizer never "
            "runs) is reported as leaked", r)

    # --- 3. Every test, continue mode, JSON log ----------------------------------
    logdir = os.path.join(tmp, "logs")
    os.mkdir(logdir)
    r = under_ownsan("all", "halt_on_error=0:fast_unwind=0:"
                     f"log_path={logdir}/ownsan:report_format=json")
    c.equal(r.returncode, 1, "all tests: exit status 1 (problems were "
            "reported)", r)
    c.check("ocaml_suite: 8 test(s) ran" in r.out and
            all(f"{b.name}: ok" in r.out for b in BUGS),
            "all tests: the run goes on past each misuse (the calls are "
            "skipped) and every test finishes", r)
    # (all but the reference's last line, its count of tests)
    ref_lines = [l for l in ref.out.splitlines()
                 if not l.startswith("ocaml_suite: ")]
    got_lines = r.out.splitlines()
    it = iter(got_lines)
    c.check(all(line in it for line in ref_lines),
            "all tests: the clean tests print what they print without "
            "ownsan", r)
    c.check(r.err == "", "all tests: nothing on stderr (all in the log)", r)
    files = sorted(os.listdir(logdir))
    c.equal(files, [f"ownsan.{r.pid}"], "all tests: one log file", r)
    objs = []
    for name in files:
        with open(os.path.join(logdir, name), encoding="utf-8") as fh:
            objs += parse_json_lines(c, fh.read(), f"log {name}")
    reports = [o for o in objs if o.get("ownsan_report")]
    summaries = [o for o in objs if o.get("ownsan_summary")]
    c.equal(len(reports), len(BUGS), "one report per seeded bug",
            [o.get("summary") for o in reports])
    by_name = {}
    for bug in BUGS:
        mine = [o for o in reports if o.get("test") == bug.test]
        if not c.equal(len(mine), 1, f"{bug.name}: reported once, for test "
                       f"{bug.test}", [o.get("test") for o in reports]):
            continue
        o = by_name[bug.name] = mine[0]
        free = o.get("free") or {}
        c.equal((o["kind"], o["call"]["function"], free.get("function"),
                 free.get("cause")),
                (bug.kind, bug.fn, bug.free_fn, bug.cause),
                f"{bug.name}: {bug.kind} in {bug.fn}, freed by "
                f"{bug.free_fn} ({bug.cause or 'itself'})", o["text"])
        use_line = marker_line(a.source, f"SEEDED-USE: {bug.name} ")
        free_line = marker_line(a.source, f"SEEDED-FREE: {bug.name} ")
        uf = suite_frame(o["use"]["stack"])
        ff = suite_frame(free.get("stack") or [])
        c.check(uf is not None and uf.get("line") == use_line,
                f"{bug.name}: the use stack reaches {SUITE_FILE}:{use_line}",
                o["text"])
        c.check(ff is not None and ff.get("line") == free_line,
                f"{bug.name}: the free stack reaches {SUITE_FILE}:"
                f"{free_line}", o["text"])
        cf = suite_frame((o.get("create") or {}).get("stack") or [])
        c.check(cf is not None, f"{bug.name}: the create stack reaches "
                f"{SUITE_FILE}", o["text"])
    fin = by_name.get("finalizer-after-context")
    if fin:
        uf = suite_frame(fin["use"]["stack"])
        c.check(uf is not None and "dispose_owned" in (uf.get("function")
                                                       or ""),
                "finalizer-after-context: the use is the GC finalizer "
                "(dispose_owned)", fin["text"])
    if c.equal(len(summaries), 1, "one exit summary"):
        c.equal(sorted(p["count"] for p in summaries[0]["problems"]),
                [1] * len(BUGS), "the exit summary counts each problem once",
                summaries[0])

    # --- 4. ownsan report ----------------------------------------------------------
    out = os.path.join(tmp, "report")
    os.mkdir(out)
    rr, results, cases, pages = run_ownsan_report(c, a.ownsan, logdir, out)
    c.equal(rr.returncode, 1, "ownsan report: exit 1 (problems found)", rr)
    for bug in BUGS:
        o = by_name.get(bug.name)
        if not o:
            continue
        mine = [x for x in results if x.get("partialFingerprints", {}).get(
            "ownsanProblemId/v1") == o["problem_id"]]
        if not c.equal(len(mine), 1, f"SARIF: {bug.name}: one result"):
            continue
        x = mine[0]
        loc = (x.get("locations") or [{}])[0].get("physicalLocation", {})
        use_line = marker_line(a.source, f"SEEDED-USE: {bug.name} ")
        c.check(x.get("ruleId") == bug.kind and
                x.get("properties", {}).get("tests") == [bug.test] and
                loc.get("artifactLocation", {}).get("uri", "").endswith(
                    "/" + SUITE_FILE) and
                loc.get("region", {}).get("startLine") == use_line,
                f"SARIF: {bug.name}: rule {bug.kind}, test {bug.test}, "
                f"located at {SUITE_FILE}:{use_line}", x)
    c.equal(len(results), len(BUGS), "SARIF: one result per seeded bug")
    failing = sorted(tc.get("classname") for tc in cases
                     if tc.find("failure") is not None)
    c.equal(failing, sorted(b.test for b in BUGS),
            "JUnit: one failing case per seeded bug, named by its test")
    c.equal(pages, sorted(["index.html", "kinds.html"] + [
        f"problem-{o['problem_id']}.html" for o in by_name.values()]),
        "HTML: index.html, kinds.html and one page per problem")

    # --- 5. Default unwinding ----------------------------------------------------
    r = under_ownsan("all", "halt_on_error=0:report_format=json")
    reports = [o for o in parse_json_lines(c, r.err, "default unwinding: "
                                           "stderr", r)
               if o.get("ownsan_report")]
    c.equal(sorted(o.get("test") for o in reports),
            sorted(b.test for b in BUGS), "default unwinding: one report per "
            "seeded bug, each for its test (none merged with another)",
            [o.get("summary") for o in reports])
    for bug in BUGS:
        mine = [o for o in reports if o.get("test") == bug.test]
        use_line = marker_line(a.source, f"SEEDED-USE: {bug.name} ")
        uf = suite_frame(mine[0]["use"]["stack"]) if mine else None
        c.check(uf is not None and uf.get("line") == use_line,
                f"default unwinding: {bug.name}: the use stack reaches "
                f"{SUITE_FILE}:{use_line}", mine and mine[0]["text"])

    # --- 6. Default options: halt at the first misuse ---------------------------
    r = under_ownsan("use-after-module-dispose", None)
    try:
        treps = parse_reports(r.err, require_functions=True)
    except FormatError as e:
        treps = []
        c.check(False, f"halting run: the report parses ({e})", r)
    c.check(r.returncode not in (0, None) and len(treps) == 1 and
            treps[0].kind == "use-after-free" and
            treps[0].test == "ocaml/use-after-module-dispose" and
            "use-after-module-dispose: ok" not in r.out,
            "default options: halts at the misuse with one use-after-free "
            "report for test ocaml/use-after-module-dispose", r)


if __name__ == "__main__":
    sys.exit(main())
