#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs every Debian package that building and testing ownsan needs.
# Usage: scripts/install-deps.sh [LLVM_MAJOR...]
#   (default: the supported majors, scripts/llvm-majors.txt)
# Safe to re-run; needs root (or sudo) and Debian 12 (bookworm).
set -euo pipefail

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  mapfile -t versions < <(sed 's/#.*//; /^[[:space:]]*$/d' \
    "$(dirname "$0")/llvm-majors.txt")
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

pkgs=(
  build-essential cmake ninja-build pkg-config git
  # scripts/test.sh: the majors' builds share what compiles the same.
  ccache
  clang clang-format libclang-rt-14-dev
  # ThreadSanitizer builds use clang 19 (clang 14's TSan runtime fails on
  # this kernel's address-space layout).
  clang-19 libclang-rt-19-dev
  libabsl-dev libgtest-dev libbenchmark-dev
  # `ownsan run` makes mimalloc the program's malloc (CMakeLists.txt, the
  # CLI): the quarantine does not fragment a size-class heap.
  libmimalloc2.0
  # scripts/lint.sh: the format gate pins clang-format 19 (formatting
  # differs between majors), clang-tidy 19, pyflakes over the Python files.
  clang-format-19 clang-tidy-19 pyflakes3
  # The pytest plugin runs under pytest-xdist in its tests.
  python3 python3-pytest python3-pytest-xdist
  # The wrapper generator parses the llvm-c headers of any version with
  # libclang 19 (python3-clang-N packages conflict with each other).
  python3-clang-19 libclang1-19
  # Real clients of the C API that the tests run under ownsan.
  python3-llvmlite python3-numba
  # Link mode's Rust test (tests/link/rust): Debian's rustc, no crates.
  rustc
  # `ownsan report` tests: SARIF schema validation, HTML rendered headless.
  python3-jsonschema chromium
  # tests/ci/check_ci_recipe.py reads docs/ci.md's workflows.
  python3-yaml
  # scripts/fetch-llvm-source.sh: apt-get source (tests/mlir's C API tests).
  dpkg-dev
  # tests/mlir links its programs with lld (ld.bfd: ~14 s each in link mode).
  lld
  zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libedit-dev libffi-dev libcurl4-openssl-dev
)
# MLIR's C API (tests/mlir): libmlir-N-dev (the libMLIRCAPI*.a archives
# over libMLIR.so) and mlir-N-tools, for 19 and 22. Debian's libmlir-N
# packages conflict with each other, one major per machine (installing
# another removes the installed one): 19's when both are asked for;
# OWNSAN_MLIR_MAJOR=22 chooses 22's, =none neither.
mlir_major=${OWNSAN_MLIR_MAJOR:-}
if [ -z "$mlir_major" ]; then
  for v in "${versions[@]}"; do
    if [ "$v" = 19 ] || { [ "$v" = 22 ] && [ -z "$mlir_major" ]; }; then
      mlir_major=$v
    fi
  done
fi
for v in "${versions[@]}"; do
  # llvm-N ships llvm-c-test and llvm-symbolizer; clang-N makes the bitcode
  # for the echo tests.
  pkgs+=("llvm-$v" "llvm-$v-dev" "llvm-$v-tools" "clang-$v")
  # Debian's OCaml bindings of LLVM 19: a real client (tests/ocaml).
  if [ "$v" = 19 ]; then pkgs+=(libllvm-19-ocaml-dev ocaml-findlib); fi
  # Compilers over libLLVM-14's C API, real clients (tests/clients):
  # Crystal's, GHDL's LLVM back end, sparse's (rustc is above), and
  # PostgreSQL's JIT.
  if [ "$v" = 14 ]; then pkgs+=(crystal ghdl-llvm sparse postgresql-15); fi
  # Mesa's llvmpipe and lavapipe, over libLLVM-15
  # (tests/clients/osmesa_test.py, vulkan_test.py).
  if [ "$v" = 15 ]; then
    pkgs+=(libosmesa6-dev mesa-vulkan-drivers libvulkan-dev glslang-tools)
  fi
  if [ "$v" = "$mlir_major" ]; then pkgs+=("libmlir-$v-dev" "mlir-$v-tools"); fi
done

export DEBIAN_FRONTEND=noninteractive
# Skip the network when everything is already there (keeps CI reruns fast).
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# libownsan.so's Abseil: PIC archives from libabsl-dev's own source (once;
# about a minute). CMake picks them up from the cache.
"$(dirname "$0")/build-absl-pic.sh"
echo "install-deps: done"
