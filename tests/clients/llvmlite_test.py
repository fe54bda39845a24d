#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Debian's python3-llvmlite test suite passes unchanged under ownsan.

llvmlite loads libLLVM-14 with dlopen(RTLD_LOCAL) through a ctypes-loaded
extension (the call path that RTLD_NEXT-based interposers get wrong). The
test runs `python3 -m llvmlite.tests` once without and once under
`ownsan run`, and requires: both pass, the same number of tests ran, and
ownsan printed nothing.

Usage: llvmlite_test.py --ownsan BUILD/bin/ownsan
"""
import argparse
import sys

from ownsan_testing import Checker, run, unittest_ran

CMD = ["/usr/bin/python3", "-m", "llvmlite.tests"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    args = ap.parse_args()
    c = Checker("clients.llvmlite_suite")
    plain = run(CMD, timeout=900)
    under = run([args.ownsan, "run", "--"] + CMD, timeout=1800)
    if not c.equal(plain.returncode, 0, "llvmlite's suite passes without "
                   "ownsan (else there is nothing to compare)", plain):
        return c.finish()
    c.check("OwnSan" not in under.err, "no OwnSan report on llvmlite's own "
            "suite", under)
    c.equal(under.returncode, 0, "the suite exits 0 under ownsan", under)
    n_plain, n_under = unittest_ran(plain.err), unittest_ran(under.err)
    c.check(n_plain is not None and n_plain == n_under,
            f"as many tests ran under ownsan ({n_under}) as without "
            f"({n_plain})")
    return c.finish()

if __name__ == "__main__":
    sys.exit(main())
