#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""llvm-c-test --echo gives byte-identical output with and without ownsan.

`llvm-c-test --echo` reads bitcode on stdin, rebuilds the whole module through
the LLVM-C API (types, globals, functions, every instruction) and prints the
copy. The test compiles each C file under echo_inputs/ with clang at -O0, -O1
and -O2 (combinations --echo cannot clone even without ownsan are skipped;
every file at -O0 must run), runs the echo with and without `ownsan run`, and requires the same exit
status, the same stdout bytes and no OwnSan line on stderr.

Usage: echo_test.py --ownsan BUILD/bin/ownsan --llvm-bin /usr/lib/llvm-19/bin
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

from ownsan_testing import Checker, run

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--llvm-bin", required=True)
    args = ap.parse_args()
    llvm_bin = pathlib.Path(args.llvm_bin)
    clang = llvm_bin / "clang"
    echo = llvm_bin / "llvm-c-test"
    inputs = sorted((HERE / "echo_inputs").glob("*.c"))
    assert inputs, "no inputs"
    c = Checker("clients.llvm_c_test_echo")
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in inputs:
            for opt in ("-O0", "-O1", "-O2"):
                bc = pathlib.Path(tmp) / f"{src.stem}{opt}.bc"
                subprocess.run([str(clang), opt, "-c", "-emit-llvm",
                                str(src), "-o", str(bc)], check=True)
                data = bc.read_bytes()
                plain = run([echo, "--echo"], input=data, timeout=600)
                under = run([args.ownsan, "run", "--", echo, "--echo"],
                            input=data, timeout=600)
                name = f"{src.name} {opt}"
                if plain.returncode != 0:
                    # --echo clones a subset of IR (no switch, no sext, no
                    # FP constants...); optimized code may leave it.
                    print(f"skip {name}: outside --echo's subset without "
                          f"ownsan: {plain.err[:80]!r}")
                    continue
                checked += 1
                lines = plain.stdout.count(b"\n")
                c.check(under.returncode == plain.returncode and
                        under.stdout == plain.stdout and
                        "OwnSan" not in under.err,
                        f"{name}: the same exit status and {lines} lines of "
                        "IR under ownsan, no report",
                        f"stdout {len(under.stdout)} vs {len(plain.stdout)} "
                        f"bytes without ownsan\n{under.describe(6000)}")
    c.check(checked >= len(inputs), f"at least {len(inputs)} comparisons "
            f"ran ({checked})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
