#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A Rust program in link mode (tests/link/rust/seeded.rs): LLVM-C declared
in an `extern "C"` block, LLVM linked statically, the runtime linked in.

    check_rust.py --case CASE --ownsan OWNSAN --program SEEDED_RUST

Cases:
  seeded  `SEEDED_RUST`: a use after LLVMDisposeModule, reported (exactly
          one report, the process stopped) as seeded.rs's CHECK-rust lines
          say, with the Rust source lines in the stacks.
  fixed   `SEEDED_RUST --fixed`: exit 0, prints the function's name, and
          nothing from ownsan on stderr.
"""
import os

from ownsan_testing import case_main, filecheck, report_headers, run

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rust",
                      "seeded.rs")


def clean_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("OWNSAN_OPTIONS", None)
    return env


def case_seeded(c, a):
    r = run([a.program], env=clean_env(), timeout=a.timeout)
    c.check(r.returncode not in (0, None), "the report ends the process",
            r.status())
    c.equal(len(report_headers(r.err)), 1, "exactly one report", r.err)
    c.equal(r.out, "", "stopped before printing the freed name", r.out)
    fc = filecheck(r.err, SOURCE, "rust", {"PID": r.pid})
    c.check(fc.returncode == 0, "the report of seeded.rs's CHECK-rust lines",
            r.err + fc.err)


def case_fixed(c, a):
    r = run([a.program, "--fixed"], env=clean_env(), timeout=a.timeout)
    c.equal(r.returncode, 0, "exits 0", r.err)
    c.equal(r.out, "foo\n", "prints the name", r.err)
    c.check("OwnSan" not in r.err, "nothing from ownsan", r.err)


if __name__ == "__main__":
    raise SystemExit(case_main("link.rust", globals(), timeout=120))
