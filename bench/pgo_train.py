#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Profile-guided optimization of the runtime: the training run.

cmake/pgo.cmake builds an instrumented runtime (-fprofile-instr-generate)
with the benchmark programs in a build dir of its own, then runs this:
the programs of bench/ run under that runtime (LD_PRELOAD, default
options), the profiles are merged into one .profdata, and the runtime of
the build proper is compiled with -fprofile-instr-use on it.

The workloads are the ones the performance targets are set on (see
docs/performance.md): IR building (c), a binding's copy of a module
(llvm-c-test --echo, (a), when this LLVM's clang and llvm-c-test are
installed), a JIT server (d) on LLJIT and MCJIT, object churn and many
call sites. Each must exit 0 and print its usual last line: a runtime
that fails here must not go on to be optimized for it.

Two trainings of one source give one profile, byte for byte, so two
builds of one source are one code (the target ownsan_pgo_repeat checks
it): the programs run without address randomization (`setarch -R`: the
heap's addresses pick the runtime's cache sets and bitmap words) and on
one thread each (how threads interleave moves the counts). Trained on two
threads with randomized addresses, two trainings' profiles overlapped
99.94 % and the two builds' code differed.

    pgo_train.py --stage1 DIR --llvm-bin DIR --profdata TOOL --out FILE
"""
import argparse
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_benchmarks  # noqa: E402  (echo_source: (a)'s input)


def run(cmd, env, stdin=None):
    cmd = ["setarch", platform.machine(), "-R"] + [str(c) for c in cmd]
    p = subprocess.run(cmd, env=env, stdin=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    # (An ownsan report, by its header line; other programs' words aside.)
    if p.returncode != 0 or "ERROR: OwnSan:" in p.stderr:
        sys.exit(f"pgo_train: {' '.join(map(str, cmd))} failed "
                 f"(exit {p.returncode}):\n{p.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage1", required=True,
                    help="the instrumented build dir (lib/, bench/)")
    ap.add_argument("--llvm-bin", required=True,
                    help="the LLVM's bin dir (clang, llvm-c-test)")
    ap.add_argument("--profdata", required=True,
                    help="llvm-profdata of the compiler building ownsan")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    stage1 = pathlib.Path(args.stage1)
    bench = stage1 / "bench"
    llvm_bin = pathlib.Path(args.llvm_bin)
    with tempfile.TemporaryDirectory(prefix="ownsan-pgo-") as tmp:
        tmp = pathlib.Path(tmp)
        env = dict(os.environ)
        env.pop("OWNSAN_OPTIONS", None)
        # %m: libownsan.so and libownsan_observer.so write one file each.
        env["LLVM_PROFILE_FILE"] = str(tmp / "%m-%p.profraw")
        env["LD_PRELOAD"] = str(stage1 / "lib" / "libownsan.so")
        ir = bench / "ownsan_bench_ir_workload"
        jit = bench / "ownsan_bench_jit_server"
        run([ir, "modules", 600], env)
        run([ir, "churn", 200000], env)
        run([ir, "sites", 20000], env)
        run([jit, "lljit", 1, 20], env)
        run([jit, "mcjit", 1, 200], env)
        # A long run's steady state, which the runs above never reach (a
        # 64 MB quarantine holds about 1,500 of (c)'s modules, the 16 MB
        # history 220,000 objects): the quarantine full, handing its oldest
        # blocks back; allocations over the addresses they held, ending
        # those entries; the history evicting. Small limits reach it in a
        # few hundred modules; without it the profile marks those paths
        # never run and they are compiled as cold code, out of line.
        steady = dict(env, OWNSAN_OPTIONS="quarantine_size_mb=4:"
                      "history_size_mb=2")
        run([ir, "modules", 600], steady)
        run([jit, "lljit", 1, 200], steady)
        run([jit, "mcjit", 1, 200], steady)
        clang, echo = llvm_bin / "clang", llvm_bin / "llvm-c-test"
        if clang.exists() and echo.exists():
            src, bc = tmp / "echo.c", tmp / "echo.bc"
            src.write_text(run_benchmarks.echo_source(300))
            subprocess.run([str(clang), "-O0", "-c", "-emit-llvm", str(src),
                            "-o", str(bc)], check=True)
            with open(bc, "rb") as f:
                run([echo, "--echo"], env, stdin=f)
        raws = sorted(tmp.glob("*.profraw"))
        if not raws:
            sys.exit("pgo_train: no profile written (is the runtime "
                     "instrumented?)")
        pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([args.profdata, "merge", "-o", args.out] +
                       [str(r) for r in raws], check=True)


if __name__ == "__main__":
    main()
