#!/usr/bin/python3
"""The quarantine stays within quarantine_size_mb.

Runs `lifetime quarantine_bound` (disposes 100,000 builders and erases
100,000 instructions) under ownsan with quarantine_size_mb=1 and 4 and
verbosity=1, and reads the statistics line ownsan prints at exit: the peak
must not exceed the limit, and at least 200,000 chunks must have gone
through the quarantine (so it really was exercised).
"""
import argparse
import re
import subprocess
import sys

STATS = re.compile(r"quarantine: peak (\d+) bytes \(limit (\d+)\), (\d+) "
                   r"bytes in (\d+) chunks at exit, (\d+) chunks taken")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    passed = failed = 0
    for mb in (1, 4):
        p = subprocess.run(
            [a.ownsan, "run", "--", a.program, "quarantine_bound"],
            capture_output=True, text=True, timeout=300,
            env={"OWNSAN_OPTIONS": f"quarantine_size_mb={mb}:verbosity=1",
                 "PATH": "/usr/bin:/bin"})
        m = STATS.search(p.stderr)
        ok = (p.returncode == 0 and m is not None
              and int(m.group(2)) == mb << 20
              and int(m.group(1)) <= mb << 20
              and int(m.group(5)) >= 200000
              and "ERROR" not in p.stderr)
        print(f"quarantine_size_mb={mb}: "
              + (m.group(0) if m else "no statistics line")
              + (" ok" if ok else " FAIL"))
        if not ok:
            print(p.stderr[-3000:])
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
