#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The golden classification: how the generator treats every LLVM 19 function.

tools/gen_wrappers.py writes BUILD/gen/classification.txt, one line per
wrapped function (returned handle, checked arguments, arrays, out
parameters, spec effects, expected kinds). A copy for LLVM 19 is committed
as tests/golden/classification-llvm19.txt, so that a change to the
generator or to the spec (src/profiles/llvm_c/ownership.spec, handle_kinds.spec) that
changes how a function is treated shows in review as a diff of that file.

  tools/classification_golden.py [--build BUILD]          update the golden file
  tools/classification_golden.py --check [--build BUILD]  compare (ctest
                                      generator.classification_golden)

To the generator's lines it adds the facts the generator decides from a
function's name (the profile's fn_flags.txt, read by
tools/wrapgen/api_profile.py; kFnFlags in the runtime), as `flags=[cast]`
at the end of the line of each function they hold for, so that a change to
those rules shows the same way.

BUILD (default: build-llvm19) must be a build for LLVM 19 whose generated
files are current (`cmake --build BUILD --target ownsan_generated`; update
mode runs that itself). --check exits 1 with a unified diff and the command
that regenerates the golden file when they differ.
"""

import argparse
import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrapgen.api_profile import REPO_ROOT, fn_flags  # noqa: E402

MAJOR = 19
GOLDEN = os.path.join(REPO_ROOT, "tests", "golden",
                      f"classification-llvm{MAJOR}.txt")
HEADER = f"# ownsan wrapper classification for LLVM {MAJOR} "


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        sys.exit(f"classification_golden.py: cannot read {path}: "
                 f"{e.strerror or e}")


FLAGS_HEADER = ("# flags=[...]  name rules (src/profiles/llvm_c/fn_flags.txt)"
                " that hold (kFnFlags; only listed when there are some)")


def with_flags(text):
    """The generator's classification with each function's name flags."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#"):
            lines.append(line)
            continue
        flags = fn_flags(line.split(" ", 1)[0])
        if flags:
            line += f" flags=[{' '.join(flags)}]"
        lines.append(line)
    header = sum(1 for line in lines if line.startswith("#"))
    lines.insert(header, FLAGS_HEADER)
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(REPO_ROOT, "build-llvm19"),
                   help="an LLVM 19 build directory (default: build-llvm19)")
    p.add_argument("--check", action="store_true",
                   help="compare instead of writing; exit 1 on a difference")
    args = p.parse_args(argv)
    generated = os.path.join(args.build, "gen", "classification.txt")
    if not args.check:
        subprocess.run(["cmake", "--build", args.build, "--target",
                        "ownsan_generated"], check=True)
    text = read(generated)
    if not text.startswith(HEADER):
        sys.exit(f"classification_golden.py: {generated} is not for LLVM "
                 f"{MAJOR}: {text.splitlines()[0] if text else '(empty)'}")
    text = with_flags(text)
    regenerate = (f"{os.path.join(REPO_ROOT, 'tools', 'classification_golden.py')}"
                  f" --build {os.path.abspath(args.build)}")
    if args.check:
        golden = read(GOLDEN)
        if golden == text:
            count = sum(1 for line in text.splitlines()
                        if not line.startswith("#"))
            print(f"{os.path.relpath(GOLDEN, REPO_ROOT)}: the generator "
                  f"classifies all {count} functions as committed")
            return 0
        diff = difflib.unified_diff(
            golden.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=os.path.relpath(GOLDEN, REPO_ROOT), tofile=generated)
        sys.stdout.writelines(diff)
        print(f"\nThe generator's classification differs from the committed "
              f"golden file (- committed, + generated now). If the change "
              f"is intended, regenerate the golden file and commit it with "
              f"the change:\n  {regenerate}")
        return 1
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(GOLDEN, REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
