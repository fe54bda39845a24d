#!/usr/bin/python3
"""Link mode beyond the seeded cases (docs/link-mode.md).

    check_link.py --case CASE --ownsan OWNSAN --program unused --dir DIR

DIR holds the programs tests/link/CMakeLists.txt builds, each NAME_link (in
link mode) and NAME_static (the same objects, no ownsan).

Cases:
  ir_workload  bench/ir_workload.c building, verifying and disposing 300
               modules: exactly the stdout and exit status of the program
               without ownsan, no OwnSan line on stderr; with verbosity=1
               the runtime says it is linked in and counts the checked
               calls (it checked, rather than passing silently).
  allocator    tests/blind/blind_allocator.cpp, a program with its own
               operator new/delete: it runs as without ownsan ("ok") and
               one start-up line (and the exit line) says the allocator
               blind spot, naming the executable.
"""
import os
import re

from ownsan_testing import case_main, run

WARNING_RE = re.compile(r"==\d+==WARNING: OwnSan: (.*)")


def add_arguments(p):
    p.add_argument("--dir", default=".")


def clean_env(options=""):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["OWNSAN_OPTIONS"] = options
    return env


def case_ir_workload(c, a):
    args = ["modules", "300"]
    linked = os.path.join(a.dir, "ir_workload_link")
    plain = run([os.path.join(a.dir, "ir_workload_static")] + args,
                env=clean_env(), timeout=a.timeout)
    c.equal(plain.returncode, 0, "the program without ownsan exits 0",
            plain.err)
    r = run([linked] + args, env=clean_env(), timeout=a.timeout)
    c.equal(r.returncode, plain.returncode, "exit status as without ownsan",
            r.err)
    c.check(r.stdout == plain.stdout, "stdout as without ownsan",
            f"with: {r.out!r}\nwithout: {plain.out!r}")
    c.check("OwnSan" not in r.err, "nothing on stderr from ownsan", r.err)
    v = run([linked] + args, env=clean_env("verbosity=1"),
            timeout=a.timeout)
    c.check(f"linked into {os.path.realpath(linked)} (link mode" in v.err,
            "verbosity=1: the runtime is linked in", v.err)
    m = re.search(r"work: (\d+) checked calls", v.err)
    c.check(m is not None and int(m.group(1)) > 100000,
            "verbosity=1: the calls were checked", v.err)


def case_allocator(c, a):
    linked = os.path.join(a.dir, "allocator_link")
    r = run([linked], env=clean_env(), timeout=a.timeout)
    c.equal(r.returncode, 0, "exits 0", r.err)
    c.equal(r.out, "ok\n", "prints ok", r.err)
    warned = [m.group(1) for m in map(WARNING_RE.match, r.err.splitlines())
              if m]
    exe = os.path.realpath(linked)
    c.check(len(warned) == 2 and
            warned[0].startswith(f"operator new/delete of {exe} replace") and
            warned[1] == f"not checked in this run: allocator ({exe})",
            "the allocator line at start-up and at exit", r.err)
    c.check("ERROR: OwnSan" not in r.err, "no report", r.err)


if __name__ == "__main__":
    raise SystemExit(case_main("link", globals(), timeout=300,
                               add_arguments=add_arguments))
