#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A program with LLVM linked statically but not in link mode, under
`ownsan run`: ownsan cannot see its calls, so it says so, and the program
runs exactly as without ownsan (docs/blind-spots.md, docs/link-mode.md).

    check_static_blind.py --case CASE --ownsan OWNSAN --program SEEDED_STATIC
                          --cases NAME... [--loader LOADER]

With --loader, SEEDED_STATIC is a shared object embedding LLVM, its
LLVM-C symbols visible, that LOADER dlopen's after start-up: its calls then
reach the preloaded wrappers, which must forward them to it (unchecked:
the runtime stands down, no libLLVM being loaded), and the warning comes
at its first call.

Cases (every seeded.c case NAME, in one test each):
  fixed   `SEEDED_STATIC NAME --fixed` (correct): exit 0, stdout as without
          ownsan, and stderr only the static-llvm warning (start-up and
          exit lines) naming the executable and pointing to link mode.
  seeded  `SEEDED_STATIC NAME` (the bug, unseen): the warning, and no
          report. (Its exit status may differ from the run without ownsan:
          a use after free reads whatever the heap holds.)
"""
import os
import re

from ownsan_testing import case_main, run

WARNING_RE = re.compile(r"==\d+==WARNING: OwnSan: (.*)")


def add_arguments(p):
    p.add_argument("--cases", nargs="+", default=[])
    p.add_argument("--loader", help="run --program, a shared object with a "
                   "main, with this loader (tests/link/loader.c)")


def check_runs(c, a, extra):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("OWNSAN_OPTIONS", None)
    exe = os.path.realpath(a.program)
    for name in a.cases:
        cmd = ([a.loader] if a.loader else []) + [a.program, name] + extra
        plain = run(cmd, env=env, timeout=a.timeout)
        if plain.returncode == 77:
            continue
        under = run([a.ownsan, "run", "--"] + cmd, env=env,
                    timeout=a.timeout)
        where = " ".join([name] + extra)
        if extra:
            # (Not for the buggy runs: a use after free reads whatever the
            # heap holds there, which ownsan's own allocations change.)
            c.check(under.returncode == plain.returncode,
                    f"{where}: exit status as without ownsan",
                    f"{under.status()} under ownsan, {plain.status()} "
                    "without")
            c.check(under.out == plain.out,
                    f"{where}: stdout as without ownsan")
        warned = [m.group(1) for m in map(WARNING_RE.match,
                                          under.err.splitlines()) if m]
        c.check(any(w.startswith(f"{exe} defines ") and
                    "LLVM linked in statically" in w and
                    "ownsan link-flags" in w for w in warned),
                f"{where}: the static-llvm warning names {exe}", under.err)
        c.check("ERROR: OwnSan" not in under.err,
                f"{where}: no report (ownsan sees no call)", under.err)
        if not extra:
            continue
        # The correct run: stderr holds the program's own lines and the
        # warning's two lines (start-up, exit), nothing else.
        # (Pointers the program prints differ from run to run: ASLR.)
        others = [re.sub(r"0x[0-9a-f]+", "0x...", line)
                  for line in under.err.splitlines() if "OwnSan" not in line]
        c.check(others == [re.sub(r"0x[0-9a-f]+", "0x...", line)
                           for line in plain.err.splitlines()],
                f"{where}: stderr as without ownsan but the warning",
                under.err)
        c.equal(len(warned), 2, f"{where}: two warning lines (start-up or "
                "first call, exit)", under.err)


def case_fixed(c, a):
    check_runs(c, a, ["--fixed"])


def case_seeded(c, a):
    check_runs(c, a, [])


if __name__ == "__main__":
    raise SystemExit(case_main("link.static_blind", globals(), timeout=600,
                               add_arguments=add_arguments))
