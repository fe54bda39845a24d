#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The MLIR-C profile's benchmark (issue 20): an IR-building workload with
and without ownsan (link mode); optionally MLIR's own C API tests too.

    bench/mlir_bench.py --ownsan-build build-mlir19
    bench/mlir_bench.py --ownsan-build build-mlir19 --iterations 300 \\
        --functions 20 --reps 5 --capi-build-dir /tmp/capi --json out.json

Builds bench/mlir_workload.c twice into --work-dir (default: a temporary
directory): natively (the objects, then Debian's libMLIRCAPI*.a in a group,
libMLIR.so, libLLVM) and checked (the objects, then the line `ownsan
link-flags` of the MLIR-C build prints). Checks once that both print the
same line (operations built and left after the passes, hashes of their
names) and that the checked run prints no OwnSan line; runs the checked one
once with OWNSAN_OPTIONS=verbosity=1 for its work line (checked calls,
objects registered); then runs the variants --reps times, interleaved:
native, checked, checked with stacks off (malloc_context_size=0) and the
interposition alone (forward_only=1). Prints the median wall time, the
median CPU time (user + sys), their ratios to native and the peak RSS
(getrusage of the child) of each, and the load average before and after.

--capi-build-dir DIR: the programs tests/mlir/capi/run_capi_tests.py left in
DIR/native/<test>/ and DIR/checked/<test>/ (run it once with --build-dir
DIR and --link-flags "$(BUILD/bin/ownsan link-flags)"): each pair is run
--reps times too, interleaved, output compared, and the sums of the medians
are printed.
"""
import argparse
import json
import os
import pathlib
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OWNSAN_LINE = re.compile(r"OwnSan", re.IGNORECASE)
WORK_LINE = re.compile(r"==OwnSan: work: (\d+) checked calls, (\d+) objects "
                       r"registered")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "?"


def sh(cmd):
    text = shlex.join(str(c) for c in cmd)
    log("+ " + (text if len(text) < 300 else text[:300] + " ..."))
    subprocess.run([str(c) for c in cmd], check=True)


def native_libs(llvm):
    lib = pathlib.Path(f"/usr/lib/llvm-{llvm}/lib")
    archives = sorted(str(p) for p in lib.glob("libMLIRCAPI*.a"))
    if not archives:
        sys.exit(f"no libMLIRCAPI*.a in {lib} (libmlir-{llvm}-dev)")
    return (["-Wl,--start-group", *archives, "-Wl,--end-group",
             str(lib / "libMLIR.so"), f"-L{lib}", "-lLLVM",
             f"-Wl,-rpath,{lib}", "-lstdc++", "-lm"])


def build(args, work):
    """The native and the checked workload: (native exe, checked exe)."""
    ownsan = args.ownsan_build / "bin" / "ownsan"
    flags = subprocess.run([str(ownsan), "link-flags"], check=True,
                           capture_output=True, text=True).stdout.strip()
    obj = work / "mlir_workload.o"
    sh([args.cc, "-std=c11", "-O2", "-g", "-fno-omit-frame-pointer",
        "-mno-omit-leaf-frame-pointer", "-fno-optimize-sibling-calls",
        "-Wall", "-Wextra", f"-I/usr/lib/llvm-{args.llvm}/include", "-c",
        ROOT / "bench" / "mlir_workload.c", "-o", obj])
    native, checked = work / "mlir_workload.native", work / "mlir_workload.checked"
    sh([args.cxx, obj, *native_libs(args.llvm), "-o", native])
    sh([args.cxx, obj, *shlex.split(flags), "-lm", "-o", checked])
    return native, checked


def run(cmd, options=None, capture=False):
    """(wall s, CPU s, peak RSS KiB, rc, stdout, stderr) of one run."""
    env = dict(os.environ)
    env.pop("OWNSAN_OPTIONS", None)
    if options:
        env["OWNSAN_OPTIONS"] = options
    out = tempfile.TemporaryFile() if capture else subprocess.DEVNULL
    err = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    p = subprocess.Popen([str(c) for c in cmd], stdin=subprocess.DEVNULL,
                         stdout=out, stderr=err, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    texts = []
    for f in (out, err):
        if f is subprocess.DEVNULL:
            texts.append("")
        else:
            f.seek(0)
            texts.append(f.read().decode(errors="replace"))
            f.close()
    return (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss,
            os.waitstatus_to_exitcode(status), texts[0], texts[1])


def compare(name, variants, reps):
    """variants: [(label, cmd, OWNSAN_OPTIONS)], the first the baseline.
    Repetitions interleaved; medians and ratios to the baseline."""
    walls = {label: [] for label, _, _ in variants}
    cpus = {label: [] for label, _, _ in variants}
    rss = {label: [] for label, _, _ in variants}
    for rep in range(reps):
        for label, cmd, options in variants:
            wall, cpu, maxrss, rc, _, err = run(cmd, options)
            if rc != 0 or "ERROR: OwnSan" in err:
                log(err[-3000:])
                sys.exit(f"{name}/{label}: exit {rc}")
            walls[label].append(wall)
            cpus[label].append(cpu)
            rss[label].append(maxrss)
        log(f"  {name} rep {rep + 1}/{reps} (load {loadavg()}): " + ", ".join(
            f"{label} {walls[label][-1]:.3f}s" for label in walls))
    base = variants[0][0]
    out = {}
    for label in walls:
        out[label] = {
            "wall_s": statistics.median(walls[label]),
            "cpu_s": statistics.median(cpus[label]),
            "maxrss_kb": statistics.median(rss[label]),
            "wall_runs_s": walls[label], "cpu_runs_s": cpus[label]}
    for label in walls:
        out[label]["wall_ratio"] = out[label]["wall_s"] / out[base]["wall_s"]
        out[label]["cpu_ratio"] = out[label]["cpu_s"] / out[base]["cpu_s"]
    return out


def workload(args, native, checked):
    cmd_args = [args.iterations, args.functions]
    _, _, _, rc_n, out_n, err_n = run([native, *cmd_args], capture=True)
    _, _, _, rc_c, out_c, err_c = run([checked, *cmd_args], capture=True)
    if rc_n != 0 or rc_c != 0:
        log(err_n[-2000:] + err_c[-2000:])
        sys.exit(f"workload: exit {rc_n} native, {rc_c} checked")
    if out_n != out_c:
        sys.exit(f"workload: outputs differ:\n  native:  {out_n}"
                 f"  checked: {out_c}")
    bad = [ln for ln in err_c.splitlines() if OWNSAN_LINE.search(ln)]
    if bad:
        sys.exit("workload: the checked run printed OwnSan lines:\n"
                 + "\n".join(bad[:10]))
    _, _, _, _, _, err_v = run([checked, *cmd_args], "verbosity=1")
    m = WORK_LINE.search(err_v)
    work = {"calls": int(m[1]), "objects": int(m[2])} if m else None
    log(f"workload: {out_n.strip()}; work: {work}")
    table = compare("workload", [
        ("native", [native, *cmd_args], None),
        ("checked", [checked, *cmd_args], None),
        ("checked, stacks off", [checked, *cmd_args],
         "malloc_context_size=0"),
        ("interposition only", [checked, *cmd_args], "forward_only=1"),
    ], args.reps)
    return {"output": out_n.strip(), "work": work, "runs": table,
            "stats_lines": [ln for ln in err_v.splitlines()
                            if "==OwnSan:" in ln]}


def capi(args):
    """Sums of the medians of MLIR's CAPI test programs, native and
    checked, each pair run --reps times interleaved."""
    base = args.capi_build_dir
    rows = {}
    for tdir in sorted((base / "native").iterdir()):
        cdir = base / "checked" / tdir.name
        exes = [p for p in tdir.iterdir() if p.name.startswith("mlir-capi-")
                and p.is_file() and os.access(p, os.X_OK)]
        if len(exes) != 1 or not (cdir / exes[0].name).exists():
            log(f"capi: {tdir.name}: no native and checked program; skipped")
            continue
        native, checked = exes[0], cdir / exes[0].name
        _, _, _, rc_n, out_n, err_n = run([native], capture=True)
        _, _, _, rc_c, out_c, err_c = run([checked], capture=True)
        if rc_n != 0 or rc_c != 0:
            log(f"capi: {tdir.name}: exit {rc_n} native, {rc_c} checked; "
                f"skipped")
            continue
        if out_n != out_c or [ln for ln in err_c.splitlines()
                              if OWNSAN_LINE.search(ln)]:
            # (Some print pointers or run a JIT: stdout may differ.)
            log(f"capi: {tdir.name}: outputs differ or OwnSan lines "
                f"(compared by FileCheck in run_capi_tests.py)")
        rows[tdir.name] = compare(f"capi {tdir.name}", [
            ("native", [native], None), ("checked", [checked], None)],
            args.reps)
    total = {}
    for label in ("native", "checked"):
        total[label] = {k: sum(r[label][k] for r in rows.values())
                        for k in ("wall_s", "cpu_s")}
        total[label]["maxrss_kb"] = max(
            (r[label]["maxrss_kb"] for r in rows.values()), default=0)
    return {"tests": rows, "total": total}


def print_runs(title, runs):
    print(f"\n{title}")
    print(f"  {'variant':<22} {'wall s':>8} {'ratio':>6} {'CPU s':>8} "
          f"{'ratio':>6} {'peak RSS MiB':>13}")
    for label, r in runs.items():
        print(f"  {label:<22} {r['wall_s']:8.3f} {r['wall_ratio']:5.2f}x "
              f"{r['cpu_s']:8.3f} {r['cpu_ratio']:5.2f}x "
              f"{r['maxrss_kb'] / 1024:13.1f}")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--ownsan-build", type=pathlib.Path,
                    default=ROOT / "build-mlir19",
                    help="the MLIR-C build of ownsan (-DOWNSAN_PROFILE="
                         "mlir_c): its bin/ownsan prints the link line")
    ap.add_argument("--llvm", type=int, default=19)
    ap.add_argument("--iterations", type=int, default=300,
                    help="modules built (N)")
    ap.add_argument("--functions", type=int, default=20,
                    help="functions per module (F)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--work-dir", type=pathlib.Path,
                    help="where the two programs go (default: temporary)")
    ap.add_argument("--no-build", action="store_true",
                    help="reuse the programs in --work-dir")
    ap.add_argument("--capi-build-dir", type=pathlib.Path,
                    help="also time the CAPI test programs built there by "
                         "tests/mlir/capi/run_capi_tests.py --build-dir")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    tmp = None
    if args.work_dir:
        work = args.work_dir
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="ownsan-mlir-bench-")
        work = pathlib.Path(tmp.name)
    if args.no_build:
        native = work / "mlir_workload.native"
        checked = work / "mlir_workload.checked"
    else:
        native, checked = build(args, work)

    r = {"machine": {"nproc": os.cpu_count(), "cpu": cpu_model(),
                     "kernel": os.uname().release},
         "llvm": args.llvm, "reps": args.reps,
         "iterations": args.iterations, "functions": args.functions,
         "load_before": loadavg()}
    t0 = time.time()
    r["workload"] = workload(args, native, checked)
    if args.capi_build_dir:
        r["capi"] = capi(args)
    r["load_after"] = loadavg()
    r["elapsed_s"] = round(time.time() - t0, 1)

    print(f"machine: {r['machine']['nproc']} CPUs, {r['machine']['cpu']}; "
          f"load average {r['load_before']} before, {r['load_after']} after; "
          f"{r['elapsed_s']} s")
    w = r["workload"]
    print(f"workload: mlir_workload {args.iterations} {args.functions}: "
          f"{w['output']}")
    if w["work"]:
        print(f"checked: {w['work']['calls']} checked calls, "
              f"{w['work']['objects']} objects registered")
    print_runs(f"medians of {args.reps} interleaved runs", w["runs"])
    if "capi" in r:
        print(f"\nMLIR CAPI test programs ({len(r['capi']['tests'])}), "
              f"medians of {args.reps} interleaved runs")
        for name, runs in r["capi"]["tests"].items():
            n, c = runs["native"], runs["checked"]
            print(f"  {name:<22} native {n['wall_s']:.3f} s, checked "
                  f"{c['wall_s']:.3f} s ({c['wall_ratio']:.2f}x; CPU "
                  f"{n['cpu_s']:.3f} / {c['cpu_s']:.3f} s, "
                  f"{c['cpu_ratio']:.2f}x); RSS {n['maxrss_kb'] / 1024:.1f}"
                  f" / {c['maxrss_kb'] / 1024:.1f} MiB")
        t = r["capi"]["total"]
        print(f"  {'sum':<22} native {t['native']['wall_s']:.3f} s, checked "
              f"{t['checked']['wall_s']:.3f} s "
              f"({t['checked']['wall_s'] / t['native']['wall_s']:.2f}x; CPU "
              f"{t['native']['cpu_s']:.3f} / {t['checked']['cpu_s']:.3f} s, "
              f"{t['checked']['cpu_s'] / t['native']['cpu_s']:.2f}x)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(r, indent=1))
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
