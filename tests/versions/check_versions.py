#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan run` picks the runtime that matches the program's LLVM.

Given this build's ownsan CLI and the seeded test program of other builds
(sibling build trees for other LLVM majors, as scripts/test.sh makes them),
checks that:
  * without --llvm, a program linked against LLVM M runs under the LLVM M
    runtime (its seeded bug is reported; its fixed run is silent);
  * --llvm M selects that runtime explicitly; under --llvm of the wrong
    major the program runs as without ownsan (its calls are bound to its
    own libLLVM's symbol version and pass the runtime by), with one note
    line naming both versions and how to get the right runtime;
  * --llvm of a major with no runtime: a one-line error, exit status 2.

Usage: check_versions.py --ownsan CLI --self-major N --program M=PATH ...
"""
import argparse
import re
import sys

from ownsan_testing import Checker, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--self-major", type=int, required=True)
    ap.add_argument("--program", action="append", default=[])
    a = ap.parse_args()
    c = Checker("versions.runtime_selection")
    check = c.check

    programs = dict(p.split("=", 1) for p in a.program)
    if not programs:
        c.check(False, "a program of another LLVM version is given")
        return c.finish()
    for major, prog in sorted(programs.items()):
        major = int(major)
        bug = run([a.ownsan, "run", "--", prog, "use_after_module_dispose"])
        check(bug.returncode != 0 and "ERROR: OwnSan: use-after-free" in
              bug.err and "runtime was built for" not in bug.err,
              f"LLVM {major} program, no --llvm: its runtime is picked and "
              "the bug is reported", bug)
        fixed = run([a.ownsan, "run", "--", prog, "use_after_module_dispose",
                     "--fixed"])
        check(fixed.returncode == 0 and "OwnSan" not in fixed.err,
              f"LLVM {major} program, fixed, no --llvm: silent", fixed)
        chosen = run([a.ownsan, "run", "--llvm", str(major), "--", prog,
                      "use_after_module_dispose", "--fixed"])
        check(chosen.returncode == 0 and "OwnSan" not in chosen.err,
              f"--llvm {major} selects the LLVM {major} runtime", chosen)
        native = run([prog, "use_after_module_dispose", "--fixed"])
        wrong = run([a.ownsan, "run", "--llvm", str(a.self_major), "--", prog,
                     "use_after_module_dispose", "--fixed"])
        lines = [l for l in wrong.err.splitlines() if "OwnSan" in l]
        check(wrong.returncode == native.returncode == 0 and
              wrong.out == native.out,
              f"--llvm {a.self_major} on an LLVM {major} program: it runs "
              "as without ownsan (exit 0, the same stdout)", wrong)
        check(len(lines) == 1 and
              re.search(rf"note: calls into \S+ \(LLVM {major}\) are not "
                        rf"checked; this runtime is for LLVM {a.self_major} "
                        rf"\(ownsan run --llvm {major} checks them\)",
                        lines[0]),
              f"--llvm {a.self_major} on an LLVM {major} program: one note "
              "line naming both versions", wrong)
    none = run([a.ownsan, "run", "--llvm", "999", "--", "/bin/true"])
    check(none.returncode == 2 and len(none.err.splitlines()) == 1 and
          "no runtime for LLVM 999" in none.err,
          "--llvm 999: one line, exit 2", none)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
