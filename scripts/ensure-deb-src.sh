#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Makes `apt-get source PKG` possible: without any deb-src entry in apt's
# sources it writes /etc/apt/sources.list.d/ownsan-deb-src.sources (the
# Types: deb stanzas of debian.sources as Types: deb-src) and runs
# apt-get update, as root or with sudo. Does nothing when apt already knows
# PKG's source. (scripts/fetch-llvm-source.sh, scripts/build-absl-pic.sh)
#
# Usage: scripts/ensure-deb-src.sh PKG
set -euo pipefail

pkg=${1:?usage: scripts/ensure-deb-src.sh PKG}
if [ -n "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
src_list=/etc/apt/sources.list.d/ownsan-deb-src.sources
deb822=/etc/apt/sources.list.d/debian.sources
if [ ! -f "$src_list" ]; then
  if [ ! -f "$deb822" ]; then
    echo "ensure-deb-src: no deb-src entry for $pkg and no $deb822 to" \
      "copy one from; add a deb-src line for Debian and rerun" >&2
    exit 1
  fi
  echo "ensure-deb-src: writing $src_list (deb-src of $deb822)"
  # Each stanza whose Types is exactly "deb", with Types: deb-src.
  awk 'BEGIN { RS = ""; ORS = "\n\n" }
       /(^|\n)Types:[ \t]*deb[ \t]*(\n|$)/ {
         sub(/(^|\n)Types:[ \t]*deb[ \t]*(\n|$)/, "\nTypes: deb-src\n")
         sub(/^\n/, "")
         print
       }' "$deb822" | $SUDO tee "$src_list" >/dev/null
fi
$SUDO apt-get update -qq
