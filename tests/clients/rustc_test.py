#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Debian's rustc builds the same programs under ownsan, and ownsan checked it.

rustc 1.63 (Debian 12) generates code through the LLVM-C API of the shared
libLLVM-14 (rustc_codegen_llvm), on several threads at once (one context
per codegen unit), with LTO and debug information. The test
compiles rustc_inputs/workload.rs with each set of flags below, once plain
and once under `ownsan run` (verbosity=1), and requires: both compiles
succeed, ownsan reported nothing, its work line shows it checked the
compile (at least MIN_CHECKED calls: silence must mean it looked), the two
programs print the same bytes, and, where rustc also writes the LLVM IR,
the two IR files are the same bytes.

Usage: rustc_test.py --ownsan BUILD/bin/ownsan [--rustc /usr/bin/rustc]
"""
import argparse
import pathlib
import sys
import tempfile

from ownsan_testing import (Checker, checked_calls, clean_env,
                            ownsan_problems, run)

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "rustc_inputs" / "workload.rs"

# (label, rustc flags). rustc's default -O build splits the crate into 16
# codegen units, compiled by as many threads.
FLAG_SETS = [
    ("O2, 16 codegen units, IR written too", ["-O", "--emit=llvm-ir,link"]),
    ("debug info, O0", ["-C", "opt-level=0", "-g"]),
    ("fat LTO, O3", ["-C", "opt-level=3", "-C", "lto=fat",
                     "-C", "codegen-units=1"]),
]
# (ThinLTO, -C lto=thin, passed too when tried by hand; left out for CI's
# time.)
# A compile of workload.rs makes 480,000 - 650,000 checked calls.
MIN_CHECKED = 100_000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--rustc", default="/usr/bin/rustc")
    args = ap.parse_args()
    c = Checker("clients.rustc")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, flags) in enumerate(FLAG_SETS):
            outs = {}
            for mode in ("plain", "ownsan"):
                out = pathlib.Path(tmp) / f"{i}-{mode}"
                out.mkdir()
                cmd = [args.rustc] + flags + [str(SOURCE), "--out-dir",
                                              str(out)]
                if mode == "ownsan":
                    cmd = [args.ownsan, "run", "--"] + cmd
                outs[mode] = (out, run(cmd, env=clean_env(
                    OWNSAN_OPTIONS="verbosity=1"), timeout=900))
            (plain_dir, plain), (own_dir, under) = outs["plain"], outs["ownsan"]
            if not c.equal(plain.returncode, 0, f"{label}: rustc builds "
                           "the program without ownsan", plain):
                continue
            c.equal(under.returncode, 0, f"{label}: and under ownsan", under)
            c.equal(ownsan_problems(under.err), [], f"{label}: no report",
                    under)
            calls = sum(checked_calls(under.err).values())
            c.check(calls >= MIN_CHECKED,
                    f"{label}: ownsan checked rustc's LLVM-C calls (at least "
                    f"{MIN_CHECKED:,}; {calls})", under)
            built = {}
            for mode, out in (("plain", plain_dir), ("ownsan", own_dir)):
                built[mode] = run([out / "workload"], timeout=120)
            c.equal(built["plain"].returncode, 0, f"{label}: the program "
                    "runs", built["plain"])
            c.check(built["ownsan"].returncode == 0 and
                    built["ownsan"].stdout == built["plain"].stdout and
                    len(built["plain"].stdout) > 0,
                    f"{label}: the program built under ownsan prints the "
                    f"same {len(built['plain'].stdout)} bytes",
                    built["ownsan"])
            ir = sorted(p.name for p in plain_dir.glob("*.ll"))
            for name in ir:
                a = (plain_dir / name).read_bytes()
                b = (own_dir / name).read_bytes() if (
                    own_dir / name).exists() else None
                lines = a.count(b"\n")
                c.check(a == b, f"{label}: {name} ({lines} lines) "
                        "is the same bytes under ownsan")
            if "--emit=llvm-ir,link" in flags:
                c.check(len(ir) == 1, f"{label}: rustc wrote the IR ({ir})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
