#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The free events of freed objects are bounded by history_size_mb.

Runs a `lifetime` case under ownsan with history_size_mb=1 and
verbosity=1, and reads the history line ownsan prints at exit:

- thread_exit (20,000 short threads, each disposing one builder, then
  30,000 objects churned): what a thread holds is released when it exits.
  Once the threads' records are evicted, the free events they made must be
  back in the pool (fewer than 2,000 in use, where 20,000 threads made one
  each).
- lone_disposes (12,000 builders disposed one by one, each dispose an event
  of its own): the events count in the bound. 12,000 records fit in 1 MiB
  (64-byte record, 8-byte history entry), records and their events do not
  (32 bytes more): records were evicted, and at most 1 MiB / 104 bytes of
  events are in use.
"""
import argparse
import re
import sys

from ownsan_testing import Checker, run

HISTORY = re.compile(r"history: peak (\d+) bytes \(limit (\d+)\), (\d+) bytes "
                     r"at exit, (\d+) records evicted; (\d+) record slots, "
                     r"(\d+) free events")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--case", choices=["thread_exit", "lone_disposes"],
                    default="thread_exit")
    a = ap.parse_args()
    c = Checker(f"lifetime history bound: {a.case}")
    p = run([a.ownsan, "run", "--", a.program, a.case], timeout=600,
            env={"OWNSAN_OPTIONS": "history_size_mb=1:verbosity=1",
                 "PATH": "/usr/bin:/bin"})
    m = HISTORY.search(p.err)
    checks = [
        (p.returncode == 0 and "ERROR" not in p.err,
         "the run exits 0 with no report"),
        (m is not None, "the history line is printed"),
    ]
    if a.case == "thread_exit":
        checks += [
            (m is not None and int(m.group(4)) >= 20000,
             "the threads' records were evicted"),
            (m is not None and int(m.group(6)) < 2000,
             "the threads' free events are back in the pool (fewer than "
             "2,000 in use)"),
        ]
    else:
        limit = m and int(m.group(2))
        checks += [
            (m is not None and int(m.group(4)) > 0,
             "records were evicted (the events count in the bound)"),
            (m is not None and int(m.group(6)) <= limit // (64 + 8 + 32),
             "free events in use fit in the bound with their records "
             "(<= limit / 104 bytes)"),
        ]
    for ok, what in checks:
        c.check(ok, what, None if m else p)
    c.note(m.group(0) if m else "no history line")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
