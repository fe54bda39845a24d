#!/usr/bin/python3
"""Checks the lifetime cases (lifetime.c, unseen.cpp, cxx_freed.cpp) under
`ownsan run`.

For each case: the buggy run must stop with exactly one report whose lines
match the case's expectations, and the --fixed run must exit 0 with no
report and the same stdout as without ownsan. `--repeat N` reruns the buggy
case N times (address-reuse cases must be reported every time).

Usage: check_lifetime.py --ownsan OWNSAN --program LIFETIME --case NAME
           [--repeat N] [--options OWNSAN_OPTIONS]
"""
import argparse
import json
import os
import re
import subprocess
import sys

LABEL_F = r'function @f in module "m"'
# unseen.cpp cases -> the call the JSON report's first_seen_in names.
FIRST_SEEN_IN = {"unseen_dispose_module": "LLVMDisposeModule",
                 "unseen_consume_buffer": "LLVMParseIRInContext"}

# case -> list of regexes the report must contain (in order).
EXPECT = {
    # unseen.cpp: objects made with LLVM's C++ API.
    "unseen_dispose_module": [
        r'ERROR: OwnSan: use-after-free on LLVMModuleRef 0x[0-9a-f]+ '
        r'\(module "unseen"\)',
        r"passed as argument 1 of LLVMGetModuleIdentifier",
        r'freed by LLVMDisposeModule\(module "unseen"\) on thread T0:',
        r"#0 .* in case_dispose_module",
        r"created outside the LLVM-C API \(first seen in a call to "
        r"LLVMDisposeModule\)",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier"],
    "unseen_consume_buffer": [
        r"ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef "
        r"0x[0-9a-f]+ \(memory buffer 0x[0-9a-f]+\)",
        r"passed as argument 1 of LLVMGetBufferSize",
        r"consumed by LLVMParseIRInContext\(memory buffer 0x[0-9a-f]+\) on "
        r"thread T0:",
        r"#0 .* in case_consume_buffer",
        r"created outside the LLVM-C API \(first seen in a call to "
        r"LLVMParseIRInContext\)",
        r"SUMMARY: OwnSan: use-after-consume in LLVMGetBufferSize"],
    # cxx_freed.cpp: objects made through LLVM-C, freed by C++ code.
    "cxx_engine_dispose": [
        r'ERROR: OwnSan: use-after-free on LLVMValueRef 0x[0-9a-f]+ '
        r'\(function @answer in module "jitted"\)',
        r"passed as argument 1 of LLVMGetValueName2",
        r"#0 .* in case_engine_dispose",
        r"freed during LLVMDisposeExecutionEngine on thread T0, by LLVM "
        r"itself:",
        r"#0 .* in case_engine_dispose",
        r"created by LLVMAddFunction",
        r'ownership chain when freed: context 0x[0-9a-f]+ -> module "jitted" '
        r"-> function @answer",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetValueName2"],
    "cxx_engine_dispose_module": [
        r'ERROR: OwnSan: use-after-free on LLVMModuleRef 0x[0-9a-f]+ '
        r'\(module "jitted"\)',
        r"passed as argument 1 of LLVMGetModuleIdentifier",
        r"freed during LLVMDisposeExecutionEngine on thread T0, by LLVM "
        r"itself:",
        r"#0 .* in case_engine_dispose",
        r"created by LLVMModuleCreateWithNameInContext",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier"],
    "cxx_bitcode_owned": [
        r'ERROR: OwnSan: use-after-free on LLVMValueRef 0x[0-9a-f]+ '
        r'\(function @lib0 in module "library.bc"\)',
        r"passed as argument 1 of LLVMGetValueName2",
        r"#0 .* in case_bitcode_owned",
        r"freed outside any LLVM-C call on thread T0:",
        r"#0 .* in inline_in_cxx",
        r"created by LLVMGetNamedFunction",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetValueName2"],
    "pass_dce": [
        r"ERROR: OwnSan: use-after-free on LLVMValueRef 0x[0-9a-f]+ "
        r"\(instruction %dead in block %entry of " + LABEL_F + r"\)",
        r"passed as argument 1 of LLVMGetValueName2",
        r'freed during LLVMRunPasses\("dce"\) on thread T0, by LLVM itself:',
        r"#0 .* in run_pipeline .*lifetime\.c",
        r"created by LLVMBuildAdd",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetValueName2"],
    "pass_simplifycfg": [
        r"use-after-free on LLVMBasicBlockRef 0x[0-9a-f]+ \(block %next of "
        + LABEL_F + r"\)",
        r"passed as argument 1 of LLVMGetBasicBlockName",
        r'freed during LLVMRunPasses\("simplifycfg"\)',
        r"#0 .* in run_pipeline",
        r"created by LLVMAppendBasicBlockInContext"],
    "pass_globaldce": [
        r'use-after-free on LLVMValueRef 0x[0-9a-f]+ \(function @unused in '
        r'module "m"\)',
        r'freed during LLVMRunPasses\("globaldce"\)',
        r"created by LLVMAddFunction"],
    "legacy_dce": [
        r"use-after-free on LLVMValueRef 0x[0-9a-f]+ \(instruction %dead",
        r"freed during LLVMRunFunctionPassManager on thread T0, by LLVM "
        r"itself:"],
    "builder_block_deleted": [
        r"ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef "
        r"0x[0-9a-f]+ \(builder 0x[0-9a-f]+\)",
        r"LLVMBuildAdd inserts at the builder's position, which is the end of "
        r"a freed block",
        r"passed as argument 1 of LLVMBuildAdd",
        r'its insertion point block %entry of function @foo in module "m" was '
        r"freed by LLVMDeleteBasicBlock",
        r"created by LLVMCreateBuilderInContext"],
    "builder_before_erased": [
        r"dangling-insertion-point on LLVMBuilderRef",
        r"before a freed instruction",
        r"its insertion point instruction %anchor in block %entry .* was "
        r"freed by LLVMInstructionEraseFromParent"],
    # Run with history_size_mb=1: the record of @f was evicted, its address
    # is still known to be stale.
    "history_evicted": [
        r"ERROR: OwnSan: use-after-free on LLVMValueRef 0x[0-9a-f]+ "
        r"\(function, history evicted\)",
        r"its history is gone: it was freed long enough ago that its record "
        r"was evicted to keep the history of freed objects within "
        r"history_size_mb=1; a larger history_size_mb keeps more",
        r"passed as argument 1 of LLVMGetValueName2 on thread T0:",
        r"#0 .* in case_history_evicted .*lifetime\.c",
        r"SUMMARY: OwnSan: use-after-free in LLVMGetValueName2"],
    "reuse_other_kind": [
        r"use-after-free on LLVMBuilderRef (0x[0-9a-f]+) \(builder 0x",
        r"passed as argument 1 of LLVMGetInsertBlock",
        r"freed by LLVMDisposeBuilder",
        r"identity: (0x[0-9a-f]+)#1 \(address#generation\), freed; the address "
        r"now belongs to memory buffer 0x[0-9a-f]+ \(0x[0-9a-f]+#2\), created "
        r"by LLVMCreateMemoryBufferWithMemoryRange"],
}
REUSE_KINDS = {
    "instruction": ("LLVMValueRef", r"instruction %instruction-1 in block "
                    r"%entry of function @host", "LLVMGetInstructionOpcode",
                    "LLVMInstructionEraseFromParent"),
    "block": ("LLVMBasicBlockRef", r"block %block-1 of function @host",
              "LLVMGetBasicBlockName", "LLVMDeleteBasicBlock"),
    "function": ("LLVMValueRef", r"function @function-1 in module", 
                 "LLVMGetValueName2", "LLVMDeleteFunction"),
    "global": ("LLVMValueRef", r"global @global-1 in module",
               "LLVMGetValueName2", "LLVMDeleteGlobal"),
    "module": ("LLVMModuleRef", r'module "module-1"',
               "LLVMGetModuleIdentifier", "LLVMDisposeModule"),
    "builder": ("LLVMBuilderRef", r"builder 0x[0-9a-f]+", "LLVMGetInsertBlock",
                "LLVMDisposeBuilder"),
    "memory_buffer": ("LLVMMemoryBufferRef", r"memory buffer 0x[0-9a-f]+",
                      "LLVMGetBufferSize", "LLVMDisposeMemoryBuffer"),
}
for kind, (ty, label, use, free) in REUSE_KINDS.items():
    EXPECT["reuse_" + kind] = [
        rf"ERROR: OwnSan: use-after-free on {ty} (0x[0-9a-f]+) \({label}",
        rf"passed as argument 1 of {use}",
        r"#0 .* in use_stale .*lifetime\.c",
        rf"freed by {free}\(",
        r"#0 .* in free_one",
        r"identity: 0x[0-9a-f]+#1 \(address#generation\); no object has been "
        r"created at this address since it was freed",
        r"#0 .* in make_one",
        rf"SUMMARY: OwnSan: use-after-free in {use}"]


def run(cmd, env):
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=300)


def check_report(case, proc, stale):
    err = proc.stderr
    problems = []
    if proc.returncode == 0:
        problems.append("the buggy run exited 0")
    headers = re.findall(r"^==\d+==ERROR: OwnSan:", err, re.M)
    if len(headers) != 1:
        problems.append(f"{len(headers)} reports instead of 1")
    pos = 0
    for pattern in EXPECT[case]:
        m = re.compile(pattern, re.M).search(err, pos)
        if not m:
            problems.append(f"missing (in order): {pattern}")
            continue
        pos = m.end()
        if stale and m.groups() and m.group(1).startswith("0x"):
            if int(m.group(1), 16) != int(stale, 16):
                problems.append(f"report names {m.group(1)}, the stale handle "
                                f"is {stale}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--options", default="")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.options:
        env["OWNSAN_OPTIONS"] = a.options
    plain_env = {k: v for k, v in env.items() if k != "OWNSAN_OPTIONS"}

    plain = run([a.program, a.case, "--fixed"], plain_env)
    if plain.returncode == 77:
        print(f"SKIP: {plain.stdout.strip()}")
        return 77
    failures = passed = 0
    fixed = run([a.ownsan, "run", "--", a.program, a.case, "--fixed"], env)
    if fixed.returncode != 0 or "OwnSan" in fixed.stderr or \
            fixed.stdout != plain.stdout:
        failures += 1
        print(f"FAIL {a.case} --fixed: exit {fixed.returncode}, stdout "
              f"{'same' if fixed.stdout == plain.stdout else 'differs'}")
        print(fixed.stderr[-4000:])
    else:
        passed += 1
    for i in range(a.repeat):
        bug = run([a.ownsan, "run", "--", a.program, a.case], env)
        stale = re.search(r"lifetime: stale = (0x[0-9a-f]+)", bug.stderr)
        problems = check_report(a.case, bug, stale.group(1) if stale else None)
        if problems:
            failures += 1
            print(f"FAIL {a.case} run {i + 1}: " + "; ".join(problems))
            print(bug.stderr[-6000:])
        else:
            passed += 1
    if a.case in FIRST_SEEN_IN:
        # The JSON report names the adopting call too (create is null).
        json_env = dict(env, OWNSAN_OPTIONS="report_format=json")
        bug = run([a.ownsan, "run", "--", a.program, a.case], json_env)
        reps = [json.loads(l) for l in bug.stderr.splitlines()
                if l.startswith('{"ownsan_report"')]
        want = FIRST_SEEN_IN[a.case]
        if len(reps) == 1 and reps[0].get("create") is None and \
                reps[0].get("first_seen_in") == want:
            passed += 1
        else:
            failures += 1
            print(f"FAIL {a.case} json: want one report with create null "
                  f"and first_seen_in {want!r}; got "
                  f"{[(r.get('create'), r.get('first_seen_in')) for r in reps]}")
    print(f"{a.case}: {passed} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
