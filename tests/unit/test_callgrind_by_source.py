# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/callgrind_by_source.py reads callgrind's instruction-level format
and gives each instruction's self cost to the right source line.

The profile below has the shape valgrind 3.19 writes with --dump-instr=yes
(`positions: instr line`): compressed object and function names, absolute
and relative addresses, and a call whose line carries the callee's
inclusive cost, which is not the caller's own.
"""

import importlib.util
import pathlib
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "callgrind_by_source", ROOT / "bench" / "callgrind_by_source.py")
cbs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cbs)

PROFILE = """\
# callgrind format
version: 1
positions: instr line
events: Ir

ob=(1) /usr/lib/x86_64-linux-gnu/libLLVM.so.19.1
fl=(1) ???
fn=(1) LLVMBuildAdd
0x5000 0 7
+4 0 3
cob=(2) /tmp/ownsan-s.so
cfi=(2) ???
cfn=(2) ownsan::Runtime::RegisterImpl
calls=1 0x100
+2 0 900

ob=(2)
fl=(2)
fn=(2)
0x100 0 10
+3 0 5
-3 0 2
* 0 1
+11 0 4
cob=(1)
cfn=(1)
calls=2 0x5000
+1 0 20
+1 0 6
"""

ADDR2LINE = """\
0x0000000000000100
ownsan::CachedLive
/work/src/runtime/record_cache.h:60
ownsan::Runtime::RegisterImpl
/work/src/runtime/tracker_registration.cpp:235
0x0000000000000103
ownsan::Runtime::RegisterImpl
/work/src/runtime/tracker_registration.cpp:224 (discriminator 2)
0x000000000000010b
ownsan::GranuleBitmap<3u>::Add
/work/src/core/granule_bitmap.h:83
ownsan::Runtime::NewRecord
/work/src/runtime/tracker_registration.cpp:336
ownsan::Runtime::RegisterImpl
/work/src/runtime/tracker_registration.cpp:224
0x000000000000010d
??
??:0
"""


class SelfCosts(unittest.TestCase):
    def test_only_the_named_objects_own_instructions_count(self):
        costs = cbs.self_costs(PROFILE, "ownsan")
        # 0x100: 10 + 2 (-3 from 0x103) + 1 (* stays at 0x100);
        # 0x103: 5; 0x10b: 4; 0x10c is the call (the callee's 20, not
        # counted); 0x10d: 6. LLVM's own lines are another object's.
        self.assertEqual(costs, {0x100: 13, 0x103: 5, 0x10b: 4, 0x10d: 6})

    def test_a_call_line_is_not_the_callers_cost(self):
        costs = cbs.self_costs(PROFILE, "libLLVM")
        self.assertEqual(costs, {0x5000: 7, 0x5004: 3})

    def test_a_profile_of_source_lines_is_refused(self):
        # (Without --dump-instr the first column is a line number, which
        # would be read as an address.)
        lines_only = PROFILE.replace("positions: instr line",
                                     "positions: line")
        with self.assertRaisesRegex(ValueError, "--dump-instr=yes"):
            cbs.self_costs(lines_only, "ownsan")


class Attribution(unittest.TestCase):
    def setUp(self):
        self.costs = cbs.self_costs(PROFILE, "ownsan")
        self.frames = cbs.parse_addr2line(ADDR2LINE)

    def test_frames_are_read_innermost_first(self):
        self.assertEqual(self.frames[0x103],
                         [("ownsan::Runtime::RegisterImpl",
                           "tracker_registration.cpp:224")])
        self.assertEqual(self.frames[0x10b][0],
                         ("ownsan::GranuleBitmap<3u>::Add",
                          "granule_bitmap.h:83"))

    def test_inlined_code_counts_for_its_own_file(self):
        self.assertEqual(
            cbs.by_source(self.costs, self.frames),
            {"record_cache.h": 13, "tracker_registration.cpp": 5,
             "granule_bitmap.h": 4, "??": 6})

    def test_lines(self):
        self.assertEqual(cbs.by_source(self.costs, self.frames, whole_line=True)
                         ["tracker_registration.cpp:224"], 5)

    def test_callers_of_a_file_are_the_functions_it_is_inlined_into(self):
        self.assertEqual(
            cbs.callers_of(self.costs, self.frames, "granule_bitmap.h"),
            {"ownsan::Runtime::RegisterImpl": 4})


if __name__ == "__main__":
    unittest.main()
