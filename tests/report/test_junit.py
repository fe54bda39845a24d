#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan report --junit`: one failing JUnit test case per distinct problem.

    test_junit.py --ownsan PATH

Parses the XML with xml.etree (as a CI JUnit consumer would) and checks the
JUnit structure: <testsuites> holding one <testsuite name="ownsan"> whose
tests/failures/errors/skipped attributes match its <testcase> children; one
<testcase> per distinct problem (classname = pytest's own classname of the
first pytest test id, dotted: tests.test_mod.TestX; another runner's id as
it is; or "ownsan"; name = kind +
object label without addresses) with one <failure
message=SUMMARY type=KIND> holding the text report. A clean run has one
passing case and no failure.
"""

import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

from ownsan_testing import Checker
from report_common import (A, B, C, CLEAN, LABEL_A, LABEL_B, LABEL_C, RUN,
                           SUMMARY_A, SUMMARY_B, SUMMARY_C, SUMMARY_ONLY,
                           parse_args, report)


def parse(c, path, what):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        c.check(False, f"{what}: the JUnit file is well-formed XML", e)
        return None


def structure(c, root, what):
    """The JUnit structure; returns the testsuite element."""
    c.equal(root.tag, "testsuites", f"{what}: the root is <testsuites>")
    suites = root.findall("testsuite")
    c.equal(len(suites), 1, f"{what}: exactly one <testsuite>")
    if not suites:
        return None
    suite = suites[0]
    c.equal(suite.get("name"), "ownsan", f"{what}: the suite is named ownsan")
    cases = suite.findall("testcase")
    failures = [f for case in cases for f in case.findall("failure")]
    for attr in ("tests", "failures", "errors", "skipped"):
        ok = all(el.get(attr, "").isdigit() for el in (root, suite))
        c.check(ok, f"{what}: {attr} is a non-negative integer on "
                "<testsuites> and <testsuite>")
    c.equal(int(suite.get("tests", -1)), len(cases),
            f"{what}: testsuite tests = number of <testcase>")
    c.equal(int(suite.get("failures", -1)), len(failures),
            f"{what}: testsuite failures = number of <failure>")
    c.equal(int(suite.get("errors", -1)), 0, f"{what}: no errors")
    c.equal(int(suite.get("skipped", -1)), 0, f"{what}: none skipped")
    c.equal((root.get("tests"), root.get("failures")),
            (suite.get("tests"), suite.get("failures")),
            f"{what}: <testsuites> totals match its one suite")
    for case in cases:
        c.check(case.get("classname") and case.get("name"),
                f"{what}: every testcase has a classname and a name")
        c.check(len(case.findall("failure")) <= 1 and
                not case.findall("error"),
                f"{what}: at most one <failure>, no <error>, per testcase")
    return suite


def main():
    args = parse_args(__doc__)
    c = Checker("ownsan report --junit")
    with tempfile.TemporaryDirectory(prefix="ownsan-junit-") as tmp:
        out = os.path.join(tmp, "ownsan.xml")
        r = report(args.ownsan, "--junit", out, RUN)
        c.equal(r.returncode, 1, "exit 1 with problems", r)
        root = parse(c, out, "fixtures/run")
        if root is None:
            sys.exit(c.finish())
        with open(out, "rb") as f:
            c.check(f.read(60).startswith(b"<?xml version"),
                    "the file starts with an XML declaration")
        suite = structure(c, root, "fixtures/run")
        cases = suite.findall("testcase") if suite is not None else []
        c.equal(len(cases), 3, "one testcase per distinct problem (3)")
        want = {
            A: ("tests.test_mod", f"use-after-free {LABEL_A}", SUMMARY_A,
                "use-after-free", "==1001==ERROR: OwnSan: use-after-free"),
            B: ("seeded/double_free", f"double-free {LABEL_B}", SUMMARY_B,
                "double-free", "==2001==ERROR: OwnSan: double-free"),
            C: ("tests.test_free", f"invalid-free {LABEL_C}", SUMMARY_C,
                "invalid-free", "==1002==ERROR: OwnSan: invalid-free"),
        }
        for pid, (classname, name, summary, kind, text) in want.items():
            match = [cs for cs in cases if cs.get("name") == name]
            if not c.equal(len(match), 1, f"{pid}: one testcase named "
                           f"{name!r}"):
                continue
            case = match[0]
            c.equal(case.get("classname"), classname,
                    f"{pid}: classname is pytest's dotted classname of the "
                    "test id")
            fails = case.findall("failure")
            if not c.equal(len(fails), 1, f"{pid}: one <failure>"):
                continue
            f = fails[0]
            c.equal(f.get("message"), summary, f"{pid}: failure message is "
                    "the summary")
            c.equal(f.get("type"), kind, f"{pid}: failure type is the kind")
            c.check((f.text or "").startswith(text),
                    f"{pid}: the failure holds the text report", f.text)
            c.check(f"problem id: {pid}" in (f.text or ""),
                    f"{pid}: the failure names the problem id")
        a = [cs for cs in cases if cs.get("name") == f"use-after-free "
             f"{LABEL_A}"]
        if a:
            c.check("seen 6 times in 3 processes" in
                    (a[0].find("failure").text or ""),
                    "A: the failure gives the count and processes")

        # A problem without a named test, and one known only from a summary.
        out2 = os.path.join(tmp, "summary.xml")
        report(args.ownsan, "--junit", out2, SUMMARY_ONLY)
        root2 = parse(c, out2, "summary_only")
        if root2 is not None:
            suite2 = structure(c, root2, "summary_only")
            names = {cs.get("classname") for cs in suite2.iter("testcase")}
            c.equal(names, {"tests.test_builder", "ownsan"},
                    "a problem without a test id has classname 'ownsan'")

        # A clean run: one passing case.
        out3 = os.path.join(tmp, "clean.xml")
        r = report(args.ownsan, "--junit", out3, CLEAN)
        c.equal(r.returncode, 0, "clean run exits 0", r)
        root3 = parse(c, out3, "clean run")
        if root3 is not None:
            suite3 = structure(c, root3, "clean run")
            c.equal((suite3.get("tests"), suite3.get("failures")), ("1", "0"),
                    "clean run: one passing testcase, no failure")

        # Test names carry no addresses (they differ in every run), and
        # classnames follow pytest's junitxml (classes, parameters, phase).
        named = os.path.join(tmp, "named")
        os.mkdir(named)
        with open(os.path.join(named, "ownsan.7"), "w") as f:
            for n, (label, test) in enumerate([
                    ("context 0x5b69de0 (global)",
                     "tests/unit/test_ctx.py::TestCtx::test_a[x/y.py] "
                     "(teardown)"),
                    ("builder 0x7f00aa", "tests/test_b.py::test_b[1] (call)"),
                    ("message 0x1234 \"hi\"", "runner/case-a")]):
                f.write(json.dumps({
                    "ownsan_report": 1, "pid": 7, "kind": "double-free",
                    "problem_id": f"{n:016x}", "object": {"label": label},
                    "test": test, "summary": "s"}) + "\n")
        out5 = os.path.join(tmp, "named.xml")
        report(args.ownsan, "--junit", out5, named)
        root5 = parse(c, out5, "labels with addresses")
        if root5 is not None:
            c.equal(sorted((cs.get("classname"), cs.get("name"))
                           for cs in root5.iter("testcase")),
                    [("runner/case-a", 'double-free message "hi"'),
                     ("tests.test_b", "double-free builder"),
                     ("tests.unit.test_ctx.TestCtx",
                      "double-free context (global)")],
                    "names without addresses; classnames as pytest's "
                    "junitxml writes them (module.Class, no parameters, no "
                    "phase), another runner's test id as it is")

        # Characters XML 1.0 cannot carry, and markup, in every field.
        odd = os.path.join(tmp, "odd")
        os.mkdir(odd)
        with open(os.path.join(odd, "ownsan.6"), "w") as f:
            f.write(json.dumps({
                "ownsan_report": 1, "pid": 6, "kind": "use-after-free",
                "problem_id": "5555666677778888",
                "object": {"label": "value \x00\x01 ]]> </failure> &amp;"},
                "test": "t\x0b.py::x", "summary": "s \x1b[1m <b>",
                "text": "line1\n\x07 ]]> <x/>\n"}) + "\n")
        out4 = os.path.join(tmp, "odd.xml")
        report(args.ownsan, "--junit", out4, odd)
        root4 = parse(c, out4, "control characters and markup in input")
        if root4 is not None:
            case = root4.find("testsuite/testcase")
            c.check(case is not None and
                    "]]> </failure> &amp;" in case.get("name", ""),
                    "markup in a label round-trips through the XML")
            fail = case.find("failure") if case is not None else None
            c.check(fail is not None and "<x/>" in (fail.text or ""),
                    "markup in the text report round-trips")
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
