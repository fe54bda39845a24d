# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/phase_breakdown.py gives each perf sample to the right phase.

The samples are written as `perf script -F comm,period,ip,sym,dso` prints
them, with the frames of a real (c) run: LLVM naming the values the
program builds is the library's work, not ownsan's `name` phase.
"""

import importlib.util
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "phase_breakdown", ROOT / "bench" / "phase_breakdown.py")
phase_breakdown = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(phase_breakdown)

PROGRAM = "ownsan_bench_ir_workload"
LIBLLVM = "/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1"
RUNTIME = "/work/build-bench/lib/libownsan.so"
RUNTIME_DSOS = {phase_breakdown.RUNTIME_DSO, PROGRAM}


def sample(frames, period=1000000):
    """One perf script block: frames are (symbol, dso), leaf first."""
    lines = [f"{PROGRAM[:15]} {period}"]
    for i, (sym, dso) in enumerate(frames):
        lines.append(f"\t    7f00{i:08x} {sym} ({dso})")
    return "\n".join(lines)


def phases(*blocks):
    return phase_breakdown.parse_perf_script(
        "\n\n".join(blocks) + "\n", PROGRAM, RUNTIME_DSOS)


CALLER = [("LLVMBuildAdd", RUNTIME),
          ("build_module", f"/work/build-bench/bench/{PROGRAM}"),
          ("main", f"/work/build-bench/bench/{PROGRAM}")]


class PhaseOf(unittest.TestCase):
    def assertSampleIs(self, frames, phase, period=1000000):
        """One sample of `frames` (leaf first) counts for `phase` alone."""
        self.assertEqual(phases(sample(frames, period)), {phase: (1, period)})

    def test_llvm_naming_a_value_is_the_real_call(self):
        # LLVM's own ValueSymbolTable::createValueName, under the wrapped
        # LLVMBuildAdd: its symbol matches the name phase's pattern, but it
        # is the library's work.
        self.assertSampleIs([
            ("llvm::StringMapImpl::LookupBucketFor", LIBLLVM),
            ("llvm::ValueSymbolTable::createValueName", LIBLLVM),
            ("llvm::Value::setNameImpl", LIBLLVM),
            ("LLVMBuildAdd", LIBLLVM)] + CALLER,
            phase_breakdown.REAL_CALL)

    def test_llvm_destroying_a_name_under_a_hook_is_the_hook(self):
        self.assertSampleIs([
            ("llvm::Value::destroyValueName", LIBLLVM),
            ("llvm::Value::~Value", LIBLLVM),
            ("ownsan::Runtime::TakeIntoQuarantine", RUNTIME),
            ("operator delete", RUNTIME),
            ("LLVMDisposeModule", LIBLLVM)] + CALLER,
            "allocation hooks")

    def test_ownsan_reading_a_name_is_the_name_phase(self):
        self.assertSampleIs([
            ("llvm::Value::getName", LIBLLVM),
            ("LLVMGetValueName2", LIBLLVM),
            ("ownsan::(anonymous namespace)::ValueName[abi:cxx11]", RUNTIME),
            ("ownsan::Runtime::RegisterImpl", RUNTIME)] + CALLER,
            "name")

    def test_page_fault_counts_for_the_runtime_phase_above_it(self):
        self.assertSampleIs([
            ("clear_page_erms", "[kernel.kallsyms]"),
            ("ownsan::OwnershipGraph::Arena::emplace_back", RUNTIME),
            ("ownsan::Runtime::RegisterImpl", RUNTIME)] + CALLER,
            "register")

    def test_loader_is_start_up(self):
        self.assertSampleIs([
            ("_dl_relocate_object", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
            ("_dl_start", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")],
            "start-up and exit")

    def test_wrapper_leaf_is_interposition(self):
        self.assertSampleIs(CALLER, phase_breakdown.INTERPOSITION,
                            period=500)

    def test_runtime_helper_inlined_in_a_wrapper_is_interposition(self):
        # The per-call check's record-cache look-up, inlined into the
        # wrapper: perf names the inlined frame alone, without ownsan::.
        self.assertSampleIs([("CachedLive", RUNTIME)] + CALLER,
                            phase_breakdown.INTERPOSITION)

    def test_program_frames_are_the_program(self):
        self.assertSampleIs([
            ("_int_malloc", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
            ("build_module", f"/work/build-bench/bench/{PROGRAM}"),
            ("main", f"/work/build-bench/bench/{PROGRAM}")],
            phase_breakdown.PROGRAM)

    def test_other_processes_are_left_out(self):
        block = sample(CALLER).replace(PROGRAM[:15], "ownsan", 1)
        self.assertEqual(phases(block), {})


# Symbols of the dynamic loader (the start-up phase), not the runtime's.
LOADER_SYMBOLS = {"_dl_", "dl_main", "_dl_start"}


class PhasePatterns(unittest.TestCase):
    def test_every_name_a_pattern_gives_is_in_the_runtime(self):
        # A function renamed in src/ and not in PHASES stops counting for
        # its phase, silently: its samples go to the wrapper or the program.
        sources = "\n".join(
            p.read_text(errors="replace")
            for p in sorted((ROOT / "src").rglob("*"))
            if p.suffix in (".cpp", ".h", ".inc", ".def", ".in"))
        for phase, pattern in phase_breakdown.PHASES:
            for alternative in pattern.split("|"):
                name = re.sub(r"\\w\+|\\b|\\\(|\.\*", "", alternative)
                if name in LOADER_SYMBOLS:
                    continue
                for ident in re.findall(r"[A-Za-z_]\w*", name):
                    with self.subTest(phase=phase, name=ident):
                        self.assertTrue(ident in sources,
                                        f"{ident}: no such name in src/")


if __name__ == "__main__":
    unittest.main()
