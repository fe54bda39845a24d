#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The runtime's own C API calls are forced into every link-mode program.

    check_wrap_undefined.py --runtime lib/ownsan_link_runtime.o \\
        --wrap lib/ownsan.wrap

The wrappers refer to __real_LLVMFoo weakly (a program links in only the
LLVM it calls); the profile's hooks call some functions themselves
(LLVMGetValueName2, mlirOperationGetName...), strongly. A linker may leave
such a __real_ unbound when the program never calls the function (lld 14
does: the runtime then called address 0), so ownsan.wrap must carry
`--undefined=LLVMFoo` for exactly the runtime's strong __real_ references
(tools/build_link_runtime.py; docs/link-mode.md, "Linkers").
"""
import argparse
import subprocess
import sys


def strong_real_references(obj):
    out = subprocess.run(["readelf", "-sW", obj], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) < 8 or not fields[0].endswith(":"):
            continue
        bind, ndx, name = fields[4], fields[6], fields[7]
        if (bind == "GLOBAL" and ndx == "UND" and name.startswith("__real_")
                and not name.startswith("__real__Z")):
            names.add(name[len("__real_"):])
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--wrap", required=True)
    a = ap.parse_args()
    needed = strong_real_references(a.runtime)
    with open(a.wrap, encoding="utf-8") as f:
        forced = {line.strip()[len("--undefined="):] for line in f
                  if line.startswith("--undefined=")}
    ok = True
    if not needed:
        print(f"FAIL: no strong __real_ reference in {a.runtime}: the hooks "
              "call the C API, so some are expected")
        ok = False
    for name in sorted(needed - forced):
        print(f"FAIL: the runtime calls {name}, but {a.wrap} has no "
              f"--undefined={name}")
        ok = False
    for name in sorted(forced - needed):
        print(f"FAIL: {a.wrap} forces {name} in, which the runtime does not "
              "call itself")
        ok = False
    if ok:
        print(f"PASS: the {len(needed)} C API functions the runtime calls "
              f"itself are each --undefined in {a.wrap}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
