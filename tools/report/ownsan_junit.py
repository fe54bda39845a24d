# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The JUnit XML of `ownsan report --junit`: a failing test case per
problem, named as pytest names the test that hit it and the same in every
run, holding the text report; one passing case for a clean run."""

import re
import xml.etree.ElementTree as ET

from ownsan_text import (leak_seen, leak_text, plural, summary_text,
                         tests_text, xml_text)


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
