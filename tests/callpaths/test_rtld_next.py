#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""dlsym(RTLD_NEXT, ...) keeps its meaning when ownsan's dlsym is in between.

    test_rtld_next.py --ownsan PATH --program RTLD_NEXT_MAIN

RTLD_NEXT_MAIN (tests/callpaths/rtld_next_main.c) is linked against
librtld_upper.so and librtld_lower.so, which define the same functions.
glibc answers dlsym(RTLD_NEXT, name) relative to the object that called
dlsym, so upper must get lower's definitions and libc's puts, and main must
get upper's. The program prints one "<look-up>: <answer>" line per look-up;
each answer must be the same under ownsan as without it.

RTLD_NEXT look-ups reach glibc through a tail call whatever the name, so
glibc still sees the calling library (LLVM* names included).
"""

import argparse
import os
import sys

from ownsan_testing import Checker, run

# What the look-ups must answer (checked without ownsan first, so a broken
# test program is not mistaken for an ownsan bug).
EXPECTED = {
    "lower loaded": "yes",
    "RTLD_DEFAULT puts": None,  # libc's file name: whatever the system's is
    "RTLD_NEXT puts from upper": None,  # the same object as RTLD_DEFAULT's
    "RTLD_NEXT puts from upper is RTLD_DEFAULT puts": "yes",
    "RTLD_DEFAULT layer_name": "upper",
    "RTLD_NEXT layer_name from main": "upper",
    "RTLD_NEXT layer_name from upper": "lower",
    "RTLD_NEXT layer_name@CALLPATHS_1 from upper": "lower",
    "RTLD_DEFAULT LLVMCallpathsLayer": "upper",
    "RTLD_NEXT LLVMCallpathsLayer from main": "upper",
    "RTLD_NEXT LLVMCallpathsLayer from upper": "lower",
    "RTLD_NEXT LLVMCallpathsLayer@CALLPATHS_1 from upper": "lower",
    "RTLD_NEXT callpaths_no_such_symbol from upper": "(not found)",
    "RTLD_NEXT LLVMCallpathsNoSuchSymbol from upper": "(not found)",
}

# Look-ups whose answer is a known ownsan bug ({key: why}); none today.
KNOWN_BUGS = {}


def answers(text):
    """{look-up: answer} from the program's "<look-up>: <answer>" lines."""
    result = {}
    for line in text.splitlines():
        key, sep, value = line.rpartition(": ")
        if sep:
            result[key] = value
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--program", required=True)
    args = p.parse_args(argv)
    c = Checker("RTLD_NEXT and RTLD_DEFAULT through ownsan's dlsym")

    plain = run([args.program])
    if not c.check(plain.returncode == 0,
                   "without ownsan, the program exits 0", plain):
        return c.finish()
    want = answers(plain.out)
    c.equal(sorted(want), sorted(EXPECTED),
            "the program prints one line per look-up of the test")
    for key, value in EXPECTED.items():
        if value is not None:
            c.equal(want.get(key), value,
                    f"without ownsan, '{key}' is {value} (the test program "
                    "shows what RTLD_NEXT means)")
    c.check(want.get("RTLD_DEFAULT puts", "(not found)") != "(not found)",
            "without ownsan, RTLD_DEFAULT finds puts", plain)

    under = run([args.ownsan, "run", "--", args.program])
    c.check(under.returncode == 0, "under ownsan, the program exits 0",
            under)
    c.check("OwnSan" not in under.err,
            'under ownsan, no "OwnSan" on stderr', under)
    dlsym_in = next((line.split(" is defined in ", 1)[1]
                     for line in under.err.splitlines()
                     if line.startswith("rtld_next_main: dlsym is defined in")),
                    None)
    c.check(dlsym_in is not None
            and os.path.basename(dlsym_in) == "libownsan.so",
            "under ownsan, the program's dlsym is ownsan's (so these "
            "look-ups go through the interposer)", under)

    got = answers(under.out)
    for key, value in want.items():
        expected = (f"under ownsan, '{key}' answers {value!r}, as without "
                    "ownsan")
        if key in KNOWN_BUGS:
            c.known_bug(got.get(key) == value, expected, KNOWN_BUGS[key])
        else:
            c.equal(got.get(key), value, expected)
    differing = [line for line in set(plain.out.splitlines())
                 ^ set(under.out.splitlines())
                 if line.rpartition(": ")[0] not in KNOWN_BUGS]
    c.check(not differing,
            "under ownsan, stdout is otherwise identical to the run without "
            "ownsan", "lines in only one of the two runs:\n"
            + "\n".join(sorted(differing)))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
