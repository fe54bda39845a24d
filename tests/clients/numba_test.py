#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Debian's numba compiles and runs its own tests alike under ownsan.

numba is a JIT compiler for Python built on llvmlite (libLLVM-14 through a
ctypes-loaded extension): it lowers Python functions to LLVM IR, mostly as
text that llvmlite's C++ layer parses, and compiles them with MCJIT. A few
of numba's test modules, chosen for the code generation they drive
(cfuncs, debug info, pass timings, object lifetimes), run once without and
once under `ownsan run` (verbosity=1); required: both pass, as many tests
ran, no OwnSan line but the statistics and the `unseen-handles` blind spot
(most handles numba passes were made by llvmlite's C++ code: ownsan says
so, docs/blind-spots.md), and at least MIN_CHECKED checked LLVM-C calls
(silence must mean ownsan looked).

Usage: numba_test.py --ownsan BUILD/bin/ownsan
"""
import argparse
import re
import sys

from ownsan_testing import (Checker, checked_calls, clean_env, ownsan_problems,
                            run, unittest_ran)

MODULES = ["numba.tests.test_codegen", "numba.tests.test_llvm_pass_timings",
           "numba.tests.test_cfunc", "numba.tests.test_obj_lifetime",
           "numba.tests.test_debuginfo"]
CMD = ["/usr/bin/python3", "-m", "numba.runtests"] + MODULES
# (About 28,700 with Debian 12's numba 0.56.4 and llvmlite 0.39.1.)
MIN_CHECKED = 10_000
UNSEEN = re.compile(r"==\d+==WARNING: OwnSan: \d+ handle arguments of the "
                    r"\d+ LLVM-C calls ownsan checked")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    args = ap.parse_args()
    c = Checker("clients.numba")
    env = clean_env(OWNSAN_OPTIONS="verbosity=1")
    plain = run(CMD, env=env, timeout=900)
    if not c.equal(plain.returncode, 0, "numba's tests pass without ownsan "
                   "(else there is nothing to compare)", plain):
        return c.finish()
    under = run([args.ownsan, "run", "--"] + CMD, env=env, timeout=1800)
    c.equal(under.returncode, 0, "and under ownsan", under)
    n_plain, n_under = unittest_ran(plain.err), unittest_ran(under.err)
    c.check(n_plain is not None and n_plain == n_under,
            f"as many tests ran under ownsan ({n_under}) as without "
            f"({n_plain})", under)
    said = [l for l in ownsan_problems(under.err) if not UNSEEN.search(l)]
    c.equal(said, [], "no report, no leak (the unseen-handles blind spot "
            "aside)", under)
    calls = sum(checked_calls(under.err).values())
    c.check(calls >= MIN_CHECKED, f"ownsan checked numba's LLVM-C calls (at "
            f"least {MIN_CHECKED:,}; {calls:,})", under)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
