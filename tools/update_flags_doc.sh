#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates docs/flags.md from the option table in src/runtime/flags.inc
# (through the runtime's help=1). Usage: tools/update_flags_doc.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
{
  echo "# OWNSAN_OPTIONS"
  echo
  echo "Options are read from the \`OWNSAN_OPTIONS\` environment variable as"
  echo "\`key=value\` pairs separated by \`:\`, \`,\` or whitespace, as with"
  echo "\`ASAN_OPTIONS\`; a value may be quoted with \`'\` or \`\"\` to hold those"
  echo "(\`log_path='/tmp/a:b/log'\`)."
  echo "An unknown key, a malformed value or an integer outside its range (given"
  echo "in the type column) prints one line naming it and exits"
  echo "with status 1 before the program runs. This table is generated from"
  echo "\`src/runtime/flags.inc\` by \`tools/update_flags_doc.sh\`; a unit test"
  echo "fails when it is out of date."
  echo
  OWNSAN_OPTIONS=help=1 LD_PRELOAD="$build/lib/libownsan.so" /bin/true 2>&1 | tail -n +2
} > "$top/docs/flags.md"
echo "wrote docs/flags.md"
