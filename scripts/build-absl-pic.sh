#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the Abseil libraries the preloaded runtime uses as static archives
# of position-independent code, from the Debian source of the installed
# libabsl-dev (the same version and patches as its headers), so that
# libownsan.so carries them inside instead of loading Abseil's shared
# libraries in every process it is preloaded into (about 3 ms of start-up:
# docs/performance.md). Debian's own static archives cannot be linked into a
# shared object: they use local-exec TLS.
#
# Usage: scripts/build-absl-pic.sh [DEST]
#   DEST defaults to ${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/absl-pic;
#   the archives go to DEST/lib, and DEST/.ownsan-absl (written last) says
#   which libabsl-dev version they were built from.
#
# Idempotent: does nothing when DEST/.ownsan-absl names the installed
# version. Takes about 2 minutes on 2 cores. Never commit what it builds.
set -euo pipefail

dest=${1:-${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/absl-pic}
stamp=$dest/.ownsan-absl
version=$(dpkg-query -W -f='${Version}' libabsl-dev 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "build-absl-pic: libabsl-dev is not installed (scripts/install-deps.sh)" >&2
  exit 1
fi
if [ -f "$stamp" ] && grep -qx "version=$version" "$stamp"; then
  echo "build-absl-pic: $dest already holds $version"
  exit 0
fi

"$(dirname "$0")/ensure-deb-src.sh" abseil
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# (As root apt cannot drop to _apt in a directory _apt cannot write.)
sandbox=()
[ "$(id -u)" -eq 0 ] && sandbox=(-o APT::Sandbox::User=root)
(cd "$work" && apt-get source -qq "${sandbox[@]}" "abseil=$version" >/dev/null)
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'abseil-*' | head -n 1)
[ -n "$src" ] || { echo "build-absl-pic: no source tree in $work" >&2; exit 1; }

# Debian's flags (-O2, no NDEBUG), C++17 as in debian/rules, and -fPIC.
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_FLAGS=-O2 -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DABSL_PROPAGATE_CXX_STD=ON \
  -DBUILD_TESTING=OFF >/dev/null
# What src/ uses (CMakeLists.txt, ownsan_core) and what those need.
ninja -C "$work/build" libabsl_hash.a libabsl_raw_hash_set.a \
  libabsl_synchronization.a libabsl_stacktrace.a \
  libabsl_str_format_internal.a libabsl_strings.a libabsl_throw_delegate.a \
  >/dev/null

rm -rf "$dest"
mkdir -p "$dest/lib"
find "$work/build" -name 'libabsl_*.a' -exec cp {} "$dest/lib/" \;
echo "version=$version" >"$stamp"
echo "build-absl-pic: built $(ls "$dest/lib" | wc -l) archives of $version into $dest"
