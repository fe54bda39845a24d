#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Unpacks Debian's MLIR of LLVM major N (libmlir-N and libmlir-N-dev) where
# the tests look for a major that is not installed: Debian's libmlir-N-dev
# packages conflict with each other, so a machine has one installed
# (scripts/install-deps.sh: 19) and the others unpacked. tests/mlir reads
# an unpacked major's headers and libMLIRCAPI*.a (spec.versions_mlir,
# docs.ownership_mlir), and a build can use it whole (docs/mlir.md, "MLIR
# 22": -DOWNSAN_MLIR_ROOT=DEST/usr/lib/llvm-N).
#
# Usage: scripts/fetch-mlir.sh N [DEST]
#   DEST defaults to ${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/mlir-N-root
#
# Does nothing when libmlir-N-dev is installed, or when DEST/.ownsan-unpacked
# (written last) exists. Needs llvm-N-dev installed for the llvm-c headers
# that mlir-c includes (scripts/install-deps.sh installs every major of
# scripts/llvm-majors.txt). The .debs (about 50 MB) are removed after.
set -euo pipefail

major=${1:?usage: scripts/fetch-mlir.sh N [DEST]}
case $major in '' | *[!0-9]*)
  echo "fetch-mlir: N must be an LLVM major, not '$major'" >&2
  exit 2
  ;;
esac
dest=${2:-${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/mlir-$major-root}
stamp=$dest/.ownsan-unpacked

if dpkg-query -W -f='${Status}' "libmlir-$major-dev" 2>/dev/null |
  grep -q "ok installed"; then
  echo "fetch-mlir: libmlir-$major-dev is installed; nothing to unpack"
  exit 0
fi
if [ -f "$stamp" ]; then
  echo "fetch-mlir: $dest already holds $(sed -n 's/^version=//p' "$stamp")"
  exit 0
fi

tmp=$(mktemp -d)
chmod 755 "$tmp" # (apt-get download hands the file to user _apt)
trap 'rm -rf "$tmp" "$dest.tmp"' EXIT
(cd "$tmp" && apt-get download -qq "libmlir-$major" "libmlir-$major-dev")
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
for deb in "$tmp"/*.deb; do
  dpkg-deb -x "$deb" "$dest.tmp"
done
version=$(dpkg-deb -f "$tmp"/libmlir-"$major"-dev_*.deb Version)
echo "version=$version" >"$dest.tmp/.ownsan-unpacked"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "fetch-mlir: unpacked libmlir-$major $version into $dest"
