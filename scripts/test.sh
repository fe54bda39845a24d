#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds ownsan for every supported LLVM (scripts/llvm-majors.txt) and runs
# its tests: unit tests, seeded-bug programs, and real clients (llvm-c-test
# --echo; Debian's llvmlite suite on the LLVM 14 build); then the runtime's
# own sanitized builds. The primary major (19, which the sanitized builds
# use too) runs every test; the oldest and newest (14, 22) every test but
# those labelled llvm_independent (options, the report tool, fork, the
# parsers' fuzzers: the runtime's own logic, the same for every major;
# tests/CMakeLists.txt), without building the fuzzers and the core's unit
# tests, and the address-reuse tests 3 times each instead of 20; those in
# between (15, 16) the tests whose outcome the major decides (the spec,
# the seeded cases, the expected kinds, the wrappers, real clients). Then
# the MLIR-C profile over the primary's MLIR.
# Usage: scripts/test.sh            (installs missing Debian packages first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/install-deps.sh

# The gates that need no build come first and stop the run: a formatting
# slip or an unused import fails CI in seconds (scripts/lint.sh). The
# compiler's gates are in every build below: OWNSAN_WERROR=ON (-Wall
# -Wextra, and -Wthread-safety with clang, as errors).
echo "=== lint: clang-format-19, pyflakes3 [${SECONDS}s] ==="
if ! scripts/lint.sh; then
  echo "=== lint failed [${SECONDS}s] ==="
  exit 1
fi
werror="-DOWNSAN_WERROR=ON"

mapfile -t majors < <(sed 's/#.*//; /^[[:space:]]*$/d' scripts/llvm-majors.txt)

primary=19

# The builds of the five majors share their LLVM-free objects (the core, the
# report writer, the runtime but its generated wrappers; link mode's among
# themselves) through a cache of the checkout's own: the first build
# compiles them, the others find them (CMakeLists.txt, "compiled once";
# OWNSAN_PRECOMPILED_HEADERS=OFF below).
export CCACHE_DIR="$top/build-ccache" CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1
# (Generated headers are newer than the compile that reads them.)
export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime
launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"

status=0
# The LLVM sources some tests read (MLIR's C API tests, LLVM's llvm-c-test
# and OCaml binding tests: scripts/fetch-llvm-source.sh), before the builds
# that list them.
scripts/fetch-llvm-source.sh "$primary" >/dev/null || status=1
for v in "${majors[@]}"; do
  dir="build-llvm$v"
  echo "=== LLVM $v: configure and build ($dir) [${SECONDS}s] ==="
  # Off the primary major: 3 address-reuse runs instead of 20, and neither
  # the fuzzers nor the core's unit tests (no LLVM in what they test).
  others="-DOWNSAN_REUSE_REPEAT=3 -DOWNSAN_FUZZ=OFF -DOWNSAN_CORE_UNIT_TESTS=OFF"
  [ "$v" = "$primary" ] && others=""
  # (No precompiled headers: they would keep ccache from sharing objects.)
  others="$others -DOWNSAN_PRECOMPILED_HEADERS=OFF"
  # Link mode (static LLVM, tests/link) is built and tested for the oldest,
  # the primary and the newest major: each adds a second runtime build.
  # (The non-primary ones run its core tests: tests/link/CMakeLists.txt.)
  case "$v" in
    "$primary") ;;
    14 | 22) others="$others -DOWNSAN_LINK_TESTS_ALL=OFF" ;;
    *) others="$others -DOWNSAN_LINK_MODE=OFF" ;;
  esac
  # shellcheck disable=SC2086
  cmake -S . -B "$dir" -G Ninja -DLLVM_DIR="/usr/lib/llvm-$v/lib/cmake/llvm" \
    $launcher $werror $others >/dev/null
  cmake --build "$dir"
  if [ "$v" = "$primary" ]; then
    echo "=== LLVM $v: all tests [${SECONDS}s] ==="
    ctest --test-dir "$dir" --output-on-failure -j2 || status=1
    # The tool alone, as a user builds it to install: no tests, so no
    # GoogleTest (disabled to prove it), CMake's default generator, the
    # runtime optimized with its profile (cmake/pgo.cmake); then its
    # Debian package, installed, used and removed (issue 21, item 8).
    echo "=== LLVM $v: the tool alone (build-pkg) and its .deb [${SECONDS}s] ==="
    # shellcheck disable=SC2086
    cmake -S . -B build-pkg -DLLVM_DIR="/usr/lib/llvm-$v/lib/cmake/llvm" \
      $launcher $werror -DOWNSAN_BUILD_TESTS=OFF -DOWNSAN_PGO=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON >/dev/null
    cmake --build build-pkg -j2 >/dev/null
    echo "--- built, with its profile [${SECONDS}s]"
    if cmake --build build-pkg --target ownsan_pgo_repeat >/dev/null; then
      echo "--- trained again: the same profile [${SECONDS}s]"
    else
      echo "--- trained again: another profile (bench/pgo_train.py)"
      status=1
    fi
    scripts/check_deb.sh build-pkg || status=1
    echo "--- the .deb checked [${SECONDS}s]"
    # docs/ci.md's GitHub and GitLab recipes, run as written on that .deb.
    OWNSAN_TEST_LIBLLVM=$(ls /usr/lib/llvm-"$v"/lib/libLLVM.so."$v"* | head -1) \
      python3 tests/ci/check_ci_recipe.py --deb build-pkg/ownsan_*_amd64.deb \
      --suite tests/pytest_suite/suite | grep -v "Reading database" ||
      status=1
    echo "--- the CI recipes checked [${SECONDS}s]"
    # Makefile generators once failed on the OCaml suite's directory.
    cmake -S . -B build-make -DLLVM_DIR="/usr/lib/llvm-$v/lib/cmake/llvm" \
      >/dev/null
    cmake --build build-make --target ocaml_suite >/dev/null || status=1
  elif [ "$v" = 14 ] || [ "$v" = 22 ]; then
    echo "=== LLVM $v: tests but llvm_independent [${SECONDS}s] ==="
    ctest --test-dir "$dir" --output-on-failure -j2 -LE llvm_independent ||
      status=1
  else
    # Between the oldest and the newest: what the major decides (the spec's
    # entries and versions, the seeded cases, the expected kinds, the
    # wrappers, real clients); the runtime's behaviour over libLLVM is
    # tested on 14, 19 and 22 (CI time: docs/testing.md).
    echo "=== LLVM $v: version-dependent tests [${SECONDS}s] ==="
    ctest --test-dir "$dir" --output-on-failure -j2 -LE llvm_independent \
      -R '^(spec|seeded|kinds|clients|generator|Generated|versions|majors|docs|pyapi)\.' ||
      status=1
  fi
done
# The runtime checks itself: built with sanitizers, the C-level tests
# (label "sanitized": unit tests, seeded programs, lifetime and call-path
# tests, the thread stress test) run with the runtime instrumented.
# The MLIR-C profile (docs/mlir.md), link mode over the primary's MLIR: its
# seeded cases, and MLIR's own C API tests (the source fetched from Debian's
# llvm-toolchain package, never committed) run natively and checked.
echo "=== MLIR-C profile, LLVM $primary (build-mlir$primary) [${SECONDS}s] ==="
# The MLIR majors not installed, unpacked (Debian's libmlir-N-dev conflict):
# spec.versions_mlir and docs.ownership_mlir read 19's and 22's.
for m in 19 22; do
  scripts/fetch-mlir.sh "$m" >/dev/null || status=1
done
cmake -S . -B "build-mlir$primary" -G Ninja -DOWNSAN_PROFILE=mlir_c \
  -DLLVM_DIR="/usr/lib/llvm-$primary/lib/cmake/llvm" $launcher $werror >/dev/null
cmake --build "build-mlir$primary"
ctest --test-dir "build-mlir$primary" --output-on-failure -j2 || status=1

echo "=== sanitized runtime: AddressSanitizer + UndefinedBehaviorSanitizer [${SECONDS}s] ==="
cmake -S . -B build-asan -G Ninja -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm \
  -DOWNSAN_SANITIZE=address,undefined -DOWNSAN_REUSE_REPEAT=3 $werror \
  >/dev/null
cmake --build build-asan
ctest --test-dir build-asan -L sanitized \
  --output-on-failure -j2 || status=1
echo "=== sanitized runtime: ThreadSanitizer (clang 19) [${SECONDS}s] ==="
CC=clang-19 CXX=clang++-19 cmake -S . -B build-tsan -G Ninja \
  -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm -DOWNSAN_SANITIZE=thread \
  -DOWNSAN_REUSE_REPEAT=3 $werror >/dev/null
cmake --build build-tsan
# (TSan finds races, which need a second thread: the seeded programs and
# the lifetime cases run single-threaded, so they run under ASan only.)
ctest --test-dir build-tsan -L sanitized -E '^(seeded|lifetime)\.' \
  --output-on-failure -j2 || status=1
echo "=== done [${SECONDS}s] ==="
exit $status
