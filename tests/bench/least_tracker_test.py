#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The least tracker (bench/least_tracker_preload.c), the reference
docs/performance.md measures ownsan against, does what it is said to do:
under each of its variants it stops a use of a block after its module's
dispose and names the call, with its operator delete hook a use of an
instruction LLVM erased, lets a correct program run, and in the
IR-building workload changes no output and records a death for every
object it registered; with LLVM 19, whose numbers the docs give, it
registers exactly the objects ownsan's `verbosity=1` work line counts.

    least_tracker_test.py --preload LIB --seed PROG --workload PROG \\
        --runtime libownsan.so --llvm-major N
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import unittest

ARGS = None

VARIANTS = {
    "default": {},
    "freed in a table": {"LEAST_TRACKER_SHADOW": "table"},
    "stacks and ownsan's work": {
        "LEAST_TRACKER_STACK_FRAMES": "24",
        "LEAST_TRACKER_ADD": "lock,record,classify,name,alloc,free"},
}


def run(cmd, extra=None):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("LEAST_TRACKER_", "OWNSAN_")) or k == "LD_PRELOAD":
            del env[k]
    env.update(extra or {})
    return subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=300)


class LeastTracker(unittest.TestCase):
    def test_stops_a_use_after_dispose(self):
        for name, extra in VARIANTS.items():
            with self.subTest(variant=name):
                p = run([ARGS.seed, "dangling"],
                        dict(extra, LD_PRELOAD=ARGS.preload))
                self.assertEqual(p.returncode, -signal.SIGABRT, p.stderr)
                self.assertRegex(
                    p.stderr, r"module disposed\nleast_tracker: "
                    r"LLVMPositionBuilderAtEnd: handle 0x[0-9a-f]+ was freed")

    def test_stops_a_use_after_erasure_with_the_free_hook(self):
        p = run([ARGS.seed, "erased"],
                {"LD_PRELOAD": ARGS.preload, "LEAST_TRACKER_ADD": "free"})
        self.assertEqual(p.returncode, -signal.SIGABRT, p.stderr)
        self.assertRegex(p.stderr, r"least_tracker: LLVMGetInstructionOpcode: "
                         r"handle 0x[0-9a-f]+ was freed")

    def test_lets_a_correct_program_run(self):
        for name, extra in VARIANTS.items():
            with self.subTest(variant=name):
                p = run([ARGS.seed, "clean"],
                        dict(extra, LD_PRELOAD=ARGS.preload))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("least_tracker:", p.stderr)

    def test_tracks_the_workload(self):
        cmd = [ARGS.workload, "modules", "120"]
        plain = run(cmd)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        for name, extra in VARIANTS.items():
            with self.subTest(variant=name):
                p = run(cmd, dict(extra, LD_PRELOAD=ARGS.preload,
                                  LEAST_TRACKER_COUNT="1"))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout, plain.stdout)
                m = re.search(r"least_tracker: (\d+) objects registered, "
                              r"(\d+) deaths, (\d+) handle checks", p.stderr)
                self.assertIsNotNone(m, p.stderr)
                registered, deaths, checks = map(int, m.groups())
                self.assertGreater(registered, 120 * 300)
                self.assertEqual(deaths, registered)
                self.assertGreater(checks, 5 * registered)

    def test_registers_what_ownsan_registers(self):
        if ARGS.llvm_major != 19:
            self.skipTest("the docs' numbers are LLVM 19's")
        cmd = [ARGS.workload, "modules", "120"]
        lt = run(cmd, {"LD_PRELOAD": ARGS.preload, "LEAST_TRACKER_COUNT": "1"})
        own = run(cmd, {"LD_PRELOAD": ARGS.runtime,
                        "OWNSAN_OPTIONS": "verbosity=1"})
        self.assertEqual(own.returncode, 0, own.stderr)
        ours = re.search(r"least_tracker: (\d+) objects registered", lt.stderr)
        theirs = re.search(r"OwnSan: work: \d+ checked calls, (\d+) objects "
                           r"registered", own.stderr)
        self.assertIsNotNone(ours, lt.stderr)
        self.assertIsNotNone(theirs, own.stderr)
        self.assertEqual(int(ours[1]), int(theirs[1]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--preload", required=True)
    ap.add_argument("--seed", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--llvm-major", type=int, required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
