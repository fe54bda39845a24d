#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The floor of (c) (docs/performance.md, "the floor of (c)"): alternating
rounds of `ir_workload modules N` plain, with the interposition alone
(forward_only=1), with a quarantine alone (bench/quarantine_preload.c), with
both, with the least tracker (bench/least_tracker_preload.c) alone, with the
quarantine, with stacks, with ownsan's other per-object work, and with its
freed entries in a hash table, and under ownsan with stacks off and with its
defaults; each with the heap `ownsan run` gives. Prints each
variant's min and median and their ratios to plain's. Alternating rounds,
rather than one run's medians, because this machine's speed moves by tens
of percent from minute to minute.

    bench/floor_rounds.py build-bench [--rounds 7] [--modules 3000]

The build dir is a -DOWNSAN_BUILD_BENCH=ON build.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_benchmarks as rb  # noqa: E402 (the floor variants' one definition)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir", type=pathlib.Path)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--modules", type=int, default=3000)
    args = ap.parse_args()
    b = args.build_dir.resolve()
    runtime = b / "lib" / "libownsan.so"
    workload = b / "bench" / "ownsan_bench_ir_workload"
    rb.use_run_heap(b / "bin" / "ownsan")
    floor = rb.floor_envs(b)
    variants = {
        "plain": rb.on_run_heap(),
        "interposition alone": rb.on_run_heap(LD_PRELOAD=str(runtime),
                                              OWNSAN_OPTIONS="forward_only=1"),
        "quarantine alone": floor[rb.QUARANTINE_ALONE],
        "both": floor[rb.INTERPOSITION_AND_QUARANTINE],
        "least tracker": floor[rb.LEAST_TRACKER],
        "l.t. + quarantine": floor[rb.LEAST_TRACKER_AND_QUARANTINE],
        "l.t. + q. + stacks": floor[rb.LEAST_TRACKER_QUARANTINE_STACKS],
        "l.t. + q. + s. + ownsan's work": floor[rb.LEAST_TRACKER_OWNSAN_WORK],
        "l.t. + q., freed in a table": dict(
            floor[rb.LEAST_TRACKER_AND_QUARANTINE],
            LEAST_TRACKER_SHADOW="table"),
        "ownsan, stacks off": rb.on_run_heap(
            LD_PRELOAD=str(runtime), OWNSAN_OPTIONS="malloc_context_size=0"),
        "ownsan": rb.on_run_heap(LD_PRELOAD=str(runtime)),
    }
    times = {v: [] for v in variants}
    for _ in range(args.rounds):
        for v, extra in variants.items():
            env = dict(os.environ)
            env.pop("LD_PRELOAD", None)
            env.pop("OWNSAN_OPTIONS", None)
            env.update(extra)
            start = time.monotonic()
            subprocess.run([str(workload), "modules", str(args.modules)],
                           env=env, stdout=subprocess.DEVNULL, check=True)
            times[v].append(time.monotonic() - start)
    low, mid = min(times["plain"]), statistics.median(times["plain"])
    for v, t in times.items():
        print(f"{v:31s} min {min(t):.3f} s ({min(t) / low:.2f}x)  median "
              f"{statistics.median(t):.3f} s "
              f"({statistics.median(t) / mid:.2f}x)  ({len(t)} rounds)")


if __name__ == "__main__":
    main()
