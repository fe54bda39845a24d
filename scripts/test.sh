#!/usr/bin/env bash
# Builds ownsan for every supported LLVM (scripts/llvm-majors.txt) and runs
# every test: unit tests, seeded-bug programs, and real clients (llvm-c-test
# --echo; Debian's llvmlite suite on the LLVM 14 build); then the runtime's
# own sanitized builds.
# Usage: scripts/test.sh            (installs missing Debian packages first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/install-deps.sh
mapfile -t majors < <(sed 's/#.*//; /^[[:space:]]*$/d' scripts/llvm-majors.txt)

status=0
for v in "${majors[@]}"; do
  dir="build-llvm$v"
  echo "=== LLVM $v: configure and build ($dir) ==="
  cmake -S . -B "$dir" -G Ninja -DLLVM_DIR="/usr/lib/llvm-$v/lib/cmake/llvm" >/dev/null
  cmake --build "$dir"
  echo "=== LLVM $v: tests ==="
  ctest --test-dir "$dir" --output-on-failure -j2 || status=1
done
# The runtime checks itself: built with sanitizers, the C-level tests
# (label "sanitized": unit tests, seeded programs, lifetime and call-path
# tests, the thread stress test) run with the runtime instrumented.
echo "=== sanitized runtime: AddressSanitizer + UndefinedBehaviorSanitizer ==="
cmake -S . -B build-asan -G Ninja -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm \
  -DOWNSAN_SANITIZE=address,undefined >/dev/null
cmake --build build-asan
ctest --test-dir build-asan -L sanitized \
  --output-on-failure -j2 || status=1
echo "=== sanitized runtime: ThreadSanitizer (clang 19) ==="
CC=clang-19 CXX=clang++-19 cmake -S . -B build-tsan -G Ninja \
  -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm -DOWNSAN_SANITIZE=thread >/dev/null
cmake --build build-tsan
ctest --test-dir build-tsan -L sanitized --output-on-failure -j2 || status=1
exit $status
