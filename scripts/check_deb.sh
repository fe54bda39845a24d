#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The Debian package as a user gets it (issue 21, item 8): makes it from a
# build tree with cpack, installs it with apt-get into this machine's /usr,
# runs the demo binding from the installed files, builds a project that
# uses find_package(ownsan) and pkg-config, then removes the package and
# checks that nothing is left.
#
#   scripts/check_deb.sh BUILD_DIR     (root or sudo; scripts/test.sh runs it)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d)
passed=0
failed=0
check() { # check NAME COMMAND...: one line per check
  if "${@:2}" >"$work/check.log" 2>&1; then
    passed=$((passed + 1))
    echo "check_deb: ok: $1"
  else
    failed=$((failed + 1))
    echo "check_deb: FAILED: $1"
    sed 's/^/    /' "$work/check.log" | tail -30
  fi
}
cleanup() {
  $SUDO apt-get remove -y ownsan >/dev/null 2>&1 || true
  [ -n "${KEEP_WORK:-}" ] && echo "check_deb: kept $work" || rm -rf "$work"
}
trap cleanup EXIT

(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$build"/ownsan_*_amd64.deb)
major=$(dpkg-deb -c "$deb" |
  sed -n 's#.*/usr/lib/ownsan/llvm-\([0-9]*\)/libownsan.so$#\1#p')
libllvm=$(ls /usr/lib/llvm-"$major"/lib/libLLVM.so."$major"* \
  /usr/lib/llvm-"$major"/lib/libLLVM-"$major".so 2>/dev/null | head -1)
# (A previous run's package, if it was stopped half-way.)
$SUDO apt-get remove -y ownsan >/dev/null 2>&1 || true

installed() {
  $SUDO apt-get install -y --no-install-recommends "$deb" &&
    dpkg -s ownsan | grep "^Status: install ok installed" >/dev/null &&
    /usr/bin/ownsan --version | grep "(LLVM $major)" >/dev/null &&
    test -f /usr/lib/ownsan/llvm-"$major"/libownsan.so &&
    test -f /usr/lib/ownsan/llvm-"$major"/libownsan_observer.so &&
    test -f /usr/include/ownsan/ownsan.h &&
    test -f /usr/share/ownsan/ownsan_report.py &&
    test -f /usr/share/doc/ownsan/reports.md &&
    test -f /usr/lib/cmake/ownsan/ownsanConfig.cmake &&
    test -f /usr/lib/pkgconfig/ownsan-llvm-"$major".pc
}
check "the package installs with apt-get: $(basename "$deb")" installed

demo_fixed() {
  TINYBIND_LIBLLVM=$libllvm /usr/bin/ownsan run -- \
    /usr/bin/python3 /usr/share/ownsan/examples/tinybind.py --fixed \
    >"$work/fixed.out" 2>&1 && ! grep -q "OwnSan" "$work/fixed.out"
}
check "the installed demo, fixed: no report, exit 0" demo_fixed

demo_seeded() {
  local rc=0
  TINYBIND_LIBLLVM=$libllvm OWNSAN_OPTIONS=abort_on_error=0:exitcode=23 \
    /usr/bin/ownsan run -- /usr/bin/python3 \
    /usr/share/ownsan/examples/tinybind.py >"$work/seeded.out" 2>&1 || rc=$?
  [ "$rc" = 23 ] &&
    grep -q "ERROR: OwnSan: use-after-free on LLVMValueRef" "$work/seeded.out" &&
    grep -q "SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 .*tinybind.py" \
      "$work/seeded.out" &&
    mkdir -p "$work/logs" &&
    { TINYBIND_LIBLLVM=$libllvm \
        OWNSAN_OPTIONS=report_format=json:log_path="$work/logs/ownsan" \
        /usr/bin/ownsan run -- /usr/bin/python3 \
        /usr/share/ownsan/examples/tinybind.py >/dev/null 2>&1 || true; } &&
    { /usr/bin/ownsan report "$work/logs" >"$work/report.txt"; [ $? = 1 ]; } &&
    grep "^\[1\] use-after-free: function @answer" "$work/report.txt" >/dev/null
}
check "the installed demo, seeded: the report, exit 23; ownsan report lists it" demo_seeded

consumer() {
  cmake -S "$top/tests/install/consumer" -B "$work/consumer" -G Ninja \
    -DOWNSAN_LLVM_MAJOR="$major" -DCMAKE_BUILD_TYPE=Debug \
    -DLLVM_DIR=/usr/lib/llvm-"$major"/lib/cmake/llvm >/dev/null &&
    cmake --build "$work/consumer" >/dev/null &&
    "$work/consumer/seeded_dynamic" fixed >/dev/null &&
    ! LD_PRELOAD=$(cat "$work/consumer/runtime.txt") \
      "$work/consumer/seeded_dynamic" 2>"$work/dyn.err" &&
    grep -q "SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 .*seeded.c" "$work/dyn.err"
}
check "find_package(ownsan): ownsan::runtime preloaded" consumer

consumer_linked() {
  [ -x "$work/consumer/seeded_linked" ] &&
    "$work/consumer/seeded_linked" fixed >/dev/null &&
    ! "$work/consumer/seeded_linked" 2>"$work/linked.err" &&
    grep -q "SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 .*seeded.c" "$work/linked.err"
}
check "find_package(ownsan): ownsan::link" consumer_linked

pkgconfig() {
  [ "$(pkg-config --variable=runtime ownsan-llvm-"$major")" -ef \
    /usr/lib/ownsan/llvm-"$major"/libownsan.so ] &&
    cc -o "$work/pc_linked" "$top/tests/install/consumer/seeded.c" \
      $(pkg-config --cflags ownsan-llvm-"$major") \
      -I/usr/lib/llvm-"$major"/include \
      $(pkg-config --libs ownsan-llvm-"$major") &&
    ! "$work/pc_linked" 2>"$work/pc.err" &&
    grep -q "SUMMARY: OwnSan: use-after-free in LLVMGetValueName2" "$work/pc.err"
}
check "pkg-config ownsan-llvm-$major: the runtime, link mode's flags" pkgconfig

removed() {
  $SUDO apt-get remove -y ownsan >/dev/null &&
    ! dpkg -s ownsan 2>/dev/null | grep "^Status: install ok installed" >/dev/null &&
    [ ! -e /usr/bin/ownsan ] && [ ! -e /usr/lib/ownsan ] &&
    [ ! -e /usr/share/ownsan ] && [ ! -e /usr/lib/cmake/ownsan ] &&
    [ ! -e /usr/share/doc/ownsan ]
}
check "the package removes cleanly" removed

echo "check_deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
