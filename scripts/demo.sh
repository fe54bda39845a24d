#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job on a bundled default: installs what is missing, builds ownsan
# for the newest installed LLVM, then runs examples/tinybind.py (a miniature
# ctypes binding with a seeded use of a function after its module was
# disposed) under `ownsan run` and shows the report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh 19
cmake -S . -B build -G Ninja -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm >/dev/null
cmake --build build
lib=$(ls /usr/lib/llvm-19/lib/libLLVM.so.19* | head -1)
echo
echo "=== examples/tinybind.py --fixed under ownsan (correct program: no report) ==="
TINYBIND_LIBLLVM=$lib build/bin/ownsan run -- /usr/bin/python3 examples/tinybind.py --fixed
echo
echo "=== examples/tinybind.py under ownsan (seeded dangling use) ==="
set +e
TINYBIND_LIBLLVM=$lib OWNSAN_OPTIONS=abort_on_error=0:exitcode=23 \
  build/bin/ownsan run -- /usr/bin/python3 examples/tinybind.py
rc=$?
set -e
echo
if [ $rc -eq 23 ]; then
  echo "ownsan stopped the program at its first dangling use (exit $rc), as expected."
  exit 0
fi
echo "unexpected exit status $rc (expected 23: a report)"
exit 1
