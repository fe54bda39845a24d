#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs one libFuzzer target of ownsan's parsers for a bounded time.

    run_fuzz.py --target BUILD/tests/fuzz/fuzz_flags --corpus tests/fuzz/corpus/flags
                [--time SECONDS] [--runs N] [--keep DIR]

Two runs:
  1. regression: every input of the seed corpus (tests/fuzz/corpus/<name>)
     once (-runs=0);
  2. fuzzing: -max_total_time=SECONDS (default 20) and at most -runs=N
     (default 2,000,000) executions, -timeout=10 per input, -rss_limit_mb=2048,
     leak detection on; new inputs go to a scratch corpus (or --keep DIR), the
     seeds are read-only.
Fails (exit 1) when libFuzzer finds a crash, a property violation (the
targets abort), a leak, a timeout or an out-of-memory: the failing input is
printed as hex and base64, and saved next to the scratch corpus.

Longer runs, by hand (from the build directory):
    python3 ../tests/fuzz/run_fuzz.py --target tests/fuzz/fuzz_flags \\
        --corpus ../tests/fuzz/corpus/flags --time 3600 --runs 0 --keep /tmp/ff
or libFuzzer directly:
    mkdir -p /tmp/ff && tests/fuzz/fuzz_flags -max_total_time=3600 -timeout=10 \\
        -jobs=2 /tmp/ff ../tests/fuzz/corpus/flags
Prints "N passed, M failed".
"""

import argparse
import base64
import glob
import os
import re
import subprocess
import sys
import tempfile


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--time", type=int, default=20)
    p.add_argument("--runs", type=int, default=2000000,
                   help="0: no limit (time only)")
    p.add_argument("--keep", help="keep the grown corpus in this directory")
    a = p.parse_args()
    passed = failed = 0
    name = os.path.basename(a.target)
    env = dict(os.environ)
    # Leaks are failures; libFuzzer checks them itself (-detect_leaks=1).
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")

    with tempfile.TemporaryDirectory(prefix=f"ownsan-{name}-") as tmp:
        work = a.keep or os.path.join(tmp, "corpus")
        os.makedirs(work, exist_ok=True)
        art = os.path.join(tmp, "artifacts") + "/"
        os.makedirs(art, exist_ok=True)
        common = [f"-artifact_prefix={art}", "-timeout=10",
                  "-rss_limit_mb=2048", "-detect_leaks=1",
                  "-print_final_stats=1"]

        def report(what, r):
            nonlocal passed, failed
            ok = r.returncode == 0 and "ERROR:" not in r.stderr and \
                "property violated" not in r.stderr
            if ok:
                passed += 1
                print(f"PASS: {name}: {what}")
                tail = [l for l in r.stderr.splitlines()
                        if re.match(r"(Done |stat::number_of_executed|"
                                    r"#\d+\s+DONE)", l)][-3:]
                for l in tail:
                    print(f"  {l}")
                return
            failed += 1
            print(f"FAIL: {name}: {what} (exit status {r.returncode})")
            print("  " + r.stderr[-8000:].replace("\n", "\n  "))
            for f in sorted(glob.glob(art + "*")):
                data = open(f, "rb").read()
                print(f"  failing input {os.path.basename(f)} "
                      f"({len(data)} bytes):")
                print(f"    hex:    {data[:512].hex()}")
                print(f"    base64: {base64.b64encode(data[:4096]).decode()}")
                print(f"  reproduce: {a.target} <file with that input>")

        r = subprocess.run([a.target, "-runs=0"] + common + [a.corpus],
                           capture_output=True, text=True, env=env,
                           timeout=300, errors="replace")
        report("every seed input once (regression)", r)
        cmd = [a.target, f"-max_total_time={a.time}"] + common
        if a.runs:
            cmd.append(f"-runs={a.runs}")
        r = subprocess.run(cmd + [work, a.corpus], capture_output=True,
                           text=True, env=env, timeout=a.time + 300,
                           errors="replace")
        report(f"fuzzing for up to {a.time}s", r)
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
