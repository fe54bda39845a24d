#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fetches the part of Debian's llvm-toolchain-N source package that tests
# run: the MLIR C API tests (tests/mlir/capi/run_capi_tests.py:
# mlir/test/CAPI, mlir/lib/CAPI and mlir/include/mlir-c) and LLVM's tests of
# its C API and OCaml bindings (tests/upstream/run_lit.py:
# llvm/test/Bindings/llvm-c and llvm/test/Bindings/OCaml), with the Debian
# patches that touch those paths applied (the sources are what Debian's
# LLVM N packages were built from).
#
# Usage: scripts/fetch-llvm-source.sh N [DEST]
#   DEST defaults to ${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/llvm-toolchain-N
#
# (For 19 and 22 no Debian patch touches them: of the two under mlir/,
# issue-54242.diff puts MLIRExecutionEngine into libMLIR.so and
# mips-mlir-xgot.diff is for mips; DEST/.ownsan-source lists those applied.)
#
# Idempotent: does nothing when DEST/.ownsan-source (written last) exists
# and names the paths kept now.
# The version fetched is the source version of the installed libmlir-N-dev
# when apt has it, else apt's candidate. Without a deb-src entry in apt's
# sources, scripts/ensure-deb-src.sh adds one (llvm-toolchain-22 is in
# bookworm-security).
# The download (the .orig tarball, 160-200 MB, and the Debian tarball) is
# kept in DEST.download until the extraction succeeded, then removed.
# Never commit what it fetches.
set -euo pipefail

major=${1:?usage: scripts/fetch-llvm-source.sh N [DEST]}
case $major in '' | *[!0-9]*)
  echo "fetch-llvm-source: N must be an LLVM major, not '$major'" >&2
  exit 2
  ;;
esac
dest=${2:-${OWNSAN_SOURCE_CACHE:-$HOME/.cache/ownsan}/llvm-toolchain-$major}
pkg=llvm-toolchain-$major
# The paths kept, relative to the top of the source tree.
keep=(mlir/test/CAPI mlir/lib/CAPI mlir/include/mlir-c llvm/test/Bindings/OCaml
  llvm/test/Bindings/llvm-c)
stamp=$dest/.ownsan-source

if [ -f "$stamp" ] && grep -qxF "paths=${keep[*]}" "$stamp"; then
  echo "fetch-llvm-source: $dest already holds $(sed -n 's/^version=//p' "$stamp")"
  exit 0
fi

# --- deb-src: apt-cache showsrc fails without any deb-src entry. ---
"$(dirname "$0")/ensure-deb-src.sh" "$pkg"
if [ -z "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
  echo "fetch-llvm-source: apt knows no source package $pkg" \
    "(llvm-toolchain-22 is in bookworm-security)" >&2
  exit 1
fi

# --- Which version: the installed libmlir-N-dev's source, else apt's. ---
want=$(dpkg-query -W -f='${source:Version}' "libmlir-$major-dev" 2>/dev/null || true)
spec=$pkg
if [ -n "$want" ] &&
  apt-cache showsrc "$pkg" | grep -qx "Version: $want"; then
  spec="$pkg=$want"
elif [ -n "$want" ]; then
  echo "fetch-llvm-source: warning: libmlir-$major-dev $want is installed but" \
    "apt has no such source version; fetching apt's candidate" >&2
fi

# --- Download: the files apt names for that version, each checked against
# its SHA256 from apt's Sources index. Where apt's mirror has a file missing
# (this machine's debian-security mirror answers 404 for
# llvm-toolchain-22's .dsc and .orig tarball), the same file name is taken
# from the main archive's pool (OWNSAN_DEBIAN_POOL), where the .orig
# tarball of that upstream version is shared by every suite; the checksum
# makes it the same file. The .dsc is not needed.
work=$dest.download
mkdir -p "$work"
# (As root apt cannot drop to _apt in a directory _apt cannot write; it
# downloads as root then, and would warn about it.)
sandbox=()
[ "$(id -u)" -eq 0 ] && sandbox=(-o APT::Sandbox::User=root)
uris=$(apt-get source --print-uris -qq "${sandbox[@]}" "$spec" | grep "^'")
if ! (cd "$work" && apt-get source --download-only -qq "${sandbox[@]}" "$spec"); then
  case $pkg in lib*) letter=${pkg:0:4} ;; *) letter=${pkg:0:1} ;; esac
  pool=${OWNSAN_DEBIAN_POOL:-http://deb.debian.org/debian/pool/main}/$letter/$pkg
  while read -r _ file _ hash; do
    case $file in *.dsc) continue ;; esac
    if [ -f "$work/$file" ] &&
      [ "$(sha256sum "$work/$file" | cut -d' ' -f1)" = "${hash#SHA256:}" ]; then
      continue
    fi
    echo "fetch-llvm-source: apt could not fetch $file; trying $pool/$file"
    rm -f "$work/$file"
    /usr/lib/apt/apt-helper "${sandbox[@]}" download-file \
      "$pool/$file" "$work/$file" "$hash"
  done <<<"$uris"
fi
version=$(printf '%s\n' "$uris" | sed -n "s/^'[^']*' ${pkg}_\(.*\)\.dsc .*/\1/p")
files=$(printf '%s\n' "$uris" | cut -d' ' -f2)
orig=$work/$(grep -E '\.orig\.tar\.[a-z0-9]+$' <<<"$files")
debian=$work/$(grep -E '\.debian\.tar\.[a-z0-9]+$' <<<"$files")

# --- Extract the kept paths into a fresh directory, then move it in place.
tmp=$dest.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
# (tar stops on head's exit: SIGPIPE, hence the || true.)
top=$( (tar -tf "$orig" || true) | head -n 1 | cut -d/ -f1)
[ -n "$top" ] || { echo "fetch-llvm-source: $orig is empty?" >&2; exit 1; }
echo "fetch-llvm-source: extracting ${keep[*]} from $(basename "$orig")"
tar -xf "$orig" -C "$tmp" --strip-components=1 \
  "${keep[@]/#/$top/}"
tar -xf "$debian" -C "$tmp" debian/patches
# Debian's patches that touch the kept paths, in series order, applied to
# those paths only (the rest of the tree is not here).
applied=()
if [ -f "$tmp/debian/patches/series" ]; then
  while IFS= read -r p; do
    f=$tmp/debian/patches/$p
    [ -f "$f" ] || continue
    part=$(/usr/bin/python3 - "$f" "${keep[@]}" <<'EOF'
import re
import sys

# Keeps the file sections (--- / +++ / hunks) whose +++ path, less its first
# component, is under one of the kept paths.
path, keep = sys.argv[1], sys.argv[2:]
lines = open(path, encoding='utf-8', errors='surrogateescape').read().splitlines(True)
out, take, i = [], False, 0
while i < len(lines):
    line = lines[i]
    if (line.startswith('--- ') and i + 1 < len(lines)
            and lines[i + 1].startswith('+++ ')):
        target = re.split(r'\s', lines[i + 1][4:].strip())[0]
        target = target.split('/', 1)[1] if '/' in target else target
        take = any(target == k or target.startswith(k + '/') for k in keep)
        if take:
            out += [line, lines[i + 1]]
        i += 2
        continue
    if line.startswith(('diff ', 'Index: ')):
        take = False
    elif take:
        out.append(line)
    i += 1
sys.stdout.write(''.join(out))
EOF
)
    if [ -n "$part" ]; then
      echo "fetch-llvm-source: applying debian/patches/$p (its part under ${keep[*]})"
      printf '%s\n' "$part" | patch -s -p1 -d "$tmp"
      applied+=("$p")
    fi
  done < <(sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]].*//' \
    "$tmp/debian/patches/series")
fi
rm -rf "$tmp/debian"
{
  echo "package=$pkg"
  echo "version=$version"
  echo "paths=${keep[*]}"
  echo "patches=${applied[*]}"
} >"$tmp/.ownsan-source"
rm -rf "$dest"
mv "$tmp" "$dest"
rm -rf "$work"
echo "fetch-llvm-source: $pkg $version in $dest" \
  "(Debian patches applied: ${applied[*]:-none touch these paths})"
