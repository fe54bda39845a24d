#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Two or more runtimes on one workload, in alternating rounds: each round
runs the workload once plain (unless --no-plain) and once under each
runtime (preloaded, with the heap `ownsan run` gives: the plain run too), so that the
machine's drift from minute to minute falls on all of them alike. Prints
each variant's minimum and median, their ratios to the first runtime's and
to plain's, and the process CPU time's.

    bench/ab_rounds.py build-bench --rounds 30 \\
        --runtime before=/tmp/libownsan-before.so \\
        --runtime after=build-bench/lib/libownsan.so \\
        -- modules 3000                 # (c): ir_workload, wall time
    bench/ab_rounds.py build-bench --rounds 30 --runtime ... \\
        -- jit lljit 1 200              # (d): jit_server, us_per_iteration
    bench/ab_rounds.py build-bench --rounds 20 --runtime ... \\
        -- echo /usr/lib/llvm-19/bin/llvm-c-test echo_big.bc
                                        # (a): llvm-c-test --echo < BC, wall

`--options` sets OWNSAN_OPTIONS for every runtime (a variant may add its
own after a semicolon: --runtime 'q0=LIB;quarantine_size_mb=0').
"""
import argparse
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_benchmarks as rb  # noqa: E402 (the heap's one definition)


def run_once(cmd, env, jit, stdin=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(stdin or os.devnull, "rb") as given:
        out = subprocess.run(cmd, env=env, stdin=given, capture_output=True,
                             check=True).stdout.decode(errors="replace")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    system = after.ru_stime - before.ru_stime
    cpu = (after.ru_utime - before.ru_utime) + system
    if jit:
        m = re.search(r"us_per_iteration=([\d.]+)", out)
        if not m:
            sys.exit(f"ab_rounds: no us_per_iteration in: {out!r}")
        wall = float(m.group(1)) / 1e6
    return wall, cpu, system


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir", type=pathlib.Path)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--runtime", action="append", required=True,
                    metavar="NAME=LIB[;OPTIONS]")
    ap.add_argument("--options", default="")
    ap.add_argument("--no-plain", action="store_true")
    ap.add_argument("workload", nargs="+",
                    help="ir_workload's arguments, or 'jit' and "
                    "jit_server's, or 'echo LLVM_C_TEST BITCODE'")
    args = ap.parse_args()
    bench = args.build_dir.resolve() / "bench"
    jit = args.workload[0] == "jit"
    stdin = None
    if args.workload[0] == "echo":
        if len(args.workload) != 3:
            sys.exit("ab_rounds: echo LLVM_C_TEST BITCODE")
        cmd, stdin = [args.workload[1], "--echo"], args.workload[2]
    elif jit:
        cmd = [str(bench / "ownsan_bench_jit_server")] + args.workload[1:]
    else:
        cmd = [str(bench / "ownsan_bench_ir_workload")] + args.workload
    rb.use_run_heap(args.build_dir / "bin" / "ownsan")
    base_env = dict(os.environ, **rb.RUN_HEAP_ENV)
    variants = [] if args.no_plain else [("plain", dict(base_env))]
    for spec in args.runtime:
        name, _, rest = spec.partition("=")
        lib, _, extra = rest.partition(";")
        options = ":".join(o for o in (args.options, extra) if o)
        env = dict(os.environ, **rb.on_run_heap(
            LD_PRELOAD=str(pathlib.Path(lib).resolve()),
            OWNSAN_OPTIONS=options))
        variants.append((name, env))
    wall = {n: [] for n, _ in variants}
    cpu = {n: [] for n, _ in variants}
    system = {n: [] for n, _ in variants}
    for _ in range(args.rounds):
        for name, env in variants:
            w, c, s = run_once(cmd, env, jit, stdin)
            wall[name].append(w)
            cpu[name].append(c)
            system[name].append(s)
    first = args.runtime[0].partition("=")[0]

    def ratios(series, name, ref):
        lo = min(series[name]) / min(series[ref])
        mid = statistics.median(series[name]) / statistics.median(series[ref])
        return f"{lo:.3f}x / {mid:.3f}x"

    unit = "us an iteration" if jit else "s"
    scale = 1e6 if jit else 1
    print(f"{' '.join(cmd)}: {args.rounds} alternating rounds, min / median")
    for name, _ in variants:
        line = (f"{name:12s} {min(wall[name]) * scale:10.3f} / "
                f"{statistics.median(wall[name]) * scale:10.3f} {unit}; "
                f"against {first} {ratios(wall, name, first)}, "
                f"CPU {ratios(cpu, name, first)}")
        if not args.no_plain:
            line += f"; against plain {ratios(wall, name, 'plain')}"
        # (The kernel's share moves from run to run: first touches of
        # fresh memory, huge pages cleared and compacted.)
        line += (f"; system time median / max "
                 f"{statistics.median(system[name]):.3f} / "
                 f"{max(system[name]):.3f} s")
        print(line)


if __name__ == "__main__":
    main()
