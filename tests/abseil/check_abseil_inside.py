#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""libownsan.so carries Abseil inside (scripts/build-absl-pic.sh), and it
stays inside.

    check_abseil_inside.py --runtime lib/libownsan.so --ownsan bin/ownsan \\
        --program tests/abseil/own_abseil

Checked:
  * libownsan.so needs no Abseil shared library (loading them cost every
    process ~3 ms: docs/performance.md) and names no Abseil symbol in its
    dynamic symbol table, defined or undefined (so it neither interposes a
    program's Abseil nor binds to it);
  * a program with its own Abseil (Debian's shared libraries) that calls
    LLVM-C runs under `ownsan run` as without it: exit 0, the same stdout,
    nothing on stderr.
"""
import argparse
import sys

from ownsan_testing import Checker, needed_libraries, run


def readelf(args):
    r = run(["readelf", "-W"] + args)
    if r.returncode != 0:
        sys.exit(f"readelf {' '.join(args)} failed:\n{r.describe()}")
    return r.out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    c = Checker("abseil inside libownsan.so")

    needed = needed_libraries(a.runtime)
    absl_needed = [n for n in needed if "absl" in n]
    c.check(not absl_needed, "libownsan.so needs no Abseil shared library",
            f"it needs {', '.join(absl_needed)} (scripts/build-absl-pic.sh, "
            "then re-run cmake)")
    absl_syms = [line.split()[-1] for line in
                 readelf(["--dyn-syms", a.runtime]).splitlines()
                 if "absl" in line]
    c.check(not absl_syms, "libownsan.so's dynamic symbols name no Abseil "
            "symbol", f"{len(absl_syms)}, e.g. {absl_syms[:1]}")

    plain = run([a.program])
    under = run([a.ownsan, "run", "--", a.program])
    c.check(plain.returncode == 0 and
            "3 modules, m1 seen 1 time(s)" in plain.out,
            "the program runs without ownsan", plain)
    c.check(under.returncode == 0, "under ownsan: exit 0", under)
    c.equal(under.out, plain.out, "under ownsan: the same stdout")
    c.equal(under.err, "", "under ownsan: nothing on stderr")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
