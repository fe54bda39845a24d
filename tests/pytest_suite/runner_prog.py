#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A test runner that is not pytest: it names the case it runs in
OWNSAN_TEST_NAME (as any runner may), so ownsan's reports name it too.

    runner_prog.py

Runs case-a (a function's name read after its module was disposed) and
case-b (a builder disposed twice), then unsets OWNSAN_TEST_NAME and makes a
third mistake (a module disposed twice) outside any case. Uses the suite's
binding, suite/llvmbind.py; env OWNSAN_TEST_LIBLLVM names the libLLVM.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "suite"))
from llvmbind import Builder, Context, Module  # noqa: E402


def case_a():
    c = Context()
    m = Module(c, "m")
    f = m.add_function("f", c.function_type(c.i32(), []))
    m.dispose()
    f.name  # RUNNER-USE: case-a
    c.dispose()


def case_b():
    c = Context()
    b = Builder(c)
    b.dispose()
    b.dispose()  # RUNNER-USE: case-b
    c.dispose()


def outside_any_case():
    c = Context()
    m = Module(c, "m")
    m.dispose()
    m.dispose()  # RUNNER-USE: outside
    c.dispose()


def main():
    for name, case in (("runner/case-a", case_a), ("runner/case-b", case_b)):
        os.environ["OWNSAN_TEST_NAME"] = name
        print("running", name, flush=True)
        case()
    del os.environ["OWNSAN_TEST_NAME"]
    outside_any_case()
    print("runner: done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
