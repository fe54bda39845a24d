#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The public C API (include/ownsan/ownsan.h) from a ctypes binding.

    check_pyapi.py --ownsan OWNSAN --docs docs/reports.md

Runs tests/pyapi/pyapi_prog.py (which uses tests/pyapi/ownsan_api.py, the
example of docs/reports.md) without ownsan and under `ownsan run`, and
judges the `fact NAME = JSON` lines it prints:

  * without ownsan the look-ups find nothing and the binding works as usual;
  * under ownsan, ownsan_handle_state says live / freed / unknown correctly,
    ownsan_describe_handle names the object, its creating and freeing calls
    and truncates like snprintf, and an error callback turns a
    use-after-free and a double dispose into LLVMMemoryError raised by the
    binding after the call returned; the program goes on and exits 0;
  * after ownsan_set_error_callback(NULL) a misuse stops the program again;
  * docs/reports.md shows ownsan_api.py verbatim.

Env OWNSAN_TEST_LIBLLVM names the libLLVM. Prints "N passed, M failed".
"""

import argparse
import json
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
from ownsan_testing import (Checker, FormatError, clean_env, parse_reports,
                            run)

PROG = os.path.join(HERE, "pyapi_prog.py")
API = os.path.join(HERE, "ownsan_api.py")
PYTHON = "/usr/bin/python3"
FN_LABEL = 'function @answer in module "m"'


def facts(r):
    out = {}
    for line in r.out.splitlines():
        m = re.fullmatch(r"fact (\S+) = (.*)", line)
        if m:
            out[m[1]] = json.loads(m[2])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--docs", required=True)
    a = p.parse_args(argv)
    c = Checker("pyapi")
    env = clean_env()

    # --- Without ownsan -------------------------------------------------------
    r = run([PYTHON, PROG], env=env)
    f = facts(r)
    c.equal(r.returncode, 0, "without ownsan: exit 0", r)
    c.equal(f.get("present"), False,
            "without ownsan: the ownsan_* look-ups find nothing", r)
    c.check(all(f.get(k) == "unknown" for k in
                ("state.module_alive", "state.function_freed")),
            "without ownsan: handle_state() answers unknown", r)
    c.check(f.get("describe.function_alive", 1) is None,
            "without ownsan: describe() answers None", r)
    c.check(f.get("name_alive") == "answer" and f.get("after.name") == "again"
            and f.get("done") is True,
            "without ownsan: the binding works as usual", r)
    c.check("use.raised" not in f, "without ownsan: (no misuse is made)", r)

    # --- Under ownsan, with the error callback ----------------------------------
    r = run([a.ownsan, "run", "--", PYTHON, PROG], env=env)
    f = facts(r)
    c.equal(f.get("present"), True, "ownsan: the three functions are found "
            "with dlsym", r)
    c.equal([f.get(k) for k in ("state.module_alive", "state.function_alive",
                                "state.null", "state.foreign")],
            ["live", "live", "unknown", "unknown"],
            "ownsan_handle_state: live module and function; NULL and memory "
            "LLVM never handed out are unknown", r)
    c.equal([f.get(k) for k in ("state.function_freed", "state.module_freed",
                                "state.context_alive")],
            ["freed", "freed", "live"],
            "ownsan_handle_state: after LLVMDisposeModule the module and its "
            "function are freed, the context live", r)
    d = f.get("describe.function_alive") or ""
    c.check(re.match(rf"LLVMValueRef 0x[0-9a-f]+ \({re.escape(FN_LABEL)}\): "
                     rf"live, identity 0x[0-9a-f]+#1\n", d),
            "ownsan_describe_handle (live): first line names the object, "
            "'live' and its identity", d)
    c.check("  created by LLVMAddFunction on thread T0\n" in d,
            "ownsan_describe_handle (live): names the creating call", d)
    c.check(re.search(r"  ownership chain: context 0x[0-9a-f]+ -> module "
                      r'"m" -> function @answer\n$', d),
            "ownsan_describe_handle (live): the ownership chain", d)
    c.check("freed" not in d, "ownsan_describe_handle (live): no free line",
            d)
    d = f.get("describe.function_freed") or ""
    c.check(re.match(rf"LLVMValueRef 0x[0-9a-f]+ \({re.escape(FN_LABEL)}\): "
                     rf"freed, ", d),
            "ownsan_describe_handle (freed): names the object and 'freed'", d)
    c.check('  freed by LLVMDisposeModule(module "m") on thread T0, because '
            'it belonged to that module\n' in d,
            "ownsan_describe_handle (freed): names the freeing call and why",
            d)
    c.check(re.fullmatch(r"0x[0-9a-f]+: not an object ownsan knows",
                         f.get("describe.foreign") or ""),
            "ownsan_describe_handle (unknown): says so", f.get(
                "describe.foreign"))
    full, n, small = f.get("describe.length") or (0, -1, "")
    alive = f.get("describe.function_alive") or ""
    c.check(full == n == len(alive.encode()) and small == alive[:7],
            "ownsan_describe_handle: returns the full length and truncates "
            "to size-1 bytes plus NUL", f.get("describe.length"))

    for key, kind, fn in (("use", "use-after-free", "LLVMGetValueName2"),
                          ("use_again", "use-after-free",
                           "LLVMCountBasicBlocks"),
                          ("double_dispose", "double-free",
                           "LLVMDisposeModule")):
        c.equal(f.get(f"{key}.raised"), "LLVMMemoryError",
                f"error callback: the binding raised LLVMMemoryError after "
                f"{fn} returned", r)
        c.equal(f.get(f"{key}.kind"), kind,
                f"error callback: the exception carries the kind {kind}", r)
        rep = f.get(f"{key}.report") or ""
        c.check(rep.startswith(f"=={r.pid}==ERROR: OwnSan: {kind} on ") and
                f" of {fn} on thread T0:" in rep and
                rep.rstrip("\n").splitlines()[-1].startswith(
                    f"SUMMARY: OwnSan: {kind} in {fn} "),
                f"error callback: the exception carries the full text report "
                f"of {fn}", rep)
    c.check(f.get("after.name") == "again" and f.get("done") is True,
            "error callback: the program went on with fresh objects", r)
    try:
        reps = parse_reports(r.err, require_functions=True)
    except FormatError as e:
        reps = []
        c.check(False, f"error callback: stderr reports parse ({e})", r)
    c.equal([x.kind for x in reps],
            ["use-after-free", "use-after-free", "double-free"],
            "error callback: each report is also printed once on stderr", r)
    c.check([x.text for x in reps] == [f.get(k + ".report") for k in
                                       ("use", "use_again",
                                        "double_dispose")],
            "error callback: the callback's text is the printed report", r)
    c.equal(r.returncode, 0, "error callback: the program, having turned "
            "every report into its own exception, exits 0", r)

    # --- ownsan_set_error_callback(NULL) restores the default ------------------
    r = run([a.ownsan, "run", "--", PYTHON, PROG, "restore"], env=env)
    f = facts(r)
    c.equal(r.returncode, -signal.SIGABRT,
            "callback removed: the misuse aborts again", r)
    c.check(f.get("about_to_misuse") and "done" not in f and
            "use.raised" not in f,
            "callback removed: the program stopped at the misuse", r)
    try:
        n = len(parse_reports(r.err, require_functions=True))
    except FormatError:
        n = -1
    c.equal(n, 1, "callback removed: one report", r)

    # --- The docs show the module ------------------------------------------------
    with open(API, encoding="utf-8") as fh:
        api = fh.read()
    with open(a.docs, encoding="utf-8") as fh:
        docs = fh.read()
    m = re.search(r"<!-- example: tests/pyapi/ownsan_api.py -->\n```python\n"
                  r"(.*?)```\n", docs, re.S)
    c.check(m and m[1] == api, "docs/reports.md shows tests/pyapi/"
            "ownsan_api.py verbatim (after '<!-- example: tests/pyapi/"
            "ownsan_api.py -->')")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
