#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Instruction counts (callgrind) of the rows docs/performance.md compares
# across runtime versions: the per-call loop, per-module IR building,
# llvm-c-test --echo and a one-call process's start-up, with the plain
# program's counts where a ratio is wanted. Load on the machine does not
# change them.
#
#   bench/callgrind_rows.sh RUNTIME_DIR BENCH_DIR [EXTRA_PRELOAD]
#
# RUNTIME_DIR: libownsan.so and libownsan_observer.so of a RelWithDebInfo
# -DOWNSAN_BUILD_BENCH=ON build, debug info stripped (valgrind 3.19 cannot
# read clang 14's): strip --strip-debug -o DIR/libownsan.so ... .
# BENCH_DIR: that build's bench/ (ownsan_bench_call_loop,
# ownsan_bench_ir_workload, ownsan_bench_one_call); use one BENCH_DIR for
# every runtime compared.
# EXTRA_PRELOAD: a library preloaded after the runtime, to see how much a
# row moves with the address layout alone.
set -euo pipefail
runtime=$1 bench=$2 extra=${3:-}
llvm_c_test=/usr/lib/llvm-19/bin/llvm-c-test
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PYTHONPATH="$(dirname "$0")" python3 -c '
import sys, run_benchmarks
open(sys.argv[1], "w").write(run_benchmarks.echo_source(100))' "$work/echo.c"
clang-19 -O0 -emit-llvm -c "$work/echo.c" -o "$work/echo.bc"
ir() {
  LD_PRELOAD="$runtime/libownsan.so${extra:+ $extra}" valgrind \
    --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
plain_ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
a=$(ir "$bench/ownsan_bench_call_loop" 300000)
b=$(ir "$bench/ownsan_bench_call_loop" 100000)
echo "per call: $((a - b)) Ir for 400,000 calls"
a=$(ir "$bench/ownsan_bench_ir_workload" modules 300)
b=$(ir "$bench/ownsan_bench_ir_workload" modules 100)
echo "per module: $((a - b)) Ir for 200 modules"
# The same once the history (16 MiB: full after ~600 modules) and the
# quarantine (64 MiB: ~1,640) are full, as in the timed (c) run of 3,000
# modules: evictions, and blocks leaving the quarantine to be reused.
a=$(ir "$bench/ownsan_bench_ir_workload" modules 2500)
b=$(ir "$bench/ownsan_bench_ir_workload" modules 2000)
echo "per module, history and quarantine full: $((a - b)) Ir for 500 modules"
a=$(plain_ir "$bench/ownsan_bench_ir_workload" modules 300)
b=$(plain_ir "$bench/ownsan_bench_ir_workload" modules 100)
echo "per module, plain: $((a - b)) Ir for 200 modules"
echo "--echo: $(ir "$llvm_c_test" --echo < "$work/echo.bc") Ir," \
  "$(plain_ir "$llvm_c_test" --echo < "$work/echo.bc") plain"
# Start-up: a process that links libLLVM and makes one call (user-space
# instructions only: the kernel's part, mapping and faulting, is not here).
plain=$(plain_ir "$bench/ownsan_bench_one_call")
pre=$(ir "$bench/ownsan_bench_one_call")
echo "start-up: $pre Ir under the runtime, $plain plain (+$((pre - plain)))"
