#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Unit tests for check_report.py: the report parser (ownsan_testing), the
case list (the CHECK prefixes of seeded.c and seeded.py), and the three-run
driver with a fake ownsan and FileCheck.

Run: python3 -m unittest discover -s tests/seeded   (or pytest tests/seeded)
"""

import contextlib
import io
import os
import re
import shutil
import stat
import sys
import tempfile
import textwrap
import unittest

import check_report
from ownsan_testing import (ReportFormatError, check_prefix_cases,
                            filecheck_path, parse_reports, report_headers)

CONTEXT = 0x55D0C8E0C000
SUBJECT = 0x55D0C8E1A2B0
HANDLES = {"context": CONTEXT, "subject": SUBJECT}
SRC = "/work/main/tests/seeded/c/seeded.c"

# What ownsan should print for use_instruction_after_block_delete (C).
C_REPORT = textwrap.dedent(f"""\
    ==12345==ERROR: OwnSan: use-after-free on LLVMValueRef {SUBJECT:#x} (instruction %sum in block %entry of function @foo in module "m")
      passed as argument 1 of LLVMGetValueName2 on thread T0:
        #0 0x55d0c8e00123 in use_instruction_name {SRC}:88:3
        #1 0x55d0c8e00456 in case_use_instruction_after_block_delete {SRC}:303:5
        #2 0x55d0c8e00789 in main {SRC}:480:20
      freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
        #0 0x55d0c8e00abc in delete_the_block {SRC}:190:3
        #1 0x55d0c8e00def in case_use_instruction_after_block_delete {SRC}:302:5
        #2 0x55d0c8e00789 in main {SRC}:480:20
      created by LLVMBuildAdd on thread T0:
        #0 0x55d0c8e00111 in build_sum {SRC}:120:10
        #1 0x55d0c8e00222 in build_foo {SRC}:140:12
        #2 0x55d0c8e00333 in case_use_instruction_after_block_delete {SRC}:297:3
        #3 0x55d0c8e00789 in main {SRC}:480:20
      ownership chain when freed: context {CONTEXT:#x} -> module "m" -> function @foo -> block %entry -> instruction %sum
    SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {SRC}:88:3 in use_instruction_name
    """)

PY = "/work/main/tests/seeded/python/seeded.py"

# The same bug found in the Python program: Python frames among native ones.
PYTHON_REPORT = textwrap.dedent(f"""\
    ==777==ERROR: OwnSan: use-after-free on LLVMValueRef {SUBJECT:#x} (instruction %sum in block %entry of function @foo in module "m")
      passed as argument 1 of LLVMGetValueName2 on thread T0:
        #0 0x7f0000001000 in ffi_call_unix64 (/lib/x86_64-linux-gnu/libffi.so.8+0x7b16)
        #1 {PY}:275 in use_instruction_name (python)
        #2 {PY}:350 in case_use_instruction_after_block_delete (python)
        #3 {PY}:475 in main (python)
        #4 {PY}:482 in <module> (python)
      freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
        #0 {PY}:234 in delete_the_block (python)
        #1 {PY}:349 in case_use_instruction_after_block_delete (python)
      created by LLVMBuildAdd on thread T0:
        #0 0x7f0000001000 (/lib/x86_64-linux-gnu/libffi.so.8+0x7b16)
        #1 {PY}:175 in build_sum (python)
        #2 {PY}:200 in build_foo (python)
      ownership chain when freed: context {CONTEXT:#x} -> module "m" -> function @foo -> block %entry -> instruction %sum
    SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {PY}:275 in use_instruction_name
    """)

# An invalid free: nothing freed %sum before, so no "freed by" section; the
# explanation comes right after the header and the chain is not "when freed".
INVALID_FREE_REPORT = textwrap.dedent(f"""\
    ==4242==ERROR: OwnSan: invalid-free on LLVMValueRef {SUBJECT:#x} (instruction %sum in block %entry of function @foo in module "m")
      LLVMDeleteInstruction frees only detached instructions; this one is still in block %entry
      passed as argument 1 of LLVMDeleteInstruction on thread T0:
        #0 0x401000 in delete_the_instruction {SRC}:202:3
        #1 0x401100 in case_delete_attached_instruction {SRC}:410:3
        #2 0x401200 in main {SRC}:480:20
      created by LLVMBuildAdd on thread T0:
        #0 0x401300 in build_sum {SRC}:120:10
        #1 0x401400 in build_foo {SRC}:140:12
      ownership chain: context {CONTEXT:#x} -> module "m" -> function @foo -> block %entry -> instruction %sum
    SUMMARY: OwnSan: invalid-free in LLVMDeleteInstruction {SRC}:202:3 in delete_the_instruction
    """)


class ParserTest(unittest.TestCase):
    def test_finds_every_section(self):
        [r] = parse_reports("program output\nseeded: subject = 0x1\n" + C_REPORT)
        self.assertEqual(r.pid, 12345)
        self.assertEqual(r.kind, "use-after-free")
        self.assertEqual(r.handle_type, "LLVMValueRef")
        self.assertEqual(r.address, SUBJECT)
        self.assertEqual(
            r.label,
            'instruction %sum in block %entry of function @foo in module "m"')
        self.assertEqual(r.use.fields["arg"], "1")
        self.assertEqual(r.use.fields["call"], "LLVMGetValueName2")
        self.assertEqual(r.use.functions(),
                         ["use_instruction_name",
                          "case_use_instruction_after_block_delete", "main"])
        self.assertEqual(r.use.frames[0].location, f"{SRC}:88:3")
        self.assertEqual(r.free.fields["call"], "LLVMDeleteBasicBlock")
        self.assertEqual(r.free.fields["label"],
                         'block %entry of function @foo in module "m"')
        self.assertEqual(r.free.fields["because"], "block")
        self.assertEqual(r.free.functions()[0], "delete_the_block")
        self.assertEqual(r.create.fields["call"], "LLVMBuildAdd")
        self.assertEqual(r.create.functions()[:2], ["build_sum", "build_foo"])
        self.assertEqual(r.order, ["use", "free", "create"])
        self.assertTrue(r.chain.endswith("-> block %entry -> instruction %sum"))
        self.assertEqual(r.summary_fields["kind"], "use-after-free")
        self.assertEqual(r.summary_fields["call"], "LLVMGetValueName2")
        self.assertEqual(r.notes, [])

    def test_python_and_unsymbolized_frames(self):
        [r] = parse_reports(PYTHON_REPORT)
        self.assertEqual(r.pid, 777)
        frames = r.use.frames
        self.assertFalse(frames[0].python)
        self.assertEqual(frames[0].function, "ffi_call_unix64")
        self.assertTrue(frames[1].python)
        self.assertEqual(frames[1].function, "use_instruction_name")
        self.assertEqual(frames[1].location, f"{PY}:275")
        self.assertIsNone(r.create.frames[0].function)
        self.assertEqual(r.create.functions(), ["build_sum", "build_foo"])

    def test_free_line_without_because(self):
        text = C_REPORT.replace(", because it belonged to that block:", ":")
        [r] = parse_reports(text)
        self.assertIsNone(r.free.fields["because"])

    def test_explanation_lines_are_notes(self):
        [r] = parse_reports(INVALID_FREE_REPORT)
        self.assertIsNone(r.free)
        self.assertEqual(len(r.notes), 1)
        self.assertIn("frees only detached instructions", r.notes[0])
        self.assertTrue(r.chain.startswith("context "))

    def test_other_free_lines(self):
        lines = {
            ", as a side effect of that call:": ("LLVMDeleteBasicBlock", None),
            "freed during LLVMDisposeModule on thread T0, by LLVM itself:":
                (None, None),
            "freed outside any LLVM-C call on thread T0:": (None, None),
        }
        for new, (call, because) in lines.items():
            with self.subTest(new):
                old = (", because it belonged to that block:" if new[0] == ","
                       else 'freed by LLVMDeleteBasicBlock(block %entry of '
                            'function @foo in module "m") on thread T0, because '
                            'it belonged to that block:')
                [r] = parse_reports(C_REPORT.replace(old, new))
                self.assertEqual(r.free.fields["call"], call)
                self.assertEqual(r.free.fields["because"], because)
                self.assertEqual(r.free.functions()[0], "delete_the_block")

    def test_no_stack_recorded(self):
        text = C_REPORT.replace(
            f"    #0 0x55d0c8e00111 in build_sum {SRC}:120:10\n"
            f"    #1 0x55d0c8e00222 in build_foo {SRC}:140:12\n"
            f"    #2 0x55d0c8e00333 in case_use_instruction_after_block_delete {SRC}:297:3\n"
            f"    #3 0x55d0c8e00789 in main {SRC}:480:20\n",
            "    <no stack recorded>\n")
        [r] = parse_reports(text)
        self.assertEqual(r.create.frames, [])

    def test_text_after_summary_is_not_part_of_the_report(self):
        [r] = parse_reports(C_REPORT + "Aborted\n")
        self.assertEqual(r.summary_fields["call"], "LLVMGetValueName2")

    def test_two_reports(self):
        self.assertEqual(len(parse_reports(C_REPORT + C_REPORT)), 2)

    def test_no_report(self):
        self.assertEqual(parse_reports("main: done\nseeded: x = 0x1\n"), [])

    def test_malformed_reports_raise(self):
        # A bad header starts no report; the driver counts the header lines
        # (report_headers) against the reports parsed.
        text = C_REPORT.replace(" on LLVMValueRef", " LLVMValueRef")
        self.assertEqual(len(report_headers(text)), 1)
        self.assertEqual(parse_reports(text, strict=False), [])
        bad = {
            "frame outside a stack": C_REPORT.replace(
                "  ownership chain", "    #0 0x1 in stray x.c:1\n  ownership chain"),
            "frames out of order": C_REPORT.replace("#1 0x55d0c8e00456", "#7 0x55d0c8e00456"),
            "unindented line": C_REPORT.replace("  created by", "created by"),
            "bad summary": C_REPORT.replace("SUMMARY: OwnSan: use-after-free in",
                                            "SUMMARY: OwnSan:"),
            "second use section": C_REPORT.replace(
                "  created by LLVMBuildAdd on thread T0:",
                "  passed as argument 2 of LLVMFoo on thread T0:"),
            "bad frame": C_REPORT.replace("#0 0x55d0c8e00123 in", "#0 nonsense in"),
        }
        for what, text in bad.items():
            with self.subTest(what):
                with self.assertRaises(ReportFormatError):
                    parse_reports(text)


class CaseListTest(unittest.TestCase):
    """The cases are the CHECK-<case> prefixes of the two programs."""

    def test_both_programs_check_the_same_cases(self):
        cases = check_report.list_cases()
        self.assertIn("double_dispose_module", cases)
        self.assertEqual(len(cases), len(set(cases)))

    def test_every_case_is_a_case_of_both_programs(self):
        with open(check_report.SOURCES["c"]) as f:
            c_table = re.findall(r'\{"(\w+)",case_\1\}',
                                 re.sub(r"\s+", "", f.read()))
        with open(check_report.SOURCES["python"]) as f:
            py_functions = re.findall(r"^def case_(\w+)\(", f.read(), re.M)
        for case in check_report.list_cases():
            with self.subTest(case):
                self.assertIn(case, c_table)
                self.assertIn(case, py_functions)

    def test_prefixes_are_read_from_every_directive(self):
        with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
            f.write("// CHECK-b: x\n// CHECK-a-NEXT: y\n// CHECK-b-NOT: z\n"
                    "// CHECK-<case>: documentation, not a case\n")
            f.flush()
            self.assertEqual(check_prefix_cases(f.name),
                             ["b", "a"])

    def test_another_check_file_lists_its_cases(self):
        # (tests/mlir/seeded/seeded_mlir.c: --list --checks FILE.)
        with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
            f.write("// CHECK-y: x\n// CHECK-x-NEXT: y\n")
            f.flush()
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = check_report.main(["--list", "--checks", f.name])
            self.assertEqual((status, out.getvalue()), (0, "y\nx\n"))

    def test_run_lines_give_the_options(self):
        with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
            f.write("// RUN-leak: OWNSAN_OPTIONS=report_leaks=1\n"
                    "// CHECK-leak: x\n// CHECK-use: y\n")
            f.flush()
            env = check_report.case_env(f.name, "leak")
            self.assertEqual(env["OWNSAN_OPTIONS"], "report_leaks=1")
            self.assertIsNone(check_report.case_env(f.name, "use"))


# --- The driver, with a fake ownsan and a fake program -----------------------

FAKE_OWNSAN = """\
#!{python}
# Fake `ownsan run -- CMD...`: marks the environment and execs CMD (same pid).
import os, sys
assert sys.argv[1:3] == ["run", "--"], sys.argv
os.environ["FAKE_OWNSAN"] = "1"
os.execv(sys.argv[3], sys.argv[3:])
"""

# Fake program with one case, use_instruction_after_block_delete. Under the
# fake ownsan its buggy run prints the report itself; FAKE_MODE bends it.
FAKE_PROGRAM = """\
#!{python}
import os, sys
mode = os.environ.get("FAKE_MODE", "good")
under_ownsan = os.environ.get("FAKE_OWNSAN") == "1"
fixed = sys.argv[2:] == ["--fixed"]
if mode == "skip":
    print("case not available in LLVM 14")
    sys.exit(77)
print("main: case", sys.argv[1], flush=True)
print("seeded: context = {context:#x}", file=sys.stderr)
print("seeded: subject = {subject:#x}", file=sys.stderr)
print("delete_the_block: LLVMDeleteBasicBlock(%entry)", flush=True)
print("use_instruction_name: LLVMGetValueName2(%sum)", flush=True)
if under_ownsan and mode == "noisy_fixed":
    print("==1==WARNING: OwnSan: something odd", file=sys.stderr)
if under_ownsan and mode == "changed_stdout" and fixed:
    print("extra line")
if under_ownsan and not fixed:
    report = {report!r}
    if mode == "wrong_pid":
        report = report.replace("==12345==", "==1==")
    else:
        report = report.replace("==12345==", "==%d==" % os.getpid())
    if mode == "wrong_stack":
        report = report.replace("in build_sum", "in make_function")
    sys.stderr.write(report)
    sys.stderr.flush()
    if mode != "no_abort":
        os.abort()
print("main: done")
"""


# The check lines of the fake program's one case: C_REPORT's facts.
FAKE_CHECKS = textwrap.dedent("""\
    // CHECK-use_instruction_after_block_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
    // CHECK-use_instruction_after_block_delete: seeded: subject = [[SUM:0x[0-9a-f]+]]
    // CHECK-use_instruction_after_block_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
    // CHECK-use_instruction_after_block_delete-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}} in use_instruction_name {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}} in case_use_instruction_after_block_delete {{.*}}seeded.c:303:
    // CHECK-use_instruction_after_block_delete: freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
    // CHECK-use_instruction_after_block_delete: created by LLVMBuildAdd on thread T0:
    // CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}} in build_sum {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
    // CHECK-use_instruction_after_block_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}} in use_instruction_name{{$}}
    """)


class DriverTest(unittest.TestCase):
    def setUp(self):
        if not shutil.which(filecheck_path()):
            self.skipTest(f"no FileCheck ({filecheck_path()}); "
                          "set OWNSAN_FILECHECK")
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.ownsan = self._script("ownsan", FAKE_OWNSAN.format(python=sys.executable))
        self.program = self._script("program", FAKE_PROGRAM.format(
            python=sys.executable, context=CONTEXT, subject=SUBJECT,
            report=C_REPORT))
        self.checks = self._script("checks.c", FAKE_CHECKS)

    def _script(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def drive(self, mode):
        old = os.environ.get("FAKE_MODE")
        os.environ["FAKE_MODE"] = mode
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                status = check_report.main([
                    "--lang", "c", "--case", "use_instruction_after_block_delete",
                    "--ownsan", self.ownsan, "--timeout", "60",
                    "--checks", self.checks,
                    "--program", self.program])
        finally:
            if old is None:
                del os.environ["FAKE_MODE"]
            else:
                os.environ["FAKE_MODE"] = old
        return status, out.getvalue()

    def test_good_run_passes(self):
        status, out = self.drive("good")
        self.assertEqual(status, 0, out)
        self.assertIn("PASS: use_instruction_after_block_delete (c)", out)

    def test_exit_77_skips(self):
        status, out = self.drive("skip")
        self.assertEqual(status, 77, out)
        self.assertEqual(out, "SKIP: case not available in LLVM 14\n")

    def test_failures(self):
        expected = {
            "wrong_pid": "error: CHECK-use_instruction_after_block_delete:",
            "wrong_stack": "CHECK-use_instruction_after_block_delete-NEXT: "
                           "#0 {{.*}} in build_sum",
            "no_abort": "exited 0",
            "noisy_fixed": '"OwnSan" on stderr',
            "changed_stdout": "stdout differs from the run without ownsan",
        }
        for mode, message in expected.items():
            with self.subTest(mode):
                status, out = self.drive(mode)
                self.assertEqual(status, 1, out)
                self.assertIn(message, out)
                self.assertIn("FAIL: use_instruction_after_block_delete (c)", out)
                self.assertIn("--- its stderr:", out)


if __name__ == "__main__":
    unittest.main()
