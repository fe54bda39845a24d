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
import os
import re
import subprocess
import sys


def readelf(args):
    return subprocess.run(["readelf", "-W"] + args, check=True,
                          capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    failures = []

    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                        readelf(["-d", a.runtime]))
    absl_needed = [n for n in needed if "absl" in n]
    if absl_needed:
        failures.append(f"libownsan.so needs {', '.join(absl_needed)} "
                        "(scripts/build-absl-pic.sh, then re-run cmake)")
    absl_syms = [line.split()[-1] for line in
                 readelf(["--dyn-syms", a.runtime]).splitlines()
                 if "absl" in line]
    if absl_syms:
        failures.append(f"libownsan.so's dynamic symbols name Abseil: "
                        f"{len(absl_syms)}, e.g. {absl_syms[0]}")

    env = dict(os.environ)
    for var in ("LD_PRELOAD", "OWNSAN_OPTIONS"):
        env.pop(var, None)
    plain = subprocess.run([a.program], env=env, capture_output=True,
                           text=True, timeout=60)
    under = subprocess.run([a.ownsan, "run", "--", a.program], env=env,
                           capture_output=True, text=True, timeout=60)
    if plain.returncode != 0 or "3 modules, m1 seen 1 time(s)" not in plain.stdout:
        failures.append(f"the program itself failed: {plain.returncode} "
                        f"{plain.stdout!r} {plain.stderr!r}")
    if under.returncode != 0:
        failures.append(f"under ownsan: exit {under.returncode}, stderr "
                        f"{under.stderr!r}")
    if under.stdout != plain.stdout:
        failures.append(f"under ownsan: stdout {under.stdout!r}, without "
                        f"{plain.stdout!r}")
    if under.stderr:
        failures.append(f"under ownsan: stderr {under.stderr!r}")

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok: no Abseil library or symbol in libownsan.so; a program "
              "with its own Abseil runs as without ownsan")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
