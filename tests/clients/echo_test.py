#!/usr/bin/env python3
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

HERE = pathlib.Path(__file__).resolve().parent


def run(cmd, stdin_bytes):
    return subprocess.run(cmd, input=stdin_bytes, capture_output=True,
                          timeout=600)


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
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in inputs:
            for opt in ("-O0", "-O1", "-O2"):
                bc = pathlib.Path(tmp) / f"{src.stem}{opt}.bc"
                subprocess.run([str(clang), opt, "-c", "-emit-llvm",
                                str(src), "-o", str(bc)], check=True)
                data = bc.read_bytes()
                plain = run([str(echo), "--echo"], data)
                under = run([args.ownsan, "run", "--", str(echo), "--echo"],
                            data)
                name = f"{src.name} {opt}"
                if plain.returncode != 0:
                    # --echo clones a subset of IR (no switch, no sext, no
                    # FP constants...); optimized code may leave it.
                    print(f"skip {name}: outside --echo's subset without "
                          f"ownsan: {plain.stderr[:80]!r}")
                    continue
                checked += 1
                if under.returncode != plain.returncode:
                    print(f"FAIL {name}: exit {under.returncode} under ownsan, "
                          f"{plain.returncode} without")
                    print(under.stderr.decode(errors="replace")[-6000:])
                    failures += 1
                elif under.stdout != plain.stdout:
                    print(f"FAIL {name}: stdout differs under ownsan "
                          f"({len(under.stdout)} vs {len(plain.stdout)} bytes)")
                    failures += 1
                elif b"OwnSan" in under.stderr:
                    print(f"FAIL {name}: ownsan reported on a correct program")
                    print(under.stderr.decode(errors="replace")[-6000:])
                    failures += 1
                else:
                    lines = plain.stdout.count(b"\n")
                    print(f"ok   {name}: {lines} lines of IR identical")
    if checked < len(inputs):
        print(f"FAIL: only {checked} comparisons ran")
        failures += 1
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
