#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Where an object's cost goes under ownsan (issue 22): a per-phase
breakdown of a checked run from `perf record -g` samples.

    bench/phase_breakdown.py --ownsan build-bench/bin/ownsan -- \\
        build-bench/bench/ownsan_bench_ir_workload modules 4000

Runs the program under `ownsan run` (OWNSAN_OPTIONS=verbosity=1, plus
--options) with perf sampling its call stacks at 1 kHz (DWARF unwinding:
Debian's libLLVM, libc and Abseil have no frame pointers), then gives each sample of the program's
process to one phase: the innermost frame on its stack that a phase's
pattern names (PHASES, the one table), so a stack capture inside a
registration counts as stack capture. A sample with no such frame is the
library's own work when a wrapper is on its stack (the real call), the
interposition when the wrapper is the leaf (the wrapper's own code, with
the per-call check inlined into it), and the program's otherwise. Page
faults (kernel frames under any phase) count for that phase: memory the
phase touches for the first time.

Prints one row per phase: share of the samples, and CPU time per object
registered (the work line verbosity=1 prints at exit). The sampling
period is perf's default; run a workload of a few seconds.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Phase name -> pattern over a frame's demangled symbol. Order decides
# only when one frame matches two patterns; the innermost frame decides
# between frames.
PHASES = [
    ("stack capture", r"CaptureStack|CaptureNativeStack|StackCacheSetOf|"
                      r"HashFrames|InCodeRanges|CurrentCallStack"),
    ("stack depot", r"StackDepot::"),
    ("name", r"SnapshotName|ValueName|ShortLabel|PrintedText|TypeText|"
             r"RecordName"),
    ("classify", r"ownsan::.*Classify"),
    # Expiry: memory allocated over a freed address (OnAllocation's walk),
    # or an object handed out at one.
    ("address reuse", r"ShadowMap::DropRange|ShadowMap::TakeOver|"
                      r"ShadowMap::Displaced|ForgetReleased|DropUnseen"),
    ("history", r"EvictHistory|HistoryEntry|HistoryPin"),
    ("descendants", r"OwnershipGraph::Remove\b|OwnershipGraph::Remove\(|"
                    r"ForEachLive|HasUnwatchedChildren|ForEachUnwatchedIn"),
    ("quarantine", r"Quarantine::|Runtime::Hold|OwnsanReleaseDeleted|"
                   r"malloc_trim"),
    ("free", r"FreeWithDescendants|MarkFreed|ValuesDied|ValueDied|"
             r"UnwatchedDied|FlushDeaths|DeferDeaths|ShadowMap::|NoteDeath|"
             r"ForEachRecordIn"),
    ("allocation hooks", r"Runtime::OnAllocation|TakeIntoQuarantine|"
                         r"OwnsanOnAllocation|AddressFilter::MaybeOverlaps|"
                         r"OwnsanNativeReuse"),
    ("register", r"Runtime::Register|RegisterImpl|RegisterSlow|"
                 r"RegisterOpaque|RegisterString|OwnershipGraph::Add|"
                 r"Arena::|CacheRecord|MarkCallerOwned|MarkAttached|"
                 r"MarkOwned|FindOrAdopt|OutArray"),
    ("effects", r"Runtime::Before|Runtime::After|Runtime::After\w+|"
                r"Runtime::Before\w+|CheckFreePrecondition|CheckSecondOwner"),
    ("check (slow path)", r"CheckHandleSlow|CheckKindedHandle|CheckContext|"
                          r"LookupLive|CheckInsertionPoint|RecordClaimStack"),
    ("start-up and exit", r"OwnsanInit|NoteBlindSpotsAtStart|"
                          r"LookForStaticLLVM|OnLibLLVMFound|"
                          r"PrintExitStatistics|ReportLeaks|_dl_|"
                          r"dl_main|_dl_start"),
]
PHASE_RES = [(name, re.compile(p)) for name, p in PHASES]
REAL_CALL = "the library's own work (the real call)"
INTERPOSITION = "interposition (the wrapper, the inlined per-call check)"
PROGRAM = "the program itself"
ORDER = [name for name, _ in PHASES] + [INTERPOSITION, REAL_CALL, PROGRAM]

# A wrapper frame: an API function (LLVM*, mlir*) in ownsan's runtime.
WRAPPER_RE = re.compile(r"^(LLVM|mlir)\w*$")
FRAME_RE = re.compile(r"^\s*[0-9a-f]+ (.*) \((.*)\)$")


LIBRARY_RE = re.compile(r"/lib(LLVM|MLIR)[-.]")
# Frames that do work on someone's behalf: the kernel (page faults), libc
# (malloc), the C++ runtime, Abseil (the runtime's locks and maps).
SERVICE_RE = re.compile(r"\[kernel|/libc\.so|/libstdc\+\+|/libgcc|"
                        r"/libabsl_|\[unknown\]")


# The preloaded runtime.
RUNTIME_DSO = "libownsan.so"
# The dynamic loader: the start-up phase's `_dl_` frames are its.
LOADER_RE = re.compile(r"/ld-linux[-.]")


def phase_of(frames, runtime_dsos):
    """frames: [(symbol, dso)] leaf first."""
    for sym, dso in frames:
        # Only the runtime's own frames (and the loader's) name a phase:
        # libLLVM's `Value::setValueName` is the library naming a value
        # the program built, not ownsan reading a name.
        if (os.path.basename(dso) not in runtime_dsos and
                not LOADER_RE.search(dso)):
            continue
        for name, pattern in PHASE_RES:
            if pattern.search(sym):
                return name
    # The first frame that is not a service's decides. (libLLVM is built
    # without frame pointers: the stack above its frames is often lost, so
    # its own frames say it is the real call.)
    for i, (sym, dso) in enumerate(frames):
        if SERVICE_RE.search(dso):
            continue
        if LIBRARY_RE.search(dso):
            return REAL_CALL
        # Every frame of the preloaded runtime is ownsan's, whatever its
        # name (a helper inlined into a wrapper, as `CachedLive`, is named
        # alone); in the program (link mode) only the wrappers and the
        # runtime's namespace are.
        if os.path.basename(dso) == RUNTIME_DSO or (
                os.path.basename(dso) in runtime_dsos and
                (WRAPPER_RE.match(sym) or "ownsan" in sym)):
            return INTERPOSITION
        return PROGRAM
    return PROGRAM


def parse_perf_script(text, comm_prefix, runtime_dsos, detail=None):
    """Phase -> (samples, period sum), for the samples of `comm_prefix`."""
    counts = {}
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        head = lines[0].split()
        if len(head) < 2 or not head[0].startswith(comm_prefix[:15]):
            continue
        period = int(head[-1]) if head[-1].isdigit() else 1
        frames = []
        for line in lines[1:]:
            m = FRAME_RE.match(line)
            if m:
                frames.append((m.group(1), m.group(2)))
        phase = phase_of(frames, runtime_dsos)
        n, p = counts.get(phase, (0, 0))
        counts[phase] = (n + 1, p + period)
        if detail is not None and frames:
            leaf = detail.setdefault(phase, {})
            leaf[frames[0][0]] = leaf.get(frames[0][0], 0) + 1
    return counts


def objects_registered(stderr):
    m = re.search(r"work: (\d+) checked calls, (\d+) objects registered",
                  stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ownsan", required=True, help="the ownsan CLI")
    ap.add_argument("--options", default="",
                    help="more OWNSAN_OPTIONS (after verbosity=1)")
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--call-graph", default="dwarf",
                    help="perf's unwinder: dwarf (default: Debian's"
                    " libraries have no frame pointers, so with fp a"
                    " sample in malloc or a lock loses its caller) or fp")
    ap.add_argument("--label", default="", help="a name for this run")
    ap.add_argument("--detail", type=int, default=0, metavar="N",
                    help="also print each phase's N most sampled leaf"
                    " functions")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command")
    runtime_dsos = {RUNTIME_DSO, os.path.basename(command[0])}
    with tempfile.TemporaryDirectory(prefix="ownsan-phases-") as tmp:
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ)
        env["OWNSAN_OPTIONS"] = ":".join(
            o for o in ("verbosity=1", args.options) if o)
        run = subprocess.run(
            ["perf", "record", "-q", f"--call-graph={args.call_graph}",
             "-F", "1000", "-o", data, args.ownsan, "run",
             "--"] + command, env=env, capture_output=True, text=True,
            check=False)
        if run.returncode != 0:
            sys.stderr.write(run.stderr[-4000:])
            return 1
        calls, objects = objects_registered(run.stderr)
        script = subprocess.run(
            ["perf", "script", "-i", data, "-F", "comm,period,ip,sym,dso"],
            capture_output=True, text=True, check=True,
            errors="replace").stdout
    comm = os.path.basename(command[0])
    detail = {} if args.detail else None
    counts = parse_perf_script(script, comm, runtime_dsos, detail)
    total_n = sum(n for n, _ in counts.values()) or 1
    total_p = sum(p for _, p in counts.values())
    rows = []
    for phase in ORDER:
        n, p = counts.get(phase, (0, 0))
        ns_per_object = p / objects if objects else 0.0
        rows.append({"phase": phase, "samples": n,
                     "share": n / total_n, "ns_per_object": ns_per_object})
    print(f"{' '.join(command)}: {objects} objects registered, {calls}"
          f" checked calls; {total_n} samples, {total_p / 1e6:.0f} ms CPU")
    print(f"  {'phase':58} {'share':>7} {'ns/object':>10}")
    for r in rows:
        if r["samples"]:
            print(f"  {r['phase']:58} {100 * r['share']:6.1f}%"
                  f" {r['ns_per_object']:10.0f}")
            if detail:
                top = sorted(detail.get(r["phase"], {}).items(),
                             key=lambda kv: -kv[1])[:args.detail]
                for sym, n in top:
                    print(f"      {n:6d}  {sym[:100]}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"label": args.label, "command": command,
                       "objects": objects, "calls": calls,
                       "samples": total_n, "cpu_ns": total_p,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
