#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The quarantine stays within quarantine_size_mb.

Runs `lifetime quarantine_bound` (disposes 100,000 builders and erases
100,000 instructions) under ownsan with quarantine_size_mb=1 and 4 and
verbosity=1, and reads the statistics line ownsan prints at exit: the peak
must not exceed the limit, and at least 200,000 chunks must have gone
through the quarantine (so it really was exercised).
"""
import argparse
import re
import sys

from ownsan_testing import Checker, run

STATS = re.compile(r"quarantine: peak (\d+) bytes \(limit (\d+)\), (\d+) "
                   r"bytes in (\d+) chunks at exit, (\d+) chunks taken")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    c = Checker("lifetime.quarantine_bound")
    for mb in (1, 4):
        p = run([a.ownsan, "run", "--", a.program, "quarantine_bound"],
                timeout=300,
                env={"OWNSAN_OPTIONS": f"quarantine_size_mb={mb}:verbosity=1",
                     "PATH": "/usr/bin:/bin"})
        m = STATS.search(p.err)
        ok = (p.returncode == 0 and m is not None
              and int(m.group(2)) == mb << 20
              and int(m.group(1)) <= mb << 20
              and int(m.group(5)) >= 200000
              and "ERROR" not in p.err)
        c.check(ok, f"quarantine_size_mb={mb}: exit 0, no report, peak within "
                "the limit, >= 200,000 chunks taken: "
                + (m.group(0) if m else "no statistics line"), p)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
