# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/run_benchmarks.py's per-call table: a cell's overhead is, in each
process of the per-call run, wrapped - direct (both measured in that
process), and the table gives the median of those over the processes, with
the least and the most of them; not the difference of the medians.
"""

import pathlib
import statistics
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import run_benchmarks as rb  # noqa: E402  (bench/ is not a package)

KEY = "call/LLVMTypeOf/wrapped/live:0/freed:0/probes:1/threads:1"
DIRECT = KEY.replace("/wrapped/", "/direct/")


def micro(runs):
    """The shape run_micro returns for these processes' rows."""
    calls = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    return {"plain": {DIRECT: 2.0}, "calls": calls, "calls_runs": runs,
            "events": {}, "events_nostack": {}}


class MedianOverProcesses(unittest.TestCase):
    def test_overhead_is_the_median_of_each_process_difference(self):
        # The second process is slow at both calls (its layout), the third
        # at the wrapped one: differences 7, 8 and 14.
        runs = [{DIRECT: 2.0, KEY: 9.0}, {DIRECT: 5.0, KEY: 13.0},
                {DIRECT: 2.0, KEY: 16.0}]
        rows, _, _ = rb.micro_tables(micro(runs))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["overhead_ns"], 8.0)  # (not 13 - 2 = 11)
        self.assertEqual(rows[0]["overhead_spread_ns"], [7.0, 14.0])
        self.assertEqual(rows[0]["processes"], 3)

    def test_one_process_is_its_own_difference(self):
        rows, _, _ = rb.micro_tables(
            {"plain": {}, "calls": {DIRECT: 2.0, KEY: 9.5}, "events": {},
             "events_nostack": {}})
        self.assertEqual(rows[0]["overhead_ns"], 7.5)
        self.assertEqual(rows[0]["overhead_spread_ns"], [7.5, 7.5])
        self.assertEqual(rows[0]["processes"], 1)


if __name__ == "__main__":
    unittest.main()
