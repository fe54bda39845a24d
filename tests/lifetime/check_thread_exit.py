#!/usr/bin/python3
"""What a thread holds is released when it exits.

Runs `lifetime thread_exit` (20,000 short threads, each disposing one
builder, then 30,000 objects churned) under ownsan with history_size_mb=1
and verbosity=1, and reads the history line ownsan prints at exit: once
the threads' records are evicted, the free events they made must be back
in the pool (fewer than 2,000 in use, where 20,000 threads made one each).
"""
import argparse
import re
import subprocess
import sys

HISTORY = re.compile(r"history: peak (\d+) bytes \(limit (\d+)\), (\d+) bytes "
                     r"at exit, (\d+) records evicted; (\d+) record slots, "
                     r"(\d+) free events")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    p = subprocess.run(
        [a.ownsan, "run", "--", a.program, "thread_exit"],
        capture_output=True, text=True, timeout=600,
        env={"OWNSAN_OPTIONS": "history_size_mb=1:verbosity=1",
             "PATH": "/usr/bin:/bin"})
    m = HISTORY.search(p.stderr)
    checks = [
        (p.returncode == 0 and "ERROR" not in p.stderr,
         "the run exits 0 with no report"),
        (m is not None, "the history line is printed"),
        (m is not None and int(m.group(4)) >= 20000,
         "the threads' records were evicted"),
        (m is not None and int(m.group(6)) < 2000,
         "the threads' free events are back in the pool (fewer than 2,000 "
         "in use)"),
    ]
    failed = 0
    for ok, what in checks:
        print(("ok    " if ok else "FAIL  ") + what)
        failed += not ok
    print(m.group(0) if m else p.stderr[-3000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
