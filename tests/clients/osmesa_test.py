#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Mesa's llvmpipe renders the same pixels under ownsan, and ownsan checked it.

llvmpipe (Debian 12's libOSMesa, over libLLVM-15) compiles every GLSL
program to LLVM IR through the C API (gallivm) and JIT-compiles it, with
rasterizer threads beside. The test runs osmesa_render (tests/clients)
plain and under `ownsan run` (verbosity=1, report_leaks=1), with Mesa's
on-disk shader cache off so that every shader is compiled in the run, and
requires: the same exit status and checksum, no OwnSan line but the
statistics, and at least MIN_CHECKED checked calls (silence must mean
ownsan looked).

Usage: osmesa_test.py --ownsan BUILD/bin/ownsan --program BUILD/.../osmesa_render
"""
import argparse
import sys

from ownsan_testing import Checker, check_same_under_ownsan, clean_env

FRAMES = 30
# 30 frames make about 500,000 checked calls.
MIN_CHECKED = 100_000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    args = ap.parse_args()
    c = Checker("clients.osmesa")
    env = clean_env(OWNSAN_OPTIONS="verbosity=1:report_leaks=1",
                    MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="2")
    runs = check_same_under_ownsan(c, "llvmpipe renders",
                                   [args.program, str(FRAMES)], env,
                                   args.ownsan, MIN_CHECKED)
    if runs:
        c.check(runs[0].out.startswith(f"frames={FRAMES} checksum="),
                f"the plain run printed its checksum ({runs[0].out.strip()})",
                runs[0])
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
