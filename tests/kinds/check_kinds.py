#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Handles of the wrong kind (src/profiles/llvm_c/handle_kinds.spec) under ownsan.

    check_kinds.py --case CASE --ownsan OWNSAN --program KINDS

Cases (the program is tests/kinds/kinds.cpp):
  first_param, initializer, instruction_parent, personality, block_parent
                 one misuse each: exactly one wrong-handle-kind report, in
                 text and in JSON, naming the function, the argument, what
                 the handle is and what the function expects; the process
                 stopped before the call (its announcement is the last
                 stdout line; natively the call returns garbage and the
                 program exits 0).
  continue       the five misuses with halt_on_error=0: five reports, every
                 call skipped (returns NULL), the program runs to its end,
                 exit status `exitcode`.
  suppressed     first_param with a suppression for LLVMGetFirstParam: the
                 call goes through as without ownsan (garbage result, which
                 ownsan must not read): exit 0, the same stdout as without
                 ownsan on the heap `ownsan run` gives (the garbage is what
                 that heap's memory holds).
  clean          correct calls with every kind of every set of the table:
                 the same stdout and exit status as without ownsan, nothing
                 from OwnSan.
  unknown        the five misuses on values made with LLVM's C++ API, which
                 ownsan never saw: it cannot tell their kind, so nothing is
                 reported and nothing crashes (the results are garbage and
                 are not registered); the same stdout as without ownsan on
                 the heap `ownsan run` gives.

Prints one PASS/FAIL line per check and "N passed, M failed".
"""

import json
import re
import sys
import tempfile

from ownsan_testing import (case_main, clean_env, ownsan_lines,
                            parse_reports, run, run_heap_env,
                            sanitizer_errors)

# case -> (function, what the handle is: label regex and short label regex,
# what the function expects, the program's function making the call)
MISUSES = {
    "first_param": ("LLVMGetFirstParam", r'global @g in module "m"',
                    r"global @g", "a function", "FirstParamOfGlobal"),
    "initializer": ("LLVMGetInitializer", r'function @f in module "m"',
                    r"function @f", "a global variable",
                    "InitializerOfFunction"),
    "instruction_parent": ("LLVMGetInstructionParent",
                           r"constant {SUBJECT}", r"constant {SUBJECT}",
                           "an instruction", "ParentOfConstant"),
    "personality": ("LLVMGetPersonalityFn", r'global @g in module "m"',
                    r"global @g", "a function", "PersonalityOfGlobal"),
    "block_parent": ("LLVMGetBasicBlockParent",
                     r'instruction <unnamed> in block %entry of function @f '
                     r'in module "m"', r"instruction <unnamed>",
                     "a basic block", "BlockParentOfInstruction"),
}
SUBJECT_RE = re.compile(r"kinds: subject = (0x[0-9a-f]+)")


def subjects(err):
    return SUBJECT_RE.findall(err)


def check_report(c, rep, case, subject, what):
    """One text report against MISUSES[case]."""
    fn, label, short, expected, caller = MISUSES[case]
    label = label.replace("{SUBJECT}", subject)
    short = short.replace("{SUBJECT}", subject)
    c.equal(rep.kind, "wrong-handle-kind", f"{what}: kind")
    c.equal(rep.handle, int(subject, 16), f"{what}: the misused handle")
    c.check(re.fullmatch(label, rep.label) is not None,
            f"{what}: the object is {label}", rep.text)
    note = (f"{fn} expects {expected} as argument 1, but it is {short}; "
            "the C API casts it unchecked")
    c.check(len(rep.notes) == 1 and re.fullmatch(note, rep.notes[0]),
            f"{what}: the note says what it is and what {fn} expects",
            rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and
            use.heading == f"passed as argument 1 of {fn} on thread T0",
            f"{what}: passed as argument 1 of {fn}", rep.text)
    c.check(use is not None and use.raw and caller in use.raw[0],
            f"{what}: the use stack starts in {caller}", rep.text)
    c.check(rep.section("freed") is None, f"{what}: no free section (the "
            "object is alive)", rep.text)
    c.check(rep.summary is not None and rep.summary.startswith(
        f"wrong-handle-kind in {fn} "),
        f"{what}: SUMMARY line", rep.text)


def check_misuse(c, a, case):
    program = [a.program, case]
    env = clean_env()
    ref = run(program, env=env, timeout=a.timeout)
    c.equal(ref.returncode, 0, f"{case}: natively the program carries on "
            "(exit 0)", ref)
    r = run([a.ownsan, "run", "--"] + program, env=env, timeout=a.timeout)
    c.check(r.returncode not in (0, None), f"{case}: ownsan stops the program",
            r)
    c.check("SEGV" not in r.err, f"{case}: no crash", r)
    reps = parse_reports(r.err, strict=False)
    c.equal(len(reps), 1, f"{case}: exactly one report", r)
    subject = (subjects(r.err) or ["0x0"])[-1]
    if reps:
        check_report(c, reps[0], case, subject, case)
    fn = MISUSES[case][0]
    lines = r.out.splitlines()
    c.equal(lines[-1:], [f"{case}: {fn}"], f"{case}: stopped before {fn} "
            "ran (its announcement is the last stdout line)", r)
    c.equal(sanitizer_errors(r.err), [], f"{case}: no sanitizer diagnostic",
            r)

    # The same report as JSON.
    jenv = clean_env(OWNSAN_OPTIONS="report_format=json")
    j = run([a.ownsan, "run", "--"] + program, env=jenv, timeout=a.timeout)
    objs = [json.loads(l) for l in j.err.splitlines()
            if l.startswith('{"ownsan_report"')]
    c.equal(len(objs), 1, f"{case}: one JSON report", j)
    if objs:
        o = objs[0]
        _, label, short, expected, _ = MISUSES[case]
        subject = (subjects(j.err) or ["0x0"])[-1]
        c.equal(o.get("kind"), "wrong-handle-kind", f"{case}: JSON kind")
        c.equal(o.get("call"), {"function": fn, "argument": 1},
                f"{case}: JSON call")
        c.equal(o.get("expected"), expected, f"{case}: JSON expected")
        c.check(re.fullmatch(label.replace("{SUBJECT}", subject),
                             o.get("object", {}).get("label", "")) is not None,
                f"{case}: JSON object label", o)
        c.check(short.replace("{SUBJECT}", subject) in (o.get("note") or ""),
                f"{case}: JSON note says what it is", o)


def case_first_param(c, a):
    check_misuse(c, a, "first_param")


def case_initializer(c, a):
    check_misuse(c, a, "initializer")


def case_instruction_parent(c, a):
    check_misuse(c, a, "instruction_parent")


def case_personality(c, a):
    check_misuse(c, a, "personality")


def case_block_parent(c, a):
    check_misuse(c, a, "block_parent")


def case_continue(c, a):
    env = clean_env(OWNSAN_OPTIONS="halt_on_error=0:exitcode=23")
    r = run([a.ownsan, "run", "--", a.program, "all"], env=env,
            timeout=a.timeout)
    c.equal(r.returncode, 23, "the run ends with exitcode", r)
    reps = parse_reports(r.err, strict=False)
    c.equal([rep.kind for rep in reps], ["wrong-handle-kind"] * 5,
            "five wrong-handle-kind reports", r)
    subs = subjects(r.err)
    for case, rep, subject in zip(MISUSES, reps, subs):
        check_report(c, rep, case, subject, f"continue: {case}")
    for case in MISUSES:
        c.check(f"{case}: returned null" in r.out.splitlines(),
                f"continue: {case}: the call was skipped (NULL)", r)
    c.check(r.out.endswith("done\n"), "the program ran to its end", r)
    c.check("SEGV" not in r.err, "no crash", r)


def case_suppressed(c, a):
    with tempfile.NamedTemporaryFile("w", suffix=".supp") as supp:
        supp.write("fun:LLVMGetFirstParam\n")
        supp.flush()
        env = clean_env()
        # (The garbage depends on the heap: the reference runs on ownsan
        # run's.)
        ref = run([a.program, "first_param"],
                  env=clean_env(**run_heap_env(a.ownsan)), timeout=a.timeout)
        env["OWNSAN_OPTIONS"] = f"suppressions={supp.name}"
        r = run([a.ownsan, "run", "--", a.program, "first_param"], env=env,
                timeout=a.timeout)
    c.equal(r.returncode, 0, "exit 0 (the report was suppressed)", r)
    c.equal(r.out, ref.out, "the same stdout as without ownsan (the call "
            "went through)", r)
    c.check("ERROR: OwnSan" not in r.err, "no report, no crash", r)


def same_as_native(c, a, case, garbage=False):
    """`garbage`: the program prints what LLVM read from the wrong kind of
    object, which depends on the heap: the reference runs on `ownsan run`'s
    heap. A correct program's reference is the program as it is."""
    env = clean_env()
    ref = run([a.program, case],
              env=clean_env(**run_heap_env(a.ownsan)) if garbage else env,
              timeout=a.timeout)
    c.equal(ref.returncode, 0, f"{case}: exit 0 without ownsan", ref)
    r = run([a.ownsan, "run", "--", a.program, case], env=env,
            timeout=a.timeout)
    c.equal(r.returncode, 0, f"{case}: exit 0 under ownsan", r)
    c.equal(r.out, ref.out, f"{case}: the same stdout under ownsan", r)
    c.equal(ownsan_lines(r.err), [], f"{case}: nothing from OwnSan", r)
    c.equal(sanitizer_errors(r.err), [], f"{case}: no sanitizer diagnostic",
            r)


def case_clean(c, a):
    same_as_native(c, a, "clean")


def case_unknown(c, a):
    same_as_native(c, a, "unknown", garbage=True)


if __name__ == "__main__":
    sys.exit(case_main("kinds", globals(), timeout=120))
