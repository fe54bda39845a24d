#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the error-kinds table of docs/reports.md (between its
# "<!-- error kinds: generated ..." and "<!-- end of error kinds -->" lines)
# from the report-kind table src/report/error_kinds.def, through the built
# ownsan_error_kinds. Usage: tools/update_reports_doc.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
cmake --build "$build" --target ownsan_error_kinds >/dev/null
table=$("$build/tools/ownsan_error_kinds" --markdown)
doc="$top/docs/reports.md"
TABLE="$table" python3 - "$doc" <<'PY'
import os, re, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    text = f.read()
block = re.compile(r"^<!-- error kinds: generated .*?^<!-- end of error kinds -->\n",
                   re.M | re.S)
if len(block.findall(text)) != 1:
    sys.exit(f"{path}: expected one generated error-kinds block")
text = block.sub(lambda m: os.environ["TABLE"] + "\n", text)
with open(path, "w", encoding="utf-8") as f:
    f.write(text)
PY
echo "wrote the error-kinds table of docs/reports.md"
