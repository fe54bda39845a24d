#!/usr/bin/python3
"""Checks the lifetime cases (lifetime.c, unseen.cpp, cxx_freed.cpp) under
`ownsan run`.

For each case: the buggy run must stop with exactly one report whose lines
match the case's expectations, and the --fixed run must exit 0 with no
report and the same stdout as without ownsan. `--repeat N` reruns the buggy
case N times (address-reuse cases must be reported every time).

Usage: check_lifetime.py --ownsan OWNSAN --program LIFETIME --unseen UNSEEN
           --cxx-freed CXX_FREED --case NAME [--repeat N] [--reuse-repeat N]
       check_lifetime.py --list | --list-asan

Each case is written once, in CASES below (program, options, repeats,
labels); tests/CMakeLists.txt reads `--list` at configure time.
"""
import argparse
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, Optional

from ownsan_testing import (EXIT_SKIP, Checker, clean_env, json_reports,
                            list_cases, report_headers, run)

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


# How each case runs: which program, with which OWNSAN_OPTIONS and extra
# environment, how many buggy runs (None: --reuse-repeat, the address-reuse
# cases), whether the program may say the case does not exist for this LLVM
# (exit 77), its ctest labels, and whether it runs again with the
# AddressSanitizer build of lifetime.c (lifetime.asan.CASE; ASan's allocator
# is the program's, its quarantine keeps freed addresses from reuse).
@dataclass
class Case:
    program: str = "lifetime"  # lifetime | unseen | cxx_freed
    options: str = ""
    env: Dict[str, str] = field(default_factory=dict)
    repeat: Optional[int] = 1
    may_skip: bool = False
    sanitized: bool = False
    asan: bool = False


# Objects freed by C++ code, their memory then reused: glibc's perturbation
# fills freed memory and tcache off makes the reuse deterministic;
# report_leaks=1 in the fixed runs (they never leak).
CXX_FREED = dict(program="cxx_freed", options="report_leaks=1", sanitized=True,
                 env={"MALLOC_PERTURB_": "165",
                      "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"})
CASES = {
    "pass_dce": Case(sanitized=True, asan=True),
    "pass_simplifycfg": Case(sanitized=True, asan=True),
    "pass_globaldce": Case(sanitized=True),
    "legacy_dce": Case(may_skip=True),
    "builder_block_deleted": Case(sanitized=True, asan=True),
    "builder_before_erased": Case(sanitized=True),
    "unseen_dispose_module": Case(program="unseen"),
    "unseen_consume_buffer": Case(program="unseen"),
    "cxx_engine_dispose": Case(**CXX_FREED),
    "cxx_engine_dispose_module": Case(**CXX_FREED),
    "cxx_bitcode_owned": Case(**CXX_FREED),
    # A stale handle of each kind after 10,000 new objects of its kind:
    # reported in every run (the quarantine keeps the address from reuse).
    **{f"reuse_{kind}": Case(repeat=None, sanitized=True,
                             asan=kind not in ("block", "global"))
       for kind in REUSE_KINDS},
    # Quarantine off: a memory buffer takes a freed builder's memory.
    "reuse_other_kind": Case(repeat=5, options="quarantine_size_mb=0"),
    # history_size_mb=1: the record of the stale function was evicted.
    "history_evicted": Case(options="history_size_mb=1", sanitized=True),
}


def check_report(case, proc, stale):
    err = proc.err
    problems = []
    if proc.returncode == 0:
        problems.append("the buggy run exited 0")
    headers = report_headers(err)
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
    ap.add_argument("--list", action="store_true",
                    help="print the cases and their ctest labels")
    ap.add_argument("--list-asan", action="store_true",
                    help="print the cases that also run with lifetime_asan")
    ap.add_argument("--ownsan")
    ap.add_argument("--program", help="lifetime.c built")
    ap.add_argument("--unseen", help="unseen.cpp built")
    ap.add_argument("--cxx-freed", help="cxx_freed.cpp built")
    ap.add_argument("--case", choices=sorted(CASES))
    ap.add_argument("--repeat", type=int,
                    help="buggy runs of every case (default: the case's)")
    ap.add_argument("--reuse-repeat", type=int, default=20,
                    help="buggy runs of the address-reuse cases")
    a = ap.parse_args()
    if a.list:
        list_cases(CASES, {n: ["sanitized"] for n, k in CASES.items()
                           if k.sanitized})
        return 0
    if a.list_asan:
        list_cases([n for n, k in CASES.items() if k.asan])
        return 0
    if not (a.case and a.ownsan and a.program):
        ap.error("--case, --ownsan and --program are required")
    case = CASES[a.case]
    program = {"lifetime": a.program, "unseen": a.unseen,
               "cxx_freed": a.cxx_freed}[case.program]
    if not program:
        ap.error(f"--{case.program.replace('_', '-')} is required for "
                 f"{a.case}")
    repeat = a.repeat or case.repeat or a.reuse_repeat
    c = Checker(f"lifetime.{a.case}")
    plain_env = clean_env(**case.env)
    env = clean_env(OWNSAN_OPTIONS=case.options or None, **case.env)

    plain = run([program, a.case, "--fixed"], plain_env)
    if case.may_skip and plain.returncode == EXIT_SKIP:
        print(f"SKIP: {plain.out.strip()}")
        return EXIT_SKIP
    fixed = run([a.ownsan, "run", "--", program, a.case, "--fixed"], env)
    c.check(fixed.returncode == 0 and "OwnSan" not in fixed.err and
            fixed.out == plain.out,
            f"{a.case} --fixed: exit 0, no report, the stdout of the run "
            f"without ownsan ({'same' if fixed.out == plain.out else 'differs'})",
            fixed)
    for i in range(repeat):
        bug = run([a.ownsan, "run", "--", program, a.case], env)
        stale = re.search(r"lifetime: stale = (0x[0-9a-f]+)", bug.err)
        problems = check_report(a.case, bug, stale.group(1) if stale else None)
        c.check(not problems, f"{a.case} run {i + 1}: the report"
                + "".join(f"\n  * {p}" for p in problems),
                bug.describe(6000) if problems else None)
    if a.case in FIRST_SEEN_IN:
        # The JSON report names the adopting call too (create is null).
        json_env = dict(env, OWNSAN_OPTIONS="report_format=json")
        bug = run([a.ownsan, "run", "--", program, a.case], json_env)
        reps = json_reports(bug.err)
        want = FIRST_SEEN_IN[a.case]
        c.check(len(reps) == 1 and reps[0].get("create") is None and
                reps[0].get("first_seen_in") == want,
                f"{a.case} json: one report with create null and "
                f"first_seen_in {want!r}; got "
                f"{[(r.get('create'), r.get('first_seen_in')) for r in reps]}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
