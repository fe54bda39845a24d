#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""LLVM-C calls made from inside LLVM's callbacks, under `ownsan run`.

    check_reentrancy.py --case CASE --ownsan OWNSAN --program REENTRANCY

Cases (see tests/reentrancy/reentrancy.c):
  diag          calls on the same context from inside its diagnostic handler
                (LLVM is inside LLVMParseBitcodeInContext2), 50 times; the
                module the handler made is used and disposed afterwards.
  diag_threads  the same on 4 threads at once, one context each.
  diag_bug      after the handler: a seeded use-after-free of a function of
                the module the handler created; reported correctly (kind,
                call, the three stacks, the labels).
  diag_dispose  the handler disposes a module created before the call; the
                context is disposed later: nothing reported, no crash.
  jump          a diagnostic handler leaves LLVMParseBitcodeInContext2 with
                longjmp, _longjmp, siglongjmp or __longjmp_chk, 100 times
                (every fifth from a parse inside the handler's parse); then
                another thread uses the context, properly sequenced: no
                context-race, exit 0.
  jump_builtin  the same with __builtin_longjmp, which no libc function sees.
  throw         the same with a C++ exception, thrown by the handler through
                libLLVM and the wrappers, caught by the program.
  jump_bug, jump_builtin_bug, throw_bug
                jump / jump_builtin / throw, then a seeded double dispose of
                a module: reported once, with the right calls and stacks.
  signals       a signal handler makes read-only LLVM-C calls on its own
                context while the main thread builds and disposes 2000
                modules; signals every few microseconds. Also with the
                quarantine off (a block freed twice is freed at once). The
                handler's calls are forwarded unchecked: one note line at
                exit counts them.
  signals_unseen
                the same with a handler ownsan does not see installed
                (glibc's __sigaction): its calls are checked, nested in
                whatever call they interrupted; no note.
  signals_fresh the handler walks instructions nobody touched before (the
                runtime would register them, allocating inside a handler
                that may have interrupted malloc).
  signals_jump_bug
                a handler left by siglongjmp 20 times; then a seeded double
                dispose is reported as one (the thread is not left marked
                as inside a handler).
  orc           LLVM-C calls from an ORC materialization callback running
                inside LLVMOrcLLJITLookup (LLJIT + custom materialization
                unit + IR transform layer): answer() returns 42.
  orc_thread    the callback hands the work to another thread, which makes
                its calls while the main thread waits inside the lookup.
  orc_report_leaks
                orc and orc_thread with report_leaks=1: what ORC owns (the
                ThreadSafeContext's context, the module given to
                LLVMOrcCreateNewThreadSafeModule) is not reported as leaked.

Each clean case: exit 0, the same stdout as without ownsan, nothing from
OwnSan or a sanitizer, no deadlock (timeout). A case the program cannot run
on this LLVM (exit 77 without ownsan) is skipped with exit status 77.
"""

import re
import sys

from ownsan_testing import (case_main, clean_env, handles, ownsan_lines,
                            parse_reports, run, sanitizer_errors)


def check_clean(c, a, args, what, options=None, extra_env=None, allowed=()):
    """`allowed`: patterns of OwnSan lines (notes) the run may print."""
    extra_env = extra_env or {}
    ref = run([a.program] + args, env=clean_env(**extra_env),
              timeout=a.timeout)
    if ref.returncode == 77:
        print(f"SKIP: {what}: {ref.out.strip() or ref.err.strip()}")
        sys.exit(77)
    c.check(ref.returncode == 0, f"{what}: runs without ownsan", ref)
    env = clean_env(**extra_env)
    if options:
        env["OWNSAN_OPTIONS"] = options
        what = f"{what} [OWNSAN_OPTIONS={options}]"
    r = run([a.ownsan, "run", "--", a.program] + args, env=env,
            timeout=a.timeout)
    c.check(not r.timed_out, f"{what}: no deadlock (finished within "
            f"{a.timeout}s)", r)
    c.check(r.returncode == 0, f"{what}: exit status 0 under ownsan", r)
    c.equal(r.out, ref.out, f"{what}: stdout as without ownsan", r)
    c.equal([l for l in ownsan_lines(r.err)
             if not any(p.match(l) for p in allowed)], [],
            f"{what}: no OwnSan report", r)
    c.equal(sanitizer_errors(r.err), [], f"{what}: no sanitizer diagnostic",
            r)
    return r


def case_diag(c, a):
    check_clean(c, a, ["diag", "50"], "diagnostic handler re-entry")


def case_diag_threads(c, a):
    check_clean(c, a, ["diag_threads", "30"],
                "diagnostic handler re-entry on 4 threads")


def case_diag_dispose(c, a):
    check_clean(c, a, ["diag_dispose"],
                "module disposed inside the handler, context disposed later")


# A jump out of LLVM's C++ frames abandons what they owned: LeakSanitizer
# (sanitized builds) reports that LLVM memory natively too, so it is off here.
JUMP_ENV = {"ASAN_OPTIONS": "detect_leaks=0"}


def case_jump(c, a):
    check_clean(c, a, ["jump"], "100 jumps out of wrapped calls",
                extra_env=JUMP_ENV)


def case_jump_builtin(c, a):
    check_clean(c, a, ["jump_builtin"],
                "100 jumps out of wrapped calls by __builtin_longjmp",
                extra_env=JUMP_ENV)


def case_throw(c, a):
    check_clean(c, a, ["throw"],
                "100 C++ exceptions out of wrapped calls", extra_env=JUMP_ENV)


def check_victim_double_free(c, a, mode, ran):
    """Run MODE with the seeded bug: the program prints `ran` on stdout, then
    disposes module "victim" twice (victim_lifecycle): reported as one
    double-free naming both calls."""
    r = run([a.ownsan, "run", "--", a.program, mode],
            env=clean_env(REENTRANCY_SEEDED_BUG="1"), timeout=a.timeout)
    reps = parse_reports(r.err, strict=False)
    c.check(not r.timed_out and r.returncode not in (0, None),
            f"{mode}: ownsan stops the program", r)
    c.check(ran in r.out, f"{mode}: {ran!r} on stdout", r)
    c.equal([rep.kind for rep in reps], ["double-free"],
            f"{mode}: exactly one report, a double-free", r)
    c.equal(sanitizer_errors(r.err), [], f"{mode}: no sanitizer diagnostic",
            r)
    if len(reps) != 1:
        return
    rep = reps[0]
    subj = handles(r.err, "reentrancy").get("subject")
    c.check(subj is not None and rep.handle == subj and
            rep.label == 'module "victim"',
            f"{mode}: about the module disposed twice", rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and use.heading ==
            "passed as argument 1 of LLVMDisposeModule on thread T0" and
            use.functions()[:2] == ["dispose_victim_again", "victim_lifecycle"],
            f"{mode}: the second dispose (dispose_victim_again)", rep.text)
    free = rep.section("freed by")
    c.check(free is not None and free.heading ==
            'freed by LLVMDisposeModule(module "victim") on thread T0' and
            free.functions()[:2] == ["dispose_victim", "victim_lifecycle"],
            f"{mode}: the first dispose (dispose_victim)", rep.text)
    c.check(rep.summary is not None and rep.summary.startswith(
        "double-free in LLVMDisposeModule "),
            f"{mode}: the summary names LLVMDisposeModule", rep.text)


def check_jump_bug(c, a, mode):
    """After the jumps, checks still happen."""
    check_victim_double_free(
        c, a, mode, f"{mode}: 100 jumps, then the context used by another "
        "thread")


def case_jump_bug(c, a):
    check_jump_bug(c, a, "jump")


def case_jump_builtin_bug(c, a):
    check_jump_bug(c, a, "jump_builtin")


def case_throw_bug(c, a):
    check_victim_double_free(
        c, a, "throw", "throw: 100 exceptions, then the context used by "
        "another thread")


SIGNAL_NOTE = re.compile(
    r"^==\d+==OwnSan: note: (\d+) LLVM-C call\(s\) made in signal handlers "
    r"were not checked \(checking may allocate, and a handler may have "
    r"interrupted malloc\)$", re.M)


def check_signals(c, a, mode, what, seen):
    for options in (None, "quarantine_size_mb=0"):
        r = check_clean(c, a, [mode, "600"], what, options=options,
                        allowed=[SIGNAL_NOTE] if seen else [])
        m = re.search(r"^reentrancy: (\d+) handler calls$", r.err, re.M)
        c.check(m is not None and int(m[1]) >= 100,
                f"{mode}: the handler ran at least 100 times", r)
        notes = SIGNAL_NOTE.findall(r.err)
        if seen:
            c.check(len(notes) == 1 and m is not None and
                    int(notes[0]) >= int(m[1]),
                    f"{mode}: one note counting the handler's unchecked "
                    f"calls (at least one per handler call)", r)
        else:
            c.equal(notes, [], f"{mode}: no note (the handler is not seen)",
                    r)


def case_signals(c, a):
    check_signals(c, a, "signals", "LLVM-C calls in a signal handler", True)


def case_signals_unseen(c, a):
    check_signals(c, a, "signals_unseen",
                  "LLVM-C calls in a signal handler ownsan does not see", False)


def case_signals_fresh(c, a):
    check_signals(c, a, "signals_fresh",
                  "a signal handler walking handles nobody saw before", True)


def case_signals_jump_bug(c, a):
    """A handler left by siglongjmp does not leave its thread unchecked."""
    r = check_clean(c, a, ["signals_jump"], "20 handlers left by siglongjmp",
                    allowed=[SIGNAL_NOTE])
    c.equal(SIGNAL_NOTE.findall(r.err), ["20"],
            "signals_jump: the 20 handler calls unchecked, and no other call",
            r)
    check_victim_double_free(c, a, "signals_jump",
                             "signals_jump: 20 handlers left by siglongjmp")


def case_orc(c, a):
    r = check_clean(c, a, ["orc"], "ORC materialization callback re-entry")
    c.check("orc: answer() = 42, materialized 1 time(s)" in r.out,
            "orc: the materialized function returns 42", r)


def case_orc_thread(c, a):
    r = check_clean(c, a, ["orc_thread"],
                    "ORC materialization handed to another thread")
    c.check("orc_thread: answer() = 42, materialized 1 time(s)" in r.out,
            "orc_thread: the materialized function returns 42", r)


def case_orc_report_leaks(c, a):
    """Objects ORC owns are not the program's leaks: the context of a
    ThreadSafeContext (LLVMOrcThreadSafeContextGetContext) and a module
    handed to LLVMOrcCreateNewThreadSafeModule are freed by ORC."""
    for mode in ("orc", "orc_thread"):
        check_clean(c, a, [mode], f"{mode} with leak checking",
                    options="report_leaks=1")


def case_diag_bug(c, a):
    r = run([a.ownsan, "run", "--", a.program, "diag_bug"], env=clean_env(),
            timeout=a.timeout)
    reps = parse_reports(r.err, strict=False)
    c.check(not r.timed_out and r.returncode not in (0, None),
            "diag_bug: ownsan stops the program", r)
    c.equal(len(reps), 1, "diag_bug: exactly one report", r)
    c.equal(sanitizer_errors(r.err), [], "diag_bug: no sanitizer diagnostic",
            r)
    if not reps:
        return
    rep = reps[0]
    subj = handles(r.err, "reentrancy").get("subject")
    c.equal(rep.kind, "use-after-free", "diag_bug: kind use-after-free",
            rep.text)
    c.check(subj is not None and rep.handle == subj and
            rep.label == 'function @g in module "from_handler"',
            "diag_bug: about function @g of the handler's module", rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and use.heading ==
            "passed as argument 1 of LLVMGetValueName2 on thread T0" and
            "use_dead_function" in use.functions(),
            "diag_bug: the use (LLVMGetValueName2 in use_dead_function)",
            rep.text)
    free = rep.section("freed by")
    c.check(free is not None and free.heading ==
            'freed by LLVMDisposeModule(module "from_handler") on thread T0,'
            " because it belonged to that module" and
            "dispose_kept" in free.functions(),
            "diag_bug: the free (LLVMDisposeModule in dispose_kept)", rep.text)
    create = rep.section("created by")
    c.check(create is not None and create.heading ==
            "created by LLVMAddFunction on thread T0" and
            "use_kept" in create.functions(),
            "diag_bug: the creation (LLVMAddFunction in use_kept)", rep.text)
    c.check(rep.chain is not None and re.fullmatch(
        r'context 0x[0-9a-f]+ -> module "from_handler" -> function @g',
        rep.chain) is not None, "diag_bug: the ownership chain", rep.text)


# ctest labels (tests/CMakeLists.txt): `sanitized` runs the case in the
# ASan+UBSan and TSan builds of the runtime too.
LABELS = {name: ["sanitized"] for name in (
    "diag", "diag_threads", "diag_bug", "diag_dispose", "jump",
    "jump_builtin", "jump_bug", "jump_builtin_bug", "throw", "throw_bug",
    "orc", "orc_thread",
    "orc_report_leaks")}


def main():
    return case_main("reentrancy", globals(), 200, labels=LABELS)



if __name__ == "__main__":
    sys.exit(main())
