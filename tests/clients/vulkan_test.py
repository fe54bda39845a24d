#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Mesa's Vulkan driver computes the same results under ownsan, and ownsan
checked it.

lavapipe (Debian 12's mesa-vulkan-drivers, over libLLVM-15) compiles each
compute pipeline from SPIR-V to LLVM IR through the C API (gallivm, as
llvmpipe does for GLSL) and JIT-compiles it. The test runs vulkan_compute
(tests/clients) plain and under `ownsan run` (verbosity=1, report_leaks=1),
with Mesa's on-disk shader cache off so that every pipeline is compiled in
the run: once making its pipelines on one thread and once on four at the
same time. It requires: the same exit status and checksum, no OwnSan line
but the statistics, and at least MIN_CHECKED checked calls each (silence
must mean ownsan looked).

Usage: vulkan_test.py --ownsan BUILD/bin/ownsan --program .../vulkan_compute
                      --shader .../vulkan_scale.spv --icd .../lvp_icd.json
"""
import argparse
import sys

from ownsan_testing import Checker, check_same_under_ownsan, clean_env

ROUNDS = 60
# 60 pipelines make about 125,000 checked calls.
MIN_CHECKED = 100_000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--shader", required=True)
    ap.add_argument("--icd", required=True)
    args = ap.parse_args()
    c = Checker("clients.lavapipe")
    env = clean_env(OWNSAN_OPTIONS="verbosity=1:report_leaks=1",
                    MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="2",
                    VK_ICD_FILENAMES=args.icd)
    for threads in (1, 4):
        what = f"{ROUNDS} pipelines made on {threads} thread(s)"
        runs = check_same_under_ownsan(
            c, what, [args.program, args.shader, str(ROUNDS), str(threads)],
            env, args.ownsan, MIN_CHECKED)
        if runs:
            c.check("device: llvmpipe" in runs[0].out and
                    f"rounds: {ROUNDS}, threads: {threads}, checksum: "
                    in runs[0].out, f"{what}: the plain run used lavapipe "
                    f"and printed its checksum ({runs[0].out.strip()!r})",
                    runs[0])
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
