#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan and threads: tests/threads/threads.c under `ownsan run`.

    check_threads.py --case CASE --ownsan OWNSAN --program THREADS
                     [--iters N] [--threads N] [--timeout S]

Cases:
  stress    8 threads x own context x ITERS create/use/dispose cycles + one
            MCJIT engine shared by all: exit 0, the same stdout as without
            ownsan, nothing from OwnSan, no sanitizer warning (TSan/ASan/UBSan
            builds of the runtime), within the timeout. Also in continue
            mode (halt_on_error=0) and with report_leaks=1.
  cold      the same without the engine, the threads making the process's
            first LLVM-C calls at the same moment.
  race      a context used by two threads at once (deterministic: the owner
            blocks inside LLVMParseBitcodeInContext2's diagnostic handler
            until the intruder has called): one context-race report naming
            the context, the intruder's call and stack (race_intruder_call,
            thread T1) and the owner's call and stack
            (LLVMParseBitcodeInContext2, race_owner_parse, thread T0).
            --fixed (sequential): silent, same stdout as without ownsan.
  race_first
            the same race with no hand-off before it: still reported, the
            owner's thread and call named, and only the frame that made the
            call (full stacks are recorded by the first 256 claims after a
            hand-off).
  race_late the race with a hand-off, then 300 calls by the owner alone:
            the same one frame; with 200 calls, the full stack.
  race_nested
            the race while the owner is inside a call on a second context
            that its diagnostic handler made: the race's context is held by
            the owner's outer call (saved while the callback's call runs);
            reported as in `race`, the owner's outer call named.
  cross_fn  LLVMAddFunction(private module, global-context function type):
            one cross-context report naming both contexts.
  cross_add LLVMBuildAdd(private parameter, global-context constant): same.
  cross_shuffle
            LLVMBuildShuffleVector(private parameter, global-context zero
            vector, mask of a third context): the same report, about the
            vector (argument 3). --fixed: the mask of another context alone
            (as llvm-c-test --echo makes it) is no report: LLVM only reads
            its integers (spec data_only).
  handoff   one context handed between two threads 200 times with proper
            synchronization: silent, same stdout.
  owner_exited
            a context made by a thread that has exited, then used and
            disposed by the main thread, 50 times: silent, same stdout (the
            claim reads the owner's call contexts only while the owner is
            registered, and finds none: a hand-off).
  engine_dispose
            LLVMDisposeExecutionEngine (which frees the engine's module),
            then LLVMContextDispose: silent, exit 0 (see threads.c).
  small_stack
            libownsan.so's static TLS (taken by glibc out of every thread's
            stack) is at most 16 KiB; a thread created with a 32 KiB stack
            builds and disposes modules: silent, same stdout.

Prints one PASS/FAIL line per check and "N passed, M failed"; exit status 1
on any failure.
"""

import os
import subprocess
import sys
import time

from ownsan_testing import (case_main, clean_env, handles, ownsan_lines,
                            parse_reports, run, sanitizer_errors)


def ownsan_run(a, args, options=None, timeout=None):
    env = clean_env()
    if options:
        env["OWNSAN_OPTIONS"] = options
    return run([a.ownsan, "run", "--", a.program] + args, env=env,
               timeout=timeout or a.timeout)


def plain_run(a, args, timeout=None):
    return run([a.program] + args, env=clean_env(), timeout=timeout or a.timeout)


def check_silent(c, a, args, what, options=None):
    """Without and with ownsan: exit 0, same stdout, nothing from OwnSan nor
    from a sanitizer, no timeout."""
    ref = plain_run(a, args)
    c.check(ref.returncode == 0, f"{what}: runs without ownsan (exit 0)", ref)
    t0 = time.monotonic()
    r = ownsan_run(a, args, options)
    took = time.monotonic() - t0
    label = f"{what}" + (f" [OWNSAN_OPTIONS={options}]" if options else "")
    c.check(not r.timed_out, f"{label}: finishes within {a.timeout}s "
            f"(took {took:.1f}s; no deadlock)", r)
    c.check(r.returncode == 0, f"{label}: exit status 0 under ownsan", r)
    c.equal(r.out, ref.out, f"{label}: stdout is the same as without ownsan",
            r)
    c.equal(ownsan_lines(r.err), [], f"{label}: nothing from OwnSan on "
            "stderr", r)
    c.equal(sanitizer_errors(r.err), [], f"{label}: no ThreadSanitizer/"
            "AddressSanitizer/UBSan diagnostic", r)
    return r


def case_stress(c, a):
    args = ["stress", str(a.iters), str(a.threads)]
    check_silent(c, a, args, f"stress ({a.threads} threads x {a.iters})")
    check_silent(c, a, args, "stress", options="halt_on_error=0")
    check_silent(c, a, args, "stress", options="report_leaks=1")


def case_cold(c, a):
    args = ["cold", str(max(a.iters // 10, 20)), str(a.threads)]
    for i in range(3):
        check_silent(c, a, args, f"cold start #{i + 1}")


def one_report(c, r, what):
    reps = parse_reports(r.err, strict=False)
    c.check(r.returncode not in (0, None), f"{what}: ownsan stops the "
            f"program (exit status {r.returncode})", r)
    c.check(len(reps) == 1, f"{what}: exactly one OwnSan report "
            f"({len(reps)})", r)
    c.equal(sanitizer_errors(r.err), [], f"{what}: no sanitizer diagnostic",
            r)
    return reps[0] if reps else None


# The owner's section of the seeded race's report (race, race_first,
# race_late).
OWNER_HEADING = ("at the same time thread T0 is inside "
                 "LLVMParseBitcodeInContext2 on the same context, which it "
                 "entered at")


def has_fn(section, fn):
    return section is not None and fn in section.functions()


def race_report(c, a, mode):
    """Runs the seeded race `mode`: the run, its one report (checked to be
    a context-race; None if there is not exactly one) and the handle of the
    program's context."""
    r = ownsan_run(a, [mode])
    rep = one_report(c, r, mode)
    ctx = handles(r.err, "threads").get("context")
    if rep is not None:
        c.equal(rep.kind, "context-race",
                f"{mode}: the report is a context-race", rep.text)
    return r, rep, ctx


def case_race(c, a):
    r, rep, ctx = race_report(c, a, "race")
    if rep is None:
        return
    c.equal(rep.pid, r.pid, "race: the report comes from the program's pid",
            rep.text)
    c.check(ctx is not None and rep.handle == ctx and
            rep.handle_type == "LLVMContextRef",
            "race: the report is about the program's context "
            f"({ctx and hex(ctx)})", rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and
            use.heading == "passed as argument 1 of LLVMInt32TypeInContext "
            "on thread T1", "race: the intruder's call (argument 1 of "
            "LLVMInt32TypeInContext on thread T1)", rep.text)
    c.check(has_fn(use, "race_intruder_call") and
            not has_fn(use, "race_owner_parse"),
            "race: the intruder's stack shows race_intruder_call", rep.text)
    other = rep.section("at the same time thread")
    c.check(other is not None and other.heading ==
            OWNER_HEADING,
            "race: the owner's thread (T0) and call "
            "(LLVMParseBitcodeInContext2) are named", rep.text)
    c.check(has_fn(other, "race_owner_parse") and
            has_fn(other, "mode_race") and
            not has_fn(other, "race_intruder_call"),
            "race: the owner's full stack (race_owner_parse, mode_race) "
            "was recorded after the hand-off", rep.text)
    c.check(ctx is not None and any(f"context {ctx:#x}" in n
                                    for n in rep.notes),
            "race: the note names the context", rep.text)
    c.check(rep.summary is not None and rep.summary.startswith(
        "context-race in LLVMInt32TypeInContext"),
        "race: SUMMARY line", rep.text)
    c.check(r.out.rstrip().endswith("race: intruder calls "
                                    "LLVMInt32TypeInContext"),
            "race: the program stopped at the intruder's call", r)
    # Continue mode: the intruder's call is skipped, the owner goes on, the
    # run ends with exitcode at exit, nothing hangs.
    r = ownsan_run(a, ["race"], options="halt_on_error=0")
    c.check(not r.timed_out and r.returncode == 1 and
            "race: intruder's call was skipped" in r.out and
            "race: done" in r.out and len(parse_reports(r.err, strict=False)) == 1,
            "race, halt_on_error=0: one report, the call skipped, the "
            "program finishes, exit status 1", r)
    check_silent(c, a, ["race", "--fixed"], "race --fixed (sequential)")


def case_race_first(c, a):
    """The race without a hand-off first: reported all the same; the owner's
    call is named and, since its full stack was not recorded (claims record
    stacks only after a hand-off), the frame that called into LLVM is
    shown."""
    _, rep, _ = race_report(c, a, "race_first")
    if rep is None:
        return
    use = rep.section("passed as argument")
    c.check(has_fn(use, "race_intruder_call"), "race_first: the intruder's "
            "stack shows race_intruder_call", rep.text)
    other = rep.section("at the same time thread")
    c.check(other is not None and other.heading ==
            OWNER_HEADING,
            "race_first: the owner's thread and call are named", rep.text)
    c.check(other is not None and
            other.functions() == ["race_owner_parse"],
            "race_first: the owner's calling frame (race_owner_parse) is "
            "shown, alone", rep.text)


def case_race_late(c, a):
    """A hand-off, then a run of calls by the owner alone, then the race:
    claims record their stacks for 256 claims after a hand-off only; later
    ones record the calling frame."""
    for calls, full in ((300, False), (200, True)):
        what = f"race_late {calls}"
        r = ownsan_run(a, ["race_late", str(calls)])
        rep = one_report(c, r, what)
        if rep is None:
            continue
        c.equal(rep.kind, "context-race", f"{what}: a context-race",
                rep.text)
        other = rep.section("at the same time thread")
        c.check(other is not None and other.heading ==
                OWNER_HEADING, f"{what}: the owner's thread and call are "
                "named", rep.text)
        if full:
            c.check(has_fn(other, "race_owner_parse") and
                    has_fn(other, "mode_race"), f"{what}: the owner's full "
                    "stack (within 256 claims of the hand-off)", rep.text)
        else:
            c.check(other is not None and
                    other.functions() == ["race_owner_parse"],
                    f"{what}: only the owner's calling frame (its claim came "
                    "after 256 claims by the owner alone)", rep.text)


def case_race_nested(c, a):
    """The owner is inside a call on a second context, made by the
    diagnostic handler of its call on the raced context: a race all the
    same (the outer call holds the context while the callback runs)."""
    r, rep, ctx = race_report(c, a, "race_nested")
    if rep is None:
        return
    c.check(ctx is not None and rep.handle == ctx,
            "race_nested: about the outer call's context "
            f"({ctx and hex(ctx)}), not the second one", rep.text)
    use = rep.section("passed as argument")
    c.check(has_fn(use, "race_intruder_call"), "race_nested: the intruder's "
            "stack shows race_intruder_call", rep.text)
    other = rep.section("at the same time thread")
    c.check(other is not None and other.heading == OWNER_HEADING,
            "race_nested: the owner's thread (T0) and outer call "
            "(LLVMParseBitcodeInContext2) are named", rep.text)
    c.check(has_fn(other, "race_owner_parse") and
            not has_fn(other, "race_owner_nested_parse"),
            "race_nested: the owner's stack is the outer call's claim",
            rep.text)
    c.check("race: owner's handler calls LLVMParseBitcodeInContext2 on a "
            "second context" in r.out, "race_nested: the owner was inside "
            "the nested call", r)
    check_silent(c, a, ["race_nested", "--fixed"],
                 "race_nested --fixed (sequential)")


def check_cross(c, a, mode, fn, arg_subject, arg_context, fn_step, create_fn,
                create_step, handle_type, fixed_what="one context"):
    r = ownsan_run(a, [mode])
    rep = one_report(c, r, mode)
    if rep is None:
        return
    h = handles(r.err, "threads")
    ctx, glob, subj = h.get("context"), h.get("global"), h.get("subject")
    c.equal(rep.kind, "cross-context", f"{mode}: the report is a "
            "cross-context", rep.text)
    c.check(subj is not None and rep.handle == subj and
            rep.handle_type == handle_type,
            f"{mode}: about the global-context object ({handle_type} "
            f"{subj and hex(subj)})", rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and use.heading ==
            f"passed as argument {arg_subject} of {fn} on thread T0",
            f"{mode}: argument {arg_subject} of {fn}", rep.text)
    c.check(has_fn(use, fn_step), f"{mode}: the use stack shows {fn_step}",
            rep.text)
    want = (f"argument {arg_subject} belongs to context {glob:#x} (global) "
            f"but argument {arg_context} belongs to context {ctx:#x}: objects "
            "of two contexts cannot be mixed") if ctx and glob else None
    c.check(want is not None and want in rep.notes,
            f"{mode}: the note names both contexts ({want})", rep.text)
    create = rep.section("created by")
    c.check(create is not None and create.heading ==
            f"created by {create_fn} on thread T0" and
            has_fn(create, create_step),
            f"{mode}: the object's creation ({create_fn} in {create_step})",
            rep.text)
    c.check(rep.chain is not None and glob is not None and
            rep.chain.startswith(f"context {glob:#x} (global) -> "),
            f"{mode}: the ownership chain starts at the global context",
            rep.text)
    check_silent(c, a, [mode, "--fixed"], f"{mode} --fixed ({fixed_what})")


def case_cross_fn(c, a):
    check_cross(c, a, "cross_fn", "LLVMAddFunction", 3, 1,
                "cross_add_function", "LLVMFunctionType",
                "cross_make_fn_type", "LLVMTypeRef")


def case_cross_add(c, a):
    check_cross(c, a, "cross_add", "LLVMBuildAdd", 3, 2, "cross_build_add",
                "LLVMConstInt", "cross_make_constant", "LLVMValueRef")


def case_cross_shuffle(c, a):
    check_cross(c, a, "cross_shuffle", "LLVMBuildShuffleVector", 3, 2,
                "shuffle_build", "LLVMConstNull", "shuffle_make_operand",
                "LLVMValueRef", fixed_what="only the mask, which LLVM reads "
                "as data, from another context")


def case_handoff(c, a):
    check_silent(c, a, ["handoff", "200"], "handoff (200 round trips)")


def case_owner_exited(c, a):
    check_silent(c, a, ["owner_exited", "50"],
                 "contexts of exited threads used by the main thread")


def case_engine_dispose(c, a):
    check_silent(c, a, ["engine_dispose"],
                 "LLVMDisposeExecutionEngine then LLVMContextDispose")


# glibc carves each thread's static TLS out of the stack the thread asked
# for: the runtime's per-thread caches must leave small stacks room.
TLS_BUDGET = 16 * 1024


def case_small_stack(c, a):
    lib = os.path.join(os.path.dirname(os.path.realpath(a.ownsan)), os.pardir,
                       "lib", "libownsan.so")
    out = subprocess.run(["readelf", "-lW", lib], capture_output=True,
                         text=True)
    tls = [line.split() for line in out.stdout.splitlines()
           if line.split()[:1] == ["TLS"]]
    c.check(out.returncode == 0 and len(tls) == 1,
            f"readelf -lW {lib}: one TLS segment")
    if len(tls) == 1:
        memsz = int(tls[0][5], 16)
        c.check(memsz <= TLS_BUDGET, f"static TLS of libownsan.so is "
                f"{memsz} bytes (budget {TLS_BUDGET})")
    check_silent(c, a, ["small_stack", "32"],
                 "a thread with a 32 KiB stack")


# ctest labels (tests/CMakeLists.txt): `sanitized` runs the case in the
# ASan+UBSan and TSan builds of the runtime too.
LABELS = {name: ["sanitized"] for name in (
    "stress", "cold", "race", "race_first", "race_late", "race_nested",
    "owner_exited", "cross_fn",
    "cross_add", "cross_shuffle", "handoff", "engine_dispose")}


def main():
    def more(p):
        p.add_argument("--iters", type=int, default=2000)
        p.add_argument("--threads", type=int, default=8)
    return case_main("threads", globals(), 300, more, labels=LABELS)



if __name__ == "__main__":
    sys.exit(main())
