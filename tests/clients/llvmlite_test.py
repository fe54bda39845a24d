#!/usr/bin/env python3
"""Debian's python3-llvmlite test suite passes unchanged under ownsan.

llvmlite loads libLLVM-14 with dlopen(RTLD_LOCAL) through a ctypes-loaded
extension (the call path that RTLD_NEXT-based interposers get wrong). The
test runs `python3 -m llvmlite.tests` once without and once under
`ownsan run`, and requires: both pass, the same number of tests ran, and
ownsan printed nothing.

Usage: llvmlite_test.py --ownsan BUILD/bin/ownsan
"""
import argparse
import re
import subprocess
import sys

CMD = ["/usr/bin/python3", "-m", "llvmlite.tests"]


def ran(stderr):
    m = re.search(r"^Ran (\d+) tests?", stderr, re.M)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    args = ap.parse_args()
    plain = subprocess.run(CMD, capture_output=True, text=True, timeout=900)
    under = subprocess.run([args.ownsan, "run", "--"] + CMD,
                           capture_output=True, text=True, timeout=1800)
    ok = True
    if plain.returncode != 0:
        print("llvmlite's suite fails without ownsan; cannot compare")
        print(plain.stderr[-4000:])
        return 1
    if "OwnSan" in under.stderr:
        print("FAIL: ownsan reported on llvmlite's own suite:")
        print(under.stderr[-8000:])
        ok = False
    if under.returncode != 0:
        print(f"FAIL: the suite exits {under.returncode} under ownsan")
        print(under.stderr[-8000:])
        ok = False
    n_plain, n_under = ran(plain.stderr), ran(under.stderr)
    if n_plain is None or n_plain != n_under:
        print(f"FAIL: ran {n_under} tests under ownsan, {n_plain} without")
        ok = False
    print(f"llvmlite suite: {n_under} tests under ownsan, {n_plain} without, "
          f"exit {under.returncode}")
    print(f"{1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
