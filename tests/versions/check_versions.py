#!/usr/bin/python3
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
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--self-major", type=int, required=True)
    ap.add_argument("--program", action="append", default=[])
    a = ap.parse_args()
    passed = failed = 0

    def check(ok, what, proc=None):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok   {what}")
        else:
            failed += 1
            print(f"FAIL {what}")
            if proc is not None:
                print(proc.stderr[-3000:])

    programs = dict(p.split("=", 1) for p in a.program)
    if not programs:
        print("FAIL: no program of another LLVM version given")
        print("0 passed, 1 failed")
        return 1
    for major, prog in sorted(programs.items()):
        major = int(major)
        bug = run([a.ownsan, "run", "--", prog, "use_after_module_dispose"])
        check(bug.returncode != 0 and "ERROR: OwnSan: use-after-free" in
              bug.stderr and "runtime was built for" not in bug.stderr,
              f"LLVM {major} program, no --llvm: its runtime is picked and "
              "the bug is reported", bug)
        fixed = run([a.ownsan, "run", "--", prog, "use_after_module_dispose",
                     "--fixed"])
        check(fixed.returncode == 0 and "OwnSan" not in fixed.stderr,
              f"LLVM {major} program, fixed, no --llvm: silent", fixed)
        chosen = run([a.ownsan, "run", "--llvm", str(major), "--", prog,
                      "use_after_module_dispose", "--fixed"])
        check(chosen.returncode == 0 and "OwnSan" not in chosen.stderr,
              f"--llvm {major} selects the LLVM {major} runtime", chosen)
        native = run([prog, "use_after_module_dispose", "--fixed"])
        wrong = run([a.ownsan, "run", "--llvm", str(a.self_major), "--", prog,
                     "use_after_module_dispose", "--fixed"])
        lines = [l for l in wrong.stderr.splitlines() if "OwnSan" in l]
        check(wrong.returncode == native.returncode == 0 and
              wrong.stdout == native.stdout,
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
    check(none.returncode == 2 and len(none.stderr.splitlines()) == 1 and
          "no runtime for LLVM 999" in none.stderr,
          "--llvm 999: one line, exit 2", none)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
