#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Debian's compilers over libLLVM-14 build the same programs under ownsan.

Three compilers, three bindings of the LLVM-C API written by others:
crystal (the Crystal compiler, in Crystal; it forks workers that emit the
object files), ghdl-llvm (GHDL's LLVM back end, in Ada; ghdl runs it as
a child, ghdl1-llvm) and sparse-llvm (sparse's back end, in C). Each case
runs the compiler plain and under `ownsan run` (verbosity=1) and requires:
the same exit status, no OwnSan line but the statistics, at least
`min_checked` checked calls over all of the compile's processes (silence
must mean ownsan looked), and the same output: what the built program
prints, or the bitcode itself.

Usage: compilers_test.py --ownsan BUILD/bin/ownsan
"""
import argparse
import pathlib
import shutil
import sys
import tempfile

from ownsan_testing import (Checker, checked_calls, clean_env,
                            ownsan_problems, run)

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = HERE / "compiler_inputs"


def crystal(src, out):
    # (A cache of its own per build: nothing compiled before is reused.)
    return ([shutil.which("crystal") or "/usr/bin/crystal", "build",
             str(src), "-o", str(out / src.stem)],
            {"CRYSTAL_CACHE_DIR": str(out / "cache")}, out / src.stem)


def ghdl(src, out):
    # (ghdl -a and -e write into the working directory, the case's own.)
    # (tb: the testbench entity the source ends with.)
    script = f'ghdl-llvm -a "{src}" && ghdl-llvm -e tb'
    return (["/bin/sh", "-c", script], {}, out / "tb")


def sparse(src, out):
    return (["/usr/bin/sparse-llvm", str(src)], {}, None)


# (name, command maker, input, checked calls at least). A case's command
# maker, given its input and its output directory, returns (argv, extra
# environment, program to run afterwards or None: then the compile's own
# stdout is compared).
CASES = [
    ("crystal shapes.cr", crystal, INPUTS / "shapes.cr", 100_000),
    ("ghdl-llvm counter.vhd", ghdl, INPUTS / "counter.vhd", 5_000),
] + [(f"sparse-llvm {p.name}", sparse, p, 300)
     for p in sorted((HERE / "echo_inputs").glob("*.c"))]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    args = ap.parse_args()
    c = Checker("clients.compilers")
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, maker, src, min_checked) in enumerate(CASES):
            results = {}
            for mode in ("plain", "ownsan"):
                out = pathlib.Path(tmp) / f"{i}-{mode}"
                out.mkdir()
                argv, extra, program = maker(src, out)
                if mode == "ownsan":
                    argv = [args.ownsan, "run", "--"] + argv
                env = clean_env(OWNSAN_OPTIONS="verbosity=1", **extra)
                built = run(argv, env=env, cwd=out, timeout=900)
                shown = built
                if program is not None and built.returncode == 0:
                    shown = run([program], cwd=out, timeout=120)
                results[mode] = (built, shown)
            (plain, plain_out), (under, under_out) = (results["plain"],
                                                      results["ownsan"])
            if plain.returncode != 0:
                # (sparse cannot compile every C file: vectors.c uses
                # builtins it does not know.)
                print(f"skip {name}: fails without ownsan too "
                      f"({plain.status()})")
                continue
            compared += 1
            c.equal(under.returncode, 0, f"{name}: compiles under ownsan",
                    under)
            c.equal(ownsan_problems(under.err), [], f"{name}: no report",
                    under)
            calls = sum(checked_calls(under.err).values())
            c.check(calls >= min_checked, f"{name}: ownsan checked the "
                    f"compile's LLVM-C calls (at least {min_checked:,}; "
                    f"{calls:,})", under)
            # (A testbench reports on stderr; a compile's stderr has
            # ownsan's statistics: only its stdout counts.)
            def shown(r, program_ran):
                return r.stdout + (r.stderr if program_ran else b"")
            ran = under_out is not under
            want, got = shown(plain_out, ran), shown(under_out, ran)
            c.check(plain_out.returncode == under_out.returncode and
                    len(want) > 0 and want == got,
                    f"{name}: the same {len(want)} bytes of output under "
                    "ownsan", under_out)
    c.check(compared >= 4, f"at least 4 compiles compared ({compared})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
