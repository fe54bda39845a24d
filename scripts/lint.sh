#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The habit gates that need no build; scripts/test.sh runs this first, so a
# formatting slip fails CI in seconds rather than after the builds.
#   format:   clang-format-19 --dry-run -Werror over the tracked C and C++
#             files of src, interpose, include, tests, bench and tools
#             (.clang-format; fix with `clang-format-19 -i FILE`). Pinned to
#             19: other majors format some constructs differently.
#   pyflakes: pyflakes3 over every tracked Python file (unused imports and
#             variables, undefined names, f-strings without placeholders).
#   license:  every tracked C, C++, Python, shell and CMake file carries
#             "SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception" in
#             its first five lines (LICENSE).
# The compiler gates are in the builds: scripts/test.sh configures with
# -DOWNSAN_WERROR=ON (-Wall -Wextra, and -Wthread-safety with clang, as
# errors; CMakeLists.txt).
#
# Not in CI: clang-tidy (.clang-tidy) over src/core, src/report and the flag
# parser costs more than the minute this stage may take (docs/architecture.md,
# "Gates", has the measurements). Run it by hand with
#   scripts/lint.sh --tidy BUILD_DIR
# where BUILD_DIR was configured with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON.
#
# Usage: scripts/lint.sh [--tidy BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tidy_dir=""
if [ "${1:-}" = "--tidy" ]; then
  tidy_dir=${2:?usage: scripts/lint.sh [--tidy BUILD_DIR]}
fi

status=0

# Files kept out of the format gate, each with its reason: none today. (No
# test asserts a line of a file formatted here: the tests that check a
# report's file:line, tests/options/check_options.py on opts_prog.c, find the
# line by its text in the source.)
format_excluded=()

cxx_files=()
while IFS= read -r f; do
  for x in "${format_excluded[@]}"; do [ "$f" = "$x" ] && continue 2; done
  cxx_files+=("$f")
done < <(git ls-files -- src interpose include tests bench tools |
  grep -E '\.(c|cc|cpp|h|hpp|inc)$')
if ! clang-format-19 --dry-run -Werror "${cxx_files[@]}"; then
  echo "lint: format: the files above differ from clang-format-19's layout" \
       "(clang-format-19 -i FILE)" >&2
  status=1
fi

mapfile -t py_files < <(git ls-files -- '*.py')
if ! pyflakes3 "${py_files[@]}"; then
  echo "lint: pyflakes: see above" >&2
  status=1
fi

spdx="SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception"
spdx_missing=()
while IFS= read -r f; do
  head -n 5 -- "$f" | grep -qF "$spdx" || spdx_missing+=("$f")
done < <(git ls-files |
  grep -E '\.(c|cc|cpp|h|hpp|inc|def|py|sh|cmake)$|(^|/)CMakeLists\.txt$')
if [ ${#spdx_missing[@]} -ne 0 ]; then
  printf 'lint: license: no SPDX line in the first 5 lines of %s\n' \
    "${spdx_missing[@]}" >&2
  echo "lint: license: add \"$spdx\" (after the banner's first line," \
       "or the shebang)" >&2
  status=1
fi

if [ -n "$tidy_dir" ]; then
  if [ ! -f "$tidy_dir/compile_commands.json" ]; then
    echo "lint: no $tidy_dir/compile_commands.json (configure with" \
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2
    exit 2
  fi
  if ! run-clang-tidy-19 -quiet -p "$tidy_dir" -j 2 \
      'src/(core|report)/.*\.cpp$' 'src/runtime/flags\.cpp$'; then
    echo "lint: clang-tidy: see above" >&2
    status=1
  fi
fi

if [ $status -eq 0 ]; then
  echo "lint: ${#cxx_files[@]} C/C++ files formatted, ${#py_files[@]} Python" \
       "files clean, SPDX lines in place${tidy_dir:+, clang-tidy clean}"
fi
exit $status
