#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hostile input to the runtime: NULL and garbage handles, a libLLVM of the
other version, an unreadable suppressions file.

    check_hostile.py --case CASE --ownsan OWNSAN --program HOSTILE
                     [--runtime LIBOWNSAN --self-major N
                      --other-program HOSTILE_OTHER --other-major M
                      --sanitizer-runtime PATH]

Cases:
  null_allowed   NULL where the C API allows it: same stdout and exit status
                 as without ownsan, nothing from OwnSan.
  null_deref     NULL where it is not allowed (6 calls): the program dies in
                 libLLVM exactly as without ownsan (its SIGSEGV handler names
                 the library of the faulting pc); ownsan itself neither
                 crashes nor reports.
  null_deref_chained
                 the program installed its SIGSEGV handler before its first
                 LLVM-C call (6 calls): one OwnSan line naming the LLVM-C
                 function and the NULL, then the program's handler runs and
                 the exit status and stdout are as without ownsan; nothing
                 with handle_segv=0.
  null_deref_unhandled
                 no handler: the same line, then death by SIGSEGV as
                 without ownsan.
  null_deref_log_path
                 the same with log_path: the line is in PATH.PID (created
                 by the handler, mode 0644 at most), not on stderr; where
                 PATH.PID is a symlink it is not followed, and the line goes
                 to stderr.
  segv_outside   the program's own NULL dereference between LLVM-C calls:
                 no line, same outcome, with and without a handler.
  garbage        never-seen handles pointing at fake (zeroed) objects, given
                 to calls that only read a field: same results as without
                 ownsan, the fake objects untouched, and at exit the
                 unseen-handles line (none of the calls could be checked).
  garbage_isa    the fake Value through LLVMIsAConstant (returns it as is):
                 same output as without ownsan, no crash, the same line.
  confused_type  LLVMIsAConstant on a type handle (a binding's type
                 confusion): same output as without ownsan, no crash, the
                 context still usable.
  link_consumed  correct code: LLVMLinkModules2 frees its source module by
                 itself; the destination and the context are disposed after
                 that memory was reused: same output, no crash.
  version        HOSTILE_OTHER is linked against the other installed libLLVM
                 (M); run with this build's runtime (LLVM N) preloaded
                 directly and through `ownsan run --llvm N`: it runs as
                 without ownsan (its calls are bound to libLLVM M's symbol
                 version and pass the runtime by): exit status 0, the same
                 stdout (LLVM's --version text, printed by the program's
                 first LLVM-C call), and exactly one stderr line
                 "==PID==OwnSan: note: ..." naming LLVM M, LLVM N and
                 `ownsan run --llvm M`.
  suppressions_unreadable
                 OWNSAN_OPTIONS=suppressions=<a directory> and =<a file that
                 cannot be read (/proc/self/mem)>: like a missing file, one
                 line naming it, exit status 1, the program does not run.

(Malformed OWNSAN_OPTIONS, malformed and missing suppression files, an
unwritable or symlinked log_path are tests/options: options.malformed,
options.suppressions_errors, options.log_path.)

Prints one PASS/FAIL line per check and "N passed, M failed"; exit 77 when
the case cannot run here (no other LLVM installed).
"""

import os
import re
import signal
import sys
import tempfile

from ownsan_testing import (case_main, clean_env, ownsan_lines,
                            run, sanitizer_errors)

ERROR_LINE_RE = re.compile(r"==(\d+)==ERROR: OwnSan: (.*)")
NOTE_LINE_RE = re.compile(r"==(\d+)==OwnSan: note: (.*)")


def both(a, args, options=None):
    env = clean_env()
    ref = run([a.program] + args, env=env, timeout=a.timeout)
    if options:
        env["OWNSAN_OPTIONS"] = options
    r = run([a.ownsan, "run", "--", a.program] + args, env=env,
            timeout=a.timeout)
    return ref, r


def same_run(c, ref, r, what, want_status):
    """The run under ownsan (r) ends as the plain run (ref) does."""
    c.equal(ref.returncode, want_status, f"{what}: exit status "
            f"{want_status} without ownsan", ref)
    c.check(not r.timed_out and r.returncode == ref.returncode,
            f"{what}: the same exit status under ownsan ({ref.returncode})",
            r)
    c.equal(r.out, ref.out, f"{what}: the same stdout under ownsan", r)
    c.equal(sanitizer_errors(r.err), [], f"{what}: no sanitizer diagnostic",
            r)


def check_same(c, a, args, what, want_status=0, options=None, unseen=0):
    """Same outcome as without ownsan, and nothing from OwnSan; but with
    `unseen` calls on fake handles, the line that says so at exit
    (docs/blind-spots.md, unseen-handles)."""
    ref, r = both(a, args, options)
    same_run(c, ref, r, what, want_status)
    got = ownsan_lines(r.err)
    if not unseen:
        c.equal(got, [], f"{what}: nothing from OwnSan", r)
        return ref, r
    line = (rf"=={r.pid}==WARNING: OwnSan: {unseen} handle arguments of the "
            rf"{unseen} LLVM-C calls ownsan checked \(through /\S*libLLVM"
            r"\S*\) named objects it never saw made \(made with LLVM's "
            r"C\+\+ API, or not LLVM objects\): uses of them after they "
            r"are freed are not reported")
    c.check(len(got) == 1 and re.fullmatch(line, got[0]) is not None,
            f"{what}: from OwnSan only the line that {unseen} calls' handles "
            "were never seen made", r)
    return ref, r


def case_null_allowed(c, a):
    check_same(c, a, ["null_allowed"], "NULL where allowed")


def case_null_deref(c, a):
    for call in ("value_name", "type_of", "delete_block", "erase_instruction",
                 "module_context", "build_add"):
        ref, r = check_same(c, a, ["null_deref", call],
                            f"NULL into {call}", want_status=99)
        c.check(re.search(r"^hostile: SIGSEGV in libLLVM", r.out, re.M)
                is not None, f"NULL into {call}: the crash is in libLLVM "
                "(ownsan let the NULL through untouched)", r)


NULL_CALLS = {"value_name": "LLVMGetValueName2", "type_of": "LLVMTypeOf",
              "delete_block": "LLVMDeleteBasicBlock",
              "erase_instruction": "LLVMInstructionEraseFromParent",
              "module_context": "LLVMGetModuleContext",
              "build_add": "LLVMBuildAdd"}
# The handle arguments each call of NULL_CALLS is given NULL in, as the
# line names them.
NULL_ARGS = {"LLVMBuildAdd": "arguments 2 and 3 are NULL"}
SEGV_LINE_RE = re.compile(
    r"^==(\d+)==ERROR: OwnSan: SEGV on address 0x[0-9a-f]{12,} "
    r"\(pc 0x[0-9a-f]{12,}\) inside (\w+): LLVM dereferenced a NULL pointer;"
    r" (.*) \(ownsan passes handles it never saw through unchecked\)$")


def check_segv_line(c, r, fn, what):
    lines = ownsan_lines(r.err)
    c.equal(len(lines), 1, f"{what}: exactly one OwnSan line", r)
    m = SEGV_LINE_RE.match(lines[0]) if lines else None
    c.check(m is not None, f"{what}: the line says SEGV inside an LLVM-C "
            "call on a NULL handle", r)
    if m:
        c.equal(m[2], fn, f"{what}: the line names {fn}", r)
        c.equal(m[3], NULL_ARGS.get(fn, "argument 1 is NULL"),
                f"{what}: the line names the NULL arguments", r)


def case_null_deref_chained(c, a):
    """The program's SIGSEGV handler was installed before the first LLVM-C
    call: ownsan prints its line, then the program's handler runs as
    without ownsan. With handle_segv=0 ownsan stays silent."""
    for call, fn in NULL_CALLS.items():
        what = f"NULL into {call}, program handler first"
        ref, r = both(a, ["null_deref_early", call])
        same_run(c, ref, r, what, 99)
        c.check(re.search(r"^hostile: SIGSEGV in libLLVM", r.out, re.M)
                is not None, f"{what}: the program's handler ran on the "
                "crash in libLLVM", r)
        check_segv_line(c, r, fn, what)
    check_same(c, a, ["null_deref_early", "build_add"], "handle_segv=0", 99,
               options="handle_segv=0")


def case_null_deref_unhandled(c, a):
    """No handler in the program: one line from ownsan, then the process
    dies of SIGSEGV exactly as without ownsan."""
    for call, fn in NULL_CALLS.items():
        what = f"NULL into {call}, no handler"
        ref, r = both(a, ["null_deref_unhandled", call])
        same_run(c, ref, r, what, -signal.SIGSEGV)
        check_segv_line(c, r, fn, what)


def case_null_deref_log_path(c, a):
    """With log_path the line goes to the reports' log file, PATH.PID (which
    the handler creates: no report came first), not to stderr; the process
    still dies of SIGSEGV as without ownsan."""
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "log")
        what = "NULL into LLVMBuildAdd, log_path"
        ref, r = both(a, ["null_deref_unhandled", "build_add"],
                      options=f"log_path={base}")
        same_run(c, ref, r, what, -signal.SIGSEGV)
        c.equal(ownsan_lines(r.err), [], f"{what}: nothing on stderr", r)
        files = sorted(f for f in os.listdir(d) if f.startswith("log."))
        c.equal(len(files), 1, f"{what}: one log file, PATH.PID", r)
        if files:
            with open(os.path.join(d, files[0])) as f:
                text = f.read()
            lines = ownsan_lines(text)
            c.equal(len(lines), 1, f"{what}: the log file holds one line",
                    text)
            m = SEGV_LINE_RE.match(lines[0]) if lines else None
            c.check(m is not None and m[2] == "LLVMBuildAdd",
                    f"{what}: the line says SEGV inside LLVMBuildAdd", text)
            mode = os.stat(os.path.join(d, files[0])).st_mode
            c.check(not mode & 0o022, f"{what}: the log file is not "
                    f"group/world writable ({oct(mode)})")
    with tempfile.TemporaryDirectory() as d:
        # The file exists already (a stale log, or an attacker's symlink):
        # never written through; the line goes to stderr instead.
        base = os.path.join(d, "log")
        victim = os.path.join(d, "victim")
        with open(victim, "w") as f:
            f.write("untouched\n")
        what = "log_path whose PATH.PID is a symlink"
        env = clean_env()
        env["OWNSAN_OPTIONS"] = f"log_path={base}"
        r = run([a.ownsan, "run", "--", "/bin/sh", "-c",
                 f'ln -s {victim} {base}.$$ && exec "$0" "$@"', a.program,
                 "null_deref_unhandled", "build_add"], env=env,
                timeout=a.timeout)
        c.equal(r.returncode, -signal.SIGSEGV, f"{what}: death by SIGSEGV",
                r)
        with open(victim) as f:
            c.equal(f.read(), "untouched\n", f"{what}: the symlink's "
                    "target is not written", r)
        check_segv_line(c, r, "LLVMBuildAdd", f"{what}: on stderr")


def case_segv_outside(c, a):
    """The program's own NULL dereference between LLVM-C calls is not
    ownsan's business: no line, same outcome, with or without a handler."""
    for mode, status in (("null_deref_early", 99),
                         ("null_deref_unhandled", -signal.SIGSEGV)):
        check_same(c, a, [mode, "outside"], f"{mode} outside", status)


def case_garbage(c, a):
    # (Five calls, each on a fake handle: none of them could be checked.)
    ref, r = check_same(c, a, ["garbage"], "fake objects, field reads",
                        unseen=5)
    c.check("fake objects untouched" in r.out,
            "fake objects: not written to", r)


def case_garbage_isa(c, a):
    ref, r = check_same(c, a, ["garbage_isa"],
                        "fake Value through LLVMIsAConstant", unseen=2)
    c.check("fake object untouched" in r.out, "fake Value: not written to",
            r)


def case_confused_type(c, a):
    check_same(c, a, ["confused_type"],
               "type handle passed to LLVMIsAConstant")


def case_link_consumed(c, a):
    check_same(c, a, ["link_consumed"], "LLVMLinkModules2 consumed the "
               "source module; context disposed later")


def case_version(c, a):
    if not a.other_program:
        print("SKIP: no other LLVM version installed to build a mismatched "
              "program with")
        sys.exit(77)
    prog = a.other_program
    ref = run([prog, "first_call"], env=clean_env(), timeout=a.timeout)
    c.check(ref.returncode == 0 and re.search(r"LLVM version", ref.out),
            f"LLVM {a.other_major} program: its first LLVM-C call prints "
            "LLVM's version without ownsan (so LLVM running would show)", ref)
    preload = ":".join(p for p in (a.sanitizer_runtime, a.runtime) if p)
    runs = [("LD_PRELOAD of the runtime",
             run([prog, "first_call"], env=clean_env(LD_PRELOAD=preload),
                 timeout=a.timeout)),
            (f"ownsan run --llvm {a.self_major}",
             run([a.ownsan, "run", "--llvm", str(a.self_major), "--", prog,
                  "first_call"], env=clean_env(), timeout=a.timeout))]
    for how, r in runs:
        what = (f"LLVM {a.other_major} program under the LLVM {a.self_major} "
                f"runtime ({how})")
        c.equal(r.returncode, 0, f"{what}: exit status 0", r)
        c.equal(r.out, ref.out, f"{what}: the same stdout as without "
                "ownsan (LLVM ran: its version text)", r)
        lines = r.err.splitlines()
        m = NOTE_LINE_RE.fullmatch(lines[0]) if len(lines) == 1 else None
        c.check(m is not None and int(m[1]) == r.pid,
                f"{what}: stderr is exactly one '=={r.pid}==OwnSan: note: "
                "...' line", r)
        msg = m[2] if m else ""
        c.check(re.search(rf"\bLLVM {a.self_major}\b", msg) and
                re.search(rf"\bLLVM {a.other_major}\b", msg),
                f"{what}: the line names both versions", r)
        c.check(f"ownsan run --llvm {a.other_major}" in msg,
                f"{what}: the line says how to get the right runtime "
                f"(ownsan run --llvm {a.other_major})", r)


def case_suppressions_unreadable(c, a):
    with tempfile.TemporaryDirectory() as d:
        for path, kind in ((d, "a directory"),
                           ("/proc/self/mem", "a file whose read fails")):
            env = clean_env(OWNSAN_OPTIONS=f"suppressions={path}")
            r = run([a.ownsan, "run", "--", a.program, "null_allowed"],
                    env=env, timeout=a.timeout)
            what = f"suppressions={path} ({kind})"
            c.equal(r.returncode, 1, f"{what}: exit status 1", r)
            c.equal(r.out, "", f"{what}: the program does not run", r)
            lines = r.err.splitlines()
            m = ERROR_LINE_RE.fullmatch(lines[0]) if len(lines) == 1 else None
            c.check(m is not None and path in m[2],
                    f"{what}: one '==PID==ERROR: OwnSan: ...' line naming "
                    "the file", r)


# ctest labels (tests/CMakeLists.txt): `sanitized` runs the case in the
# ASan+UBSan and TSan builds of the runtime too.
LABELS = {name: ["sanitized"] for name in (
    "null_allowed", "garbage", "link_consumed", "version",
    "suppressions_unreadable")}


def main():
    def more(p):
        p.add_argument("--runtime", default="")
        p.add_argument("--self-major", type=int, default=0)
        p.add_argument("--other-program", default="")
        p.add_argument("--other-major", type=int, default=0)
        p.add_argument("--sanitizer-runtime", default="")
    return case_main("hostile", globals(), 120, more, labels=LABELS)



if __name__ == "__main__":
    sys.exit(main())
