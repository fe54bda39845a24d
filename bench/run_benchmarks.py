#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Builds and runs ownsan's performance benchmarks (issue 6); prints ratios.

    bench/run_benchmarks.py            # from the top of a checkout
    bench/run_benchmarks.py --llvm 19 --reps 7 --json results.json

Builds the runtime and the benchmarks in build dirs of their own
(build-bench/ for the newest installed LLVM or --llvm N, build-bench-llvm14/
for the llvmlite run), then measures, each run of a command under `ownsan run`
against the same command without it, in the same invocation, repetitions
interleaved, medians compared:

  micro   bench/call_overhead.cpp (Google Benchmark): per-call cost direct
          vs wrapped with 0/1k/1M live and 0/1M freed objects, 1 and 2
          threads; create/dispose event costs with stacks on and off
  (a)     llvm-c-test --echo on a generated module of >= 100,000
          instructions, default options and malloc_context_size=0, and
          forward_only=1 (the interposition alone: every wrapper and the
          allocation hooks forwarding unchecked, the floor of the design),
          `ownsan run --glibc-heap` (glibc's heap in huge pages, the
          default before the allocator), and the plain program with the
          heap ownsan run gives it
  (b)     /usr/bin/python3 -m llvmlite.tests (LLVM 14 runtime)
  (c)     bench/ir_workload.c: build, verify, dispose many modules (also
          forward_only=1, --glibc-heap and the plain program on ownsan
          run's heap, and
          the plain program with a quarantine alone preloaded,
          bench/quarantine_preload.c: what holding freed memory costs)
  memory  peak RSS with N live tracked objects, with and without ownsan
  depot   stored stacks after a million events from 200 call sites
  depth   (issue 22) the churn loop at stack depth 10 and 10,000
          (ir_workload depth D N): time per object, plain and ownsan
  jit     (issue 22) workload (d), bench/jit_server.c: a JIT server's
          loop (build a module of 4 functions, compile, call, dispose),
          LLJIT and MCJIT, 1 and 4 threads, plain and ownsan (MCJIT also
          with the quarantine alone and with the interposition: its
          floor); LLJIT on 4 threads in its steady state (timed after
          a warm-up that fills the quarantine: --jit-steady); and the
          ownsan peak RSS of the MCJIT loop at N and 10 N iterations
  startup (issue 22) bench/one_call.c, 100 x reps runs of each way,
          one run of each in turn: plain, LD_PRELOAD=libownsan.so,
          `ownsan run`, `/usr/bin/env` (one exec more: `ownsan run`'s
          floor) and LD_PRELOAD of a library that does nothing
          (bench/empty_preload.c: the preload's floor); medians: the
          time each way adds to one process
  asan    (issue 22, no target) (a), (c) and (d) also run under
          AddressSanitizer's runtime, preloaded into the same binaries
          (the bar issue 22 names): its default options, and its
          quarantine set to ownsan's quarantine_size_mb default
  longrun (issue 17) a long-running process, default options:
          churn   10M and 50M objects created and freed in one process
                  (ir_workload churn N): peak RSS, plain and ownsan
          threads 100,000 short threads, each creating and freeing one
                  object (ir_workload threads N): resident set added
          soak    the churn loop for 10 minutes under ownsan, resident
                  set sampled every second (ir_workload soak SECONDS)

Needs: cmake, ninja, clang, Debian's libbenchmark-dev, llvm-N-dev and
llvm-N-tools (llvm-c-test), python3-llvmlite with LLVM 14.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = "/usr/bin/python3"

# Targets of issue 6.
TARGET_CALL_NS = 10.0
TARGET_ECHO = 1.3
TARGET_ECHO_NOSTACK = 1.1
TARGET_LLVMLITE = 1.15
TARGET_BYTES_PER_OBJECT = 100.0
# Targets of issue 17.
TARGET_CHURN_EXTRA_MB = 128.0   # ownsan peak RSS within plain + this
TARGET_CHURN_FLAT = 1.10        # 50M objects / 10M objects, ownsan peak RSS
TARGET_THREADS_MB = 8.0         # added by 100,000 short threads
TARGET_SOAK_FLAT = 1.10         # max / min resident set after the 1st minute
# Targets of issue 22.
TARGET_DEPTH_RATIO = 2.0        # ownsan's object cost, depth 10,000 / 10
DEPTHS = (10, 10000)
TARGET_STARTUP_MS = 2.0         # added to a program making one LLVM-C call
# Issue 22's ratios (the same command without ownsan, same run).
TARGET22_IR = 2.0               # (c), default options
TARGET22_IR_NOSTACK = 1.6       # (c), malloc_context_size=0
TARGET22_ECHO = 1.5             # (a), default options
TARGET22_ECHO_NOSTACK = 1.3     # (a), malloc_context_size=0
TARGET22_JIT = 1.1              # (d), throughput, each engine and threads
TARGET22_JIT_FLAT = 1.10        # (d), ownsan peak RSS, large N / small N
ASAN = "AddressSanitizer"        # reference variants' labels (no target)
ASAN_OWN_Q = "AddressSanitizer, ownsan's quarantine size"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    log("+ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


# --------------------------------------------------------------------------
# Machine and build
# --------------------------------------------------------------------------

def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return {"nproc": os.cpu_count(), "cpu": cpu,
            "mem_gib": round(mem_kb / 1024 / 1024, 1),
            "kernel": os.uname().release}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def newest_llvm():
    for v in range(30, 13, -1):
        if pathlib.Path(f"/usr/lib/llvm-{v}/lib/cmake/llvm/LLVMConfig.cmake").exists():
            return v
    sys.exit("no LLVM found under /usr/lib/llvm-N")


def cmake_cache_value(build_dir, name):
    """`name`'s value in build_dir's CMakeCache.txt (None if not set)."""
    try:
        text = (pathlib.Path(build_dir) / "CMakeCache.txt").read_text()
    except OSError:
        return None
    m = re.search(rf"^{name}:\w+=(.*)$", text, re.M)
    return m[1] if m else None


def build(build_dir, llvm, targets, bench, pgo):
    # The runtime as packaged (README): optimized with its benchmarks'
    # profile (cmake/pgo.cmake) and linked with ThinLTO (cmake/lto.cmake,
    # the profile's default) unless --no-pgo.
    args = ["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
            f"-DLLVM_DIR=/usr/lib/llvm-{llvm}/lib/cmake/llvm",
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            f"-DOWNSAN_BUILD_BENCH={'ON' if bench else 'OFF'}",
            f"-DOWNSAN_PGO={'ON' if pgo else 'OFF'}",
            f"-DOWNSAN_LTO={'ON' if pgo else 'OFF'}"]
    sh(args, stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", build_dir, "--target"] + targets,
       stdout=subprocess.DEVNULL)


# --------------------------------------------------------------------------
# Timed runs
# --------------------------------------------------------------------------

def asan_runtime(llvm):
    """AddressSanitizer's shared runtime of clang-LLVM (libclang-rt-N-dev),
    or None."""
    clang = shutil.which(f"clang-{llvm}") or shutil.which("clang")
    if not clang:
        return None
    out = subprocess.run([clang, "-print-file-name=libclang_rt.asan-x86_64.so"],
                         capture_output=True, text=True).stdout.strip()
    return out if os.path.isabs(out) and os.path.exists(out) else None


def ownsan_default(flag):
    """A flag's default, read from the options table (src/runtime/flags.inc)."""
    text = (ROOT / "src" / "runtime" / "flags.inc").read_text()
    m = re.search(r"OWNSAN_INT_FLAG\(\s*" + flag + r",\s*(\d+)", text)
    if not m:
        sys.exit(f"flags.inc: no integer flag {flag}")
    return int(m[1])


def asan_variants(asan, cmd, stdin=None):
    """The reference variants of a workload: AddressSanitizer's runtime
    preloaded into the same (uninstrumented) binary, which then tracks every
    heap block libLLVM allocates with its stacks and a quarantine; with its
    own defaults (a 256 MB quarantine), and with ownsan's quarantine size."""
    if not asan:
        return []
    base = "detect_leaks=0:verify_asan_link_order=0"
    env = {"LD_PRELOAD": asan, "ASAN_OPTIONS": base}
    q = ownsan_default("quarantine_size_mb")
    env_q = {"LD_PRELOAD": asan,
             "ASAN_OPTIONS": f"{base}:quarantine_size_mb={q}"}
    return [(ASAN, cmd, env, stdin), (ASAN_OWN_Q, cmd, env_q, stdin)]


# The default options on glibc's heap in huge pages (`ownsan run
# --glibc-heap`, the default before `ownsan run` preloaded an allocator):
# what the allocator gains; and the program without ownsan given the heap
# `ownsan run` gives, to tell what ownsan's quarantine gains from that
# heap from what the program alone would (the verdicts take the larger of
# the two ratios).
GLIBC_HEAP = "ownsan, glibc's heap (--glibc-heap)"
# (c)'s quarantine with nothing else (bench/quarantine_preload.c, ownsan's
# default size, the heap ownsan run gives): the blocks a module's
# dispose frees, the nearest a tool without handles gets to ownsan's choice;
# and every freed block, as AddressSanitizer holds them.
QUARANTINE_ALONE = "quarantine alone, blocks a dispose frees"
QUARANTINE_ALONE_ALL = "quarantine alone, every block"
# Both floors at once: the quarantine preloaded before ownsan's runtime
# with forward_only=1 (docs/performance.md: the floor of (c)).
INTERPOSITION_AND_QUARANTINE = "interposition and quarantine alone"
# The least tracker (bench/least_tracker_preload.c): a table of live handles,
# a check of every handle argument, a registration of every handle returned,
# the deaths of a dispose's children into a shadow bitmap, and nothing else
# (one thread, (c)'s calls only); alone, with that quarantine after it, and
# with both and a frame-pointer stack of every registration and dispose
# (ownsan's malloc_context_size frames at most): what (c)'s work costs done
# plainly, a reference for the two (c) targets, not a floor.
LEAST_TRACKER = "least tracker alone"
LEAST_TRACKER_AND_QUARANTINE = "least tracker and quarantine"
LEAST_TRACKER_QUARANTINE_STACKS = "least tracker, quarantine and stacks"
# ... and the rest of what ownsan does for each object (LEAST_TRACKER_ADD: a
# lock, a 64-byte record, the kind and parent asked of libLLVM, the name,
# expiry in operator new, deaths seen in operator delete).
LEAST_TRACKER_OWNSAN_WORK = "least tracker with ownsan's per-object work"
LEAST_TRACKER_ADD_ALL = "lock,record,classify,name,alloc,free"
# ownsan without its quarantine (quarantine_size_mb=0): what holding freed
# memory back costs a JIT server in its steady state, beside the rest.
QUARANTINE_OFF = "ownsan, quarantine off"


def floor_envs(bdir):
    """The environments of (c)'s floor and reference variants, each with
    the heap `ownsan run` gives (RUN_HEAP_ENV): the least tracker's four, the quarantine alone
    (blocks a dispose frees; every block), and with the interposition (the
    preload's operator delete first: ownsan's wrappers forward, its own
    quarantine is off). bench/floor_rounds.py runs them too."""
    qpreload = bdir / "bench" / "libownsan_bench_quarantine_preload.so"
    tracker = bdir / "bench" / "libownsan_bench_least_tracker_preload.so"
    runtime = bdir / "lib" / "libownsan.so"
    frames = str(ownsan_default("malloc_context_size"))
    return {
        LEAST_TRACKER: on_run_heap(LD_PRELOAD=str(tracker)),
        LEAST_TRACKER_AND_QUARANTINE: on_run_heap(
            LD_PRELOAD=f"{tracker}:{qpreload}"),
        LEAST_TRACKER_QUARANTINE_STACKS: on_run_heap(
            LD_PRELOAD=f"{tracker}:{qpreload}",
            LEAST_TRACKER_STACK_FRAMES=frames),
        LEAST_TRACKER_OWNSAN_WORK: on_run_heap(
            LD_PRELOAD=f"{tracker}:{qpreload}",
            LEAST_TRACKER_STACK_FRAMES=frames,
            LEAST_TRACKER_ADD=LEAST_TRACKER_ADD_ALL),
        QUARANTINE_ALONE: on_run_heap(LD_PRELOAD=str(qpreload)),
        QUARANTINE_ALONE_ALL: on_run_heap(LD_PRELOAD=str(qpreload),
                                          OWNSAN_BENCH_QUARANTINE_SCOPE="all"),
        INTERPOSITION_AND_QUARANTINE: on_run_heap(
            LD_PRELOAD=f"{qpreload}:{runtime}",
            OWNSAN_OPTIONS="forward_only=1"),
    }


# (d)'s MCJIT loop: the same quarantine, holding the blocks of up to 512
# bytes an execution engine's dispose frees (the engine frees its module's
# values there, with its own larger structures, which ownsan does not hold):
# 364k blocks, 51 MB over 2,000 iterations, against ownsan's 324k chunks,
# 57 MB (verbosity=1).
JIT_QUARANTINE_MAX_BLOCK = "512"


def jit_floor_envs(bdir, threads):
    """(d)'s MCJIT floor variants: floor_envs' quarantine alone and with the
    interposition, holding only blocks of up to JIT_QUARANTINE_MAX_BLOCK
    (its queue under a lock when there are threads)."""
    envs = floor_envs(bdir)
    extra = {"OWNSAN_BENCH_QUARANTINE_MAX_BLOCK": JIT_QUARANTINE_MAX_BLOCK}
    if threads > 1:
        extra["OWNSAN_BENCH_QUARANTINE_LOCKED"] = "1"
    return {label: dict(envs[label], **extra)
            for label in (QUARANTINE_ALONE, INTERPOSITION_AND_QUARANTINE)}


# The heap `ownsan run` gives the program: the size-class allocator it
# preloads after the runtime (mimalloc, where the build found one), else
# glibc's heap in huge pages. RUN_HEAP_ENV gives a program without ownsan
# (or with a floor's preload) the same heap; set by use_run_heap().
PLAIN_RUN_HEAP = "plain, ownsan run's heap"
HUGE_HEAP_ENV = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
RUN_HEAP_ENV = dict(HUGE_HEAP_ENV)
RUN_HEAP_NAME = "glibc's heap in huge pages"


def run_heap_allocator(ownsan):
    """The allocator `ownsan run` preloads (its path), or None: asked of
    the tool itself (`ownsan run -- env`), the one place that decides."""
    out = subprocess.run([str(ownsan), "run", "--", "/usr/bin/env"],
                         capture_output=True, text=True,
                         env=dict(os.environ, LD_PRELOAD="")).stdout
    m = re.search(r"^OWNSAN_RUN_HEAP_ALLOCATOR=(.+)$", out, re.M)
    return m.group(1) if m else None


def use_run_heap(ownsan):
    """Sets RUN_HEAP_ENV and RUN_HEAP_NAME from what `ownsan run` does."""
    global RUN_HEAP_ENV, RUN_HEAP_NAME
    allocator = run_heap_allocator(ownsan)
    if allocator:
        RUN_HEAP_ENV = {"LD_PRELOAD": allocator}
        RUN_HEAP_NAME = os.path.basename(allocator)


def on_run_heap(**env):
    """`env` (a floor's LD_PRELOAD, options) on the heap `ownsan run`
    gives: its allocator preloaded after env's own preloads."""
    out = dict(RUN_HEAP_ENV, **env)
    if "LD_PRELOAD" in env and "LD_PRELOAD" in RUN_HEAP_ENV:
        out["LD_PRELOAD"] = f"{env['LD_PRELOAD']}:{RUN_HEAP_ENV['LD_PRELOAD']}"
    return out


def run_timed(cmd, env=None, stdin_path=None, stdout_path=None):
    """Runs cmd; returns (wall seconds, CPU seconds (user + sys, with the
    children it waited for), peak RSS KiB, rc, stderr text, minor page
    faults). `ownsan run` execs the command, so the pid is the same."""
    full_env = dict(os.environ)
    full_env.pop("OWNSAN_OPTIONS", None)
    if env:
        full_env.update(env)
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([str(c) for c in cmd], stdin=stdin,
                             stdout=stdout, stderr=err, env=full_env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    for f in (stdin, stdout):
        if f is not subprocess.DEVNULL:
            f.close()
    return (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, text,
            ru.ru_minflt)


def compare(name, variants, reps, check=None, timer=None):
    """variants: list of (label, cmd, env, stdin). The first is the
    baseline. Repetitions are interleaved; returns medians and ratios.
    timer(stdout) -> (wall s, CPU s): the times the program measured of
    itself (a part of its run), in place of the process's."""
    times = {label: [] for label, *_ in variants}
    cpus = {label: [] for label, *_ in variants}
    rss = {label: [] for label, *_ in variants}
    faults = {label: [] for label, *_ in variants}
    for rep in range(reps):
        for label, cmd, env, stdin in variants:
            if timer:
                with tempfile.NamedTemporaryFile() as out:
                    wall, cpu, maxrss, rc, err, minflt = run_timed(
                        cmd, env, stdin, out.name)
                    if rc == 0:
                        wall, cpu = timer(pathlib.Path(out.name).read_text())
            else:
                wall, cpu, maxrss, rc, err, minflt = run_timed(cmd, env, stdin)
            if rc != 0 or "ERROR: OwnSan" in err:
                log(err[-3000:])
                sys.exit(f"{name}/{label}: exit {rc}")
            if check:
                check(label, err)
            times[label].append(wall)
            cpus[label].append(cpu)
            rss[label].append(maxrss)
            faults[label].append(minflt)
        log(f"  {name} rep {rep + 1}/{reps}: " + ", ".join(
            f"{label} {times[label][-1]:.3f}s" for label in times))
    base = statistics.median(times[variants[0][0]])
    base_cpu = statistics.median(cpus[variants[0][0]])
    out = {}
    for label in times:
        med = statistics.median(times[label])
        med_cpu = statistics.median(cpus[label])
        out[label] = {"median_s": med, "ratio": med / base,
                      "runs_s": times[label],
                      "cpu_median_s": med_cpu, "cpu_ratio": med_cpu / base_cpu,
                      "cpu_runs_s": cpus[label],
                      "maxrss_kb": statistics.median(rss[label]),
                      "minor_faults": statistics.median(faults[label])}
    return out


# --------------------------------------------------------------------------
# (a) llvm-c-test --echo on a generated module
# --------------------------------------------------------------------------

def echo_source(nfuncs):
    """C in the subset --echo clones at -O0: long arithmetic, loops,
    branches, phis of ?:, loads/stores, globals, calls. No switch, no sign
    extension (comparisons only feed branches), no floating point."""
    out = ["long table[64];",
           "long f0(long a, long b, long *p) { return a + b + p[0]; }"]
    for k in range(1, nfuncs):
        out.append(f"""long f{k}(long a, long b, long *p) {{
  long s = a ^ {k % 13 + 1};
  for (long i = 0; i < (b & 15); ++i) {{
    if ((s & 3) == {k % 4})
      s += p[i & 63] * {k % 7 + 2};
    else
      s -= (a >> {k % 5 + 1}) | i;
    s = s < 0 ? -s : s;
  }}
  while (s > {1000 + k}) s /= {k % 29 + 3};
  table[{k % 64}] = s;
  return s + f{k - 1}(s & 255, a & 7, p);
}}""")
    out.append(f"long run(long x) {{ return f{nfuncs - 1}(x, 9, table); }}")
    return "\n".join(out) + "\n"


def count_instructions(llvm_dis, bc):
    ll = subprocess.run([llvm_dis, bc, "-o", "-"], check=True,
                        capture_output=True, text=True).stdout
    # Instructions are the indented lines of function bodies.
    return sum(1 for line in ll.splitlines()
               if line.startswith("  ") and not line.lstrip().startswith(";"))


# --------------------------------------------------------------------------
# Microbenchmarks
# --------------------------------------------------------------------------

def run_micro(exe, ownsan, tmp, reps, min_time, processes=1):
    """Each run's per-benchmark medians; the per-call run ("calls") is made
    `processes` times, each process's rows kept in "calls_runs" (on a VM a
    cell's cost changes from process to process with the same code: the
    table takes each cell's median over the processes, micro_tables)."""
    common = [f"--benchmark_repetitions={reps}",
              "--benchmark_report_aggregates_only=true",
              f"--benchmark_min_time={min_time}"]
    runs = {
        # name: (under ownsan, OWNSAN_OPTIONS, filter)
        "plain": (False, None, "."),
        "calls": (True, "quarantine_size_mb=1024:verbosity=1",
                  "^(warmup|call/|handoff/)"),
        "events": (True, None, "^event/"),
        "events_nostack": (True, "malloc_context_size=0", "^event/"),
    }
    results = {}
    for name, (under, opts, flt) in runs.items():
        out = tmp / f"micro_{name}.json"
        cmd = ([ownsan, "run", "--"] if under else []) + [
            exe, f"--benchmark_filter={flt}", f"--benchmark_out={out}",
            "--benchmark_out_format=json"] + common
        env = {"OWNSAN_OPTIONS": opts} if opts else None
        each = []
        for k in range(processes if name == "calls" else 1):
            log(f"micro: {name}" + (f" (process {k + 1})" if k else ""))
            wall, cpu, maxrss, rc, err, _ = run_timed(cmd, env)
            if rc != 0:
                log(err[-3000:])
                sys.exit(f"micro {name}: exit {rc}")
            data = json.loads(out.read_text())
            rows = {}
            for b in data["benchmarks"]:
                if b.get("aggregate_name") not in (None, "median"):
                    continue
                key = re.sub(r"/min_time:[0-9.]+", "", b["run_name"])
                rows[key] = b["cpu_time"] if b["time_unit"] == "ns" else None
            each.append(rows)
        results[name] = {key: statistics.median(rows[key] for rows in each)
                         for key in each[0]}
        if name == "calls":
            results["calls_runs"] = each
        results[name + "_context"] = data.get("context", {})
        stats = re.search(r"OwnSan: quarantine: .*", err)
        if stats:
            results[name + "_exit_stats"] = stats.group(0)
    return results


def median_overhead(micro, key):
    """A call cell's overhead (wrapped - direct, both from one process):
    the median over the processes of the per-call run, the least and the
    most of them, and how many processes there were."""
    direct_key = key.replace("/wrapped/", "/direct/")
    runs = micro.get("calls_runs") or [micro["calls"]]
    each = [rows[key] - rows[direct_key] for rows in runs]
    return statistics.median(each), min(each), max(each), len(each)


def micro_tables(micro):
    plain, calls = micro["plain"], micro["calls"]
    call_rows = []
    for key, wrapped in calls.items():
        m = re.match(r"call/(\w+)/wrapped/live:(\d+)/freed:(\d+)/"
                     r"probes:(\d+)/threads:(\d+)", key)
        if not m:
            continue
        fn, live, freed, probes, threads = m.groups()
        direct = calls.get(key.replace("/wrapped/", "/direct/"))
        base = plain.get(key.replace("/wrapped/", "/direct/"))
        overhead, least, most, processes = median_overhead(micro, key)
        call_rows.append({"fn": fn, "live": int(live), "freed": int(freed),
                          "probes": int(probes), "threads": int(threads),
                          "plain_ns": base,
                          "direct_ns": direct, "wrapped_ns": wrapped,
                          "overhead_ns": overhead,
                          "overhead_spread_ns": [least, most],
                          "processes": processes})
    call_rows.sort(key=lambda r: (-r["probes"], r["fn"], r["threads"],
                                  r["freed"], r["live"]))
    handoff_rows = []
    for key, wrapped in calls.items():
        m = re.match(r"handoff/(\w+)/wrapped/", key)
        if m:
            direct = calls.get(key.replace("/wrapped/", "/direct/"))
            handoff_rows.append({"fn": m.group(1), "direct_ns": direct,
                                 "wrapped_ns": wrapped,
                                 "overhead_ns": wrapped - direct})
    event_rows = []
    for what in ("builder", "add", "module"):
        key_d, key_w = f"event/{what}/direct", f"event/{what}/wrapped"
        event_rows.append({
            "event": what,
            "plain_ns": plain.get(key_d),
            "direct_ns": micro["events"].get(key_d),
            "wrapped_ns": micro["events"].get(key_w),
            "direct_nostack_ns": micro["events_nostack"].get(key_d),
            "wrapped_nostack_ns": micro["events_nostack"].get(key_w)})
    return call_rows, handoff_rows, event_rows


# --------------------------------------------------------------------------
# Memory and depot
# --------------------------------------------------------------------------

def rss_of_line(text, key="maxrss_kb"):
    m = re.search(key + r"=(\d+)", text)
    return int(m.group(1)) if m else None


def run_memory(workload, ownsan, sizes, kinds):
    rows = []
    for kind in kinds:
        per = {}
        for n in sizes:
            vals = {}
            for under in ("plain", "ownsan"):
                cmd = ([ownsan, "run", "--"] if under == "ownsan" else []) + [
                    workload, "live", n, kind]
                out = subprocess.run([str(c) for c in cmd], check=True,
                                     capture_output=True, text=True,
                                     env={k: v for k, v in os.environ.items()
                                          if k != "OWNSAN_OPTIONS"})
                vals[under] = rss_of_line(out.stdout)
            per[n] = vals
            log(f"  memory {kind} {n}: plain {vals['plain']} KiB, "
                f"ownsan {vals['ownsan']} KiB")
        lo, hi = sizes[0], sizes[-1]
        extra_hi = (per[hi]["ownsan"] - per[hi]["plain"]) * 1024
        extra_lo = (per[lo]["ownsan"] - per[lo]["plain"]) * 1024
        rows.append({
            "kind": kind, "sizes": sizes,
            "rss_kb": {str(n): per[n] for n in sizes},
            "bytes_per_object_at_max": extra_hi / hi,
            "bytes_per_object_slope": (extra_hi - extra_lo) / (hi - lo),
            "llvm_bytes_per_object_slope":
                (per[hi]["plain"] - per[lo]["plain"]) * 1024 / (hi - lo)})
    return rows


def plain_env():
    return {k: v for k, v in os.environ.items() if k != "OWNSAN_OPTIONS"}


def run_longrun(workload, ownsan, churn_sizes, threads, soak_s):
    res = {"churn": {}, "threads": {}, "soak": {}}
    for n in churn_sizes:
        vals = {}
        for under in ("plain", "ownsan"):
            cmd = ([ownsan, "run", "--"] if under == "ownsan" else []) + [
                workload, "churn", n]
            t0 = time.perf_counter()
            out = subprocess.run([str(c) for c in cmd], check=True,
                                 capture_output=True, text=True,
                                 env=plain_env())
            vals[under] = {"maxrss_kb": rss_of_line(out.stdout),
                           "wall_s": round(time.perf_counter() - t0, 1)}
        res["churn"][str(n)] = vals
        log(f"  longrun churn {n}: plain {vals['plain']['maxrss_kb']} KiB, "
            f"ownsan {vals['ownsan']['maxrss_kb']} KiB")
    if threads:
        for under in ("plain", "ownsan"):
            cmd = ([ownsan, "run", "--"] if under == "ownsan" else []) + [
                workload, "threads", threads]
            out = subprocess.run([str(c) for c in cmd], check=True,
                                 capture_output=True, text=True,
                                 env=plain_env())
            before = rss_of_line(out.stdout, "rss_kb_before")
            after = rss_of_line(out.stdout, "rss_kb_after")
            res["threads"][under] = {"rss_kb_before": before,
                                     "rss_kb_after": after,
                                     "added_kb": after - before}
            log(f"  longrun threads {threads} {under}: +{after - before} KiB")
        res["threads"]["count"] = threads
    if soak_s:
        out = subprocess.run(
            [str(ownsan), "run", "--", str(workload), "soak", str(soak_s)],
            check=True, capture_output=True, text=True, env=plain_env())
        samples = [(int(t), int(k)) for t, k in
                   re.findall(r"rss_kb t=(\d+) (\d+)", out.stdout)]
        after = [k for t, k in samples if t >= 60]
        res["soak"] = {"seconds": soak_s, "samples": samples,
                       "objects": rss_of_line(out.stdout, "objects"),
                       "first_minute_kb": after[0] if after else None,
                       "min_after_kb": min(after) if after else None,
                       "max_after_kb": max(after) if after else None}
        log(f"  longrun soak {soak_s}s: {res['soak']['min_after_kb']}.."
            f"{res['soak']['max_after_kb']} KiB after the first minute")
    return res


def run_depth(workload, ownsan, reps, objects):
    """Median time per object of the churn loop under DEPTHS frames, plain
    and under ownsan (default options: malloc_context_size frames kept)."""
    res = {"objects": objects}
    for depth in DEPTHS:
        samples = {"plain": [], "ownsan": []}
        for _ in range(reps):
            for under in ("plain", "ownsan"):
                cmd = ([ownsan, "run", "--"] if under == "ownsan" else []) + [
                    workload, "depth", depth, objects]
                out = subprocess.run([str(c) for c in cmd], check=True,
                                     capture_output=True, text=True,
                                     env=plain_env())
                m = re.search(r"ns_per_object=([0-9.]+)", out.stdout)
                samples[under].append(float(m.group(1)))
        res[str(depth)] = {k: statistics.median(v)
                           for k, v in samples.items()}
        log(f"  depth {depth}: plain {res[str(depth)]['plain']:.0f} ns, "
            f"ownsan {res[str(depth)]['ownsan']:.0f} ns per object")
    return res


def run_startup(one_call, ownsan, runtime, empty_preload, reps, runs=100):
    """Median wall time of one process over reps * runs runs of each way,
    one run of each way in turn: the machine's drift (a VM whose page
    faults cost 10 - 20 us, neighbours) falls on every way alike, where
    batches of 100 runs in a row moved by a millisecond between ways."""
    # "exec floor": one exec more than plain, of a launcher that does
    # nothing else (/usr/bin/env): what `ownsan run` pays besides the
    # preload on any machine, whatever ownsan does. "preload floor": a
    # preloaded library that does nothing: what any LD_PRELOAD pays.
    ways = {"plain": ([one_call], {}),
            "preload": ([one_call], {"LD_PRELOAD": str(runtime)}),
            "ownsan run": ([ownsan, "run", "--", one_call], {}),
            "exec floor": (["/usr/bin/env", one_call], {}),
            "preload floor": ([one_call], {"LD_PRELOAD": str(empty_preload)})}
    envs = {way: dict(plain_env(), **extra)
            for way, (_, extra) in ways.items()}
    samples = {k: [] for k in ways}
    for _ in range(reps * runs):
        for way, (cmd, _) in ways.items():
            t0 = time.perf_counter()
            subprocess.run([str(c) for c in cmd], check=True, env=envs[way],
                           stdout=subprocess.DEVNULL)
            samples[way].append((time.perf_counter() - t0) * 1e3)
    res = {way: statistics.median(v) for way, v in samples.items()}
    log("  startup: " + ", ".join(f"{k} {v:.1f} ms" for k, v in res.items()))
    return res


def jit_timed_part(stdout):
    """jit_server's own times of its timed iterations: (wall s, CPU s)."""
    m = re.search(r"iterations=(\d+) .*us_per_iteration=([\d.]+) "
                  r"cpu_us_per_iteration=([\d.]+)", stdout)
    if not m:
        sys.exit(f"jit_server printed no times: {stdout!r}")
    n = int(m.group(1))
    return float(m.group(2)) * n / 1e6, float(m.group(3)) * n / 1e6


def run_jit(jit, ownsan, r, args, asan, bdir):
    """Workload (d): each engine on 1 and 4 threads, plain and ownsan
    (compare: a report or a wrong result fails the run), MCJIT also with
    the plain program on ownsan run's heap and ownsan on glibc's heap, MCJIT
    also its floor (jit_floor_envs); then the MCJIT
    loop's ownsan peak RSS at two lengths."""
    n_lljit, n_mcjit = (int(n) for n in args.jit_iterations.split(","))
    for engine, n in (("lljit", n_lljit), ("mcjit", n_mcjit)):
        for threads in (1, 4):
            cmd = [jit, engine, str(threads), str(n)]
            floor = [(PLAIN_RUN_HEAP, cmd, RUN_HEAP_ENV, None),
                     (GLIBC_HEAP, [ownsan, "run", "--glibc-heap", "--"] + cmd,
                      None, None)]
            if engine == "mcjit":
                floor += [
                    (label, cmd, env, None)
                    for label, env in jit_floor_envs(bdir, threads).items()]
            r["end_to_end"][f"(d) JIT server, {engine}, {threads} thread"
                            f"{'s' if threads > 1 else ''}, {n} modules"] = (
                compare(f"jit {engine} x{threads}", [
                    ("plain", cmd, None, None),
                    ("ownsan", [ownsan, "run", "--"] + cmd, None, None),
                ] + floor + asan_variants(asan, cmd), args.reps))
    if args.jit_steady:
        # A server's steady state: LLJIT on 4 threads, timed after a
        # warm-up that fills ownsan's quarantine (the rows above end about
        # when it fills), from what jit_server measures of itself.
        n, warmup = (int(v) for v in args.jit_steady.split(","))
        cmd = [jit, "lljit", "4", str(n), str(warmup)]
        r["end_to_end"][f"(d) JIT server, lljit, 4 threads, {n} modules "
                        f"after {warmup} untimed (the steady state)"] = (
            compare("jit lljit x4 steady", [
                ("plain", cmd, None, None),
                ("ownsan", [ownsan, "run", "--"] + cmd, None, None),
                (PLAIN_RUN_HEAP, cmd, RUN_HEAP_ENV, None),
                (GLIBC_HEAP, [ownsan, "run", "--glibc-heap", "--"] + cmd,
                 None, None),
                (QUARANTINE_OFF, [ownsan, "run", "--"] + cmd,
                 {"OWNSAN_OPTIONS": "quarantine_size_mb=0"}, None),
            ], args.reps, timer=jit_timed_part))
    sizes = [int(n) for n in args.jit_rss_iterations.split(",") if n]
    if len(sizes) == 2:
        out = {}
        for key, n in zip(("small", "large"), sizes):
            wall, _, maxrss, rc, err, _ = run_timed(
                [ownsan, "run", "--", jit, "mcjit", "1", str(n)])
            if rc != 0 or "ERROR: OwnSan" in err:
                log(err[-3000:])
                sys.exit(f"jit rss {n}: exit {rc}")
            log(f"  jit rss: mcjit {n}: {maxrss / 1024:.0f} MB, {wall:.0f} s")
            out[key] = {"n": n, "maxrss_kb": maxrss, "wall_s": wall}
        r["jit_rss"] = out


def run_depot(workload, ownsan, events):
    res = {}
    for label, opts in (("stacks", "verbosity=1"),
                        ("nostack", "verbosity=1:malloc_context_size=0")):
        out = subprocess.run(
            [str(ownsan), "run", "--", str(workload), "sites", str(events)],
            capture_output=True, text=True,
            env=dict(os.environ, OWNSAN_OPTIONS=opts))
        m = re.search(r"(\d+) stacks", out.stderr)
        q = re.search(r"(\d+) freed objects matched", out.stderr)
        res[label] = {
            "stacks": int(m.group(1)) if m else None,
            "freed_matched_at_exit": int(q.group(1)) if q else None,
            "maxrss_kb_before": rss_of_line(out.stdout, "maxrss_kb_before"),
            "maxrss_kb": rss_of_line(out.stdout, r"\smaxrss_kb")}
    plain = subprocess.run([str(workload), "sites", str(events)],
                           capture_output=True, text=True, check=True)
    res["plain"] = {"maxrss_kb": rss_of_line(plain.stdout, r"\smaxrss_kb")}
    sites = re.search(r"sites=(\d+)", plain.stdout)
    res["events"] = events
    res["sites"] = int(sites.group(1)) if sites else None
    pairs = events // 2
    for label in ("stacks", "nostack"):
        extra = (res[label]["maxrss_kb"] - res["plain"]["maxrss_kb"]) * 1024
        res[label]["extra_bytes_per_pair"] = extra / pairs
    return res


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def verdict(ok):
    return "met" if ok else "MISSED"


def fmt_ns(v):
    return "-" if v is None else f"{v:.1f}"


def print_report(r):
    p = print
    m = r["machine"]
    p(f"# ownsan benchmarks\n\nmachine: {m['nproc']} x {m['cpu']}, "
      f"{m['mem_gib']} GiB, Linux {m['kernel']}; LLVM {r['llvm']} "
      f"(llvmlite: LLVM 14); runtime built with OWNSAN_PGO="
      f"{r.get('pgo', '?')}, OWNSAN_LTO={r.get('lto', '?')}; "
      f"{r['reps']} repetitions, medians; load "
      f"average {r['load_before']} before, {r['load_after']} after\n")

    p("## Targets (issues 6, 17 and 22)\n")
    p("| measure | target | measured | verdict |")
    p("|---|---|---|---|")
    for row in r["summary"]:
        p(f"| {row['measure']} | {row['target']} | {row['measured']} | "
          f"{row['verdict']} |")

    if "calls" in r:
        p("\n## Per-call cost (ns, CPU time per call per thread, median)\n")
        p("plain = benchmark without ownsan; direct/wrapped = same process "
          "under `ownsan run` (OWNSAN_OPTIONS=quarantine_size_mb=1024); "
          "overhead = wrapped - direct, in each process, the median over "
          "the processes of that run (--micro-processes)\n")
        p("| handles | function | threads | live | freed | plain | direct | "
          "wrapped | overhead |")
        p("|---|---|---|---|---|---|---|---|---|")
        for c in r["calls"]:
            p(f"| {c['probes']} | {c['fn']} | {c['threads']} | {c['live']:,} | "
              f"{c['freed']:,} | {fmt_ns(c['plain_ns'])} | "
              f"{fmt_ns(c['direct_ns'])} | {fmt_ns(c['wrapped_ns'])} | "
              f"{fmt_ns(c['overhead_ns'])} |")

        curve = [c for c in r["calls"] if c["fn"] == "LLVMGetValueKind"
                 and c["threads"] == 1 and c["probes"] == 256]
        freeds = sorted({c["freed"] for c in curve})
        lives = sorted({c["live"] for c in curve})
        p("\nCurve: LLVMGetValueKind, 1 thread, 256 handles; overhead "
          "(wrapped - direct) in ns by live (rows) and freed (columns) "
          "objects:\n")
        p("| live \\ freed | " + " | ".join(f"{f:,}" for f in freeds) + " |")
        p("|---|" + "---|" * len(freeds))
        for lv in lives:
            cells = []
            for f in freeds:
                c = [x for x in curve if x["live"] == lv and x["freed"] == f]
                cells.append(fmt_ns(c[0]["overhead_ns"]) if c else "")
            p(f"| {lv:,} | " + " | ".join(cells) + " |")
        if r.get("micro_exit_stats"):
            p(f"\nAt exit of the per-call run: `{r['micro_exit_stats']}`")

        p("\nA context made on another thread (which exited), then used by "
          "the main thread (one handle):\n")
        p("| function | direct | wrapped | overhead |")
        p("|---|---|---|---|")
        for c in r["handoff"]:
            p(f"| {c['fn']} | {fmt_ns(c['direct_ns'])} | "
              f"{fmt_ns(c['wrapped_ns'])} | {fmt_ns(c['overhead_ns'])} |")

        p("\n## Create + dispose events (ns per pair, median)\n")
        p("| event pair | plain | direct (stacks on) | wrapped (stacks on) | "
          "direct (stacks off) | wrapped (stacks off) |")
        p("|---|---|---|---|---|---|")
        names = {
            "builder": "LLVMCreateBuilderInContext + LLVMDisposeBuilder",
            "add": "LLVMBuildAdd + LLVMInstructionEraseFromParent",
            "module": "LLVMModuleCreateWithNameInContext + LLVMDisposeModule"}
        for e in r["events"]:
            p(f"| {names[e['event']]} | {fmt_ns(e['plain_ns'])} | "
              f"{fmt_ns(e['direct_ns'])} | {fmt_ns(e['wrapped_ns'])} | "
              f"{fmt_ns(e['direct_nostack_ns'])} | "
              f"{fmt_ns(e['wrapped_nostack_ns'])} |")

    if r["end_to_end"]:
        p("\n## End to end (wall time, median; ratio to the same command "
          "without ownsan)\n")
        p("| workload | variant | wall s | wall ratio | CPU s | CPU ratio "
          "| peak RSS MiB | minor page faults |")
        p("|---|---|---|---|---|---|---|---|")
        for name, res in r["end_to_end"].items():
            for label, v in res.items():
                p(f"| {name} | {label} | {v['median_s']:.3f} | "
                  f"{v['ratio']:.2f}x | {v['cpu_median_s']:.3f} | "
                  f"{v['cpu_ratio']:.2f}x | {v['maxrss_kb'] / 1024:.0f} | "
                  f"{v.get('minor_faults', 0):,.0f} |")
        p(f"\n(a) module: {r['echo_instructions']:,} instructions "
          f"({r['echo_functions']} generated functions, clang -O0)")
        echo = r["end_to_end"].get("(a) llvm-c-test --echo")
        work = r.get("echo_work")
        if echo and work:
            plain = echo["plain"]["median_s"]
            n_calls, n_objs = work["calls"], work["objects"]
            p(f"(a) work under ownsan (verbosity=1): {n_calls:,} checked "
              f"calls, {n_objs:,} objects registered (each freed at the "
              f"end).")
            for label, target in (("ownsan", TARGET_ECHO),
                                  ("ownsan stacks off", TARGET_ECHO_NOSTACK)):
                budget = (target - 1) * plain
                extra = echo[label]["median_s"] - plain
                p(f"    {label}: the {target}x budget is {budget * 1e3:.0f} "
                  f"ms = {budget / n_calls * 1e9:.1f} ns per call if objects "
                  f"cost nothing; measured {extra * 1e3:.0f} ms above plain "
                  f"= {extra / n_calls * 1e9:.1f} ns per call, or "
                  f"{extra / n_objs * 1e9:.0f} ns per object")
            fwd = echo.get("interposition only")
            if fwd:
                floor = fwd["median_s"] - plain
                p(f"    interposition only (forward_only=1): "
                  f"{fwd['ratio']:.2f}x, {floor * 1e3:.0f} ms above plain "
                  f"= {floor / n_calls * 1e9:.1f} ns per call with nothing "
                  f"checked; what is left of the budgets for the checks "
                  f"and the objects: "
                  + ", ".join(f"{t}x {((t - 1) * plain - floor) * 1e3:.0f} "
                              f"ms" for t in (TARGET_ECHO,
                                              TARGET_ECHO_NOSTACK)))
        if "modules" in r:
            p(f"(c) ir_workload modules {r['modules']}: {r['modules']} "
              f"modules of 20 functions, a new context every 50")

    if "memory" in r:
        p("\n## Memory per live tracked object (peak RSS)\n")
        p("| objects | N | plain MiB | ownsan MiB | ownsan bytes/object at N "
          "| slope bytes/object | LLVM's own bytes/object |")
        p("|---|---|---|---|---|---|---|")
        for row in r["memory"]:
            hi = str(row["sizes"][-1])
            v = row["rss_kb"][hi]
            p(f"| {row['kind']} | {int(hi):,} | {v['plain'] / 1024:.0f} | "
              f"{v['ownsan'] / 1024:.0f} | "
              f"{row['bytes_per_object_at_max']:.0f} | "
              f"{row['bytes_per_object_slope']:.0f} | "
              f"{row['llvm_bytes_per_object_slope']:.0f} |")

    if "depot" in r:
        d = r["depot"]
        p(f"\n## Stack depot\n\n{d['events']:,} create/dispose events from "
          f"{d['sites']} call sites: {d['stacks']['stacks']} stacks stored "
          f"(stacks off: {d['nostack']['stacks']}). Peak RSS: plain "
          f"{d['plain']['maxrss_kb'] / 1024:.0f} MiB, ownsan "
          f"{d['stacks']['maxrss_kb'] / 1024:.0f} MiB (stacks off "
          f"{d['nostack']['maxrss_kb'] / 1024:.0f} MiB); freed objects "
          f"still matched at exit: {d['stacks']['freed_matched_at_exit']}. "
          f"Peak RSS above plain per create/dispose pair (the history: "
          f"records of dead objects, free events, the 64 MiB quarantine): "
          f"{d['stacks']['extra_bytes_per_pair']:.0f} B (stacks off "
          f"{d['nostack']['extra_bytes_per_pair']:.0f} B)")


def summarize(r):
    rows = []
    for probes, threads in ((1, 1), (1, 2), (256, 1), (256, 2)):
        calls = [c for c in r.get("calls", [])
                 if c["threads"] == threads and c["probes"] == probes]
        if not calls:
            continue
        worst = max(calls, key=lambda c: c["overhead_ns"])
        best = min(calls, key=lambda c: c["overhead_ns"])
        rows.append({
            "measure": f"per-call overhead, {threads} thread"
                       f"{'s' if threads > 1 else ''}, "
                       f"{'one handle' if probes == 1 else f'{probes} handles'}"
                       f" (3 functions, 0..1M live, 0..1M freed)",
            "target": f"<= {TARGET_CALL_NS:.0f} ns",
            "measured": f"{best['overhead_ns']:.1f} .. "
                        f"{worst['overhead_ns']:.1f} ns (worst: "
                        f"{worst['fn']}, live {worst['live']:,}, freed "
                        f"{worst['freed']:,}"
                        + (f"; each cell the median of "
                           f"{worst['processes']} processes, the worst's "
                           f"{worst['overhead_spread_ns'][0]:.1f} .. "
                           f"{worst['overhead_spread_ns'][1]:.1f} ns; "
                           f"the most in any process "
                           f"{max(c['overhead_spread_ns'][1] for c in calls):.1f}"
                           f" ns" if worst["processes"] > 1 else "") + ")",
            "verdict": verdict(worst["overhead_ns"] <= TARGET_CALL_NS)})
    e2e = r["end_to_end"]
    echo = e2e.get("(a) llvm-c-test --echo")
    def ratio_text(run):
        return f"{run['ratio']:.2f}x (CPU {run['cpu_ratio']:.2f}x)"

    def ratio_row(measure, target, run, runs=None):
        # `ownsan run` gives the program its heap (an allocator, or huge
        # pages), which may speed up the program's own work too (the plain
        # run does not have it): where the plain program was also run with
        # that heap, the ratio against it is given as well, and the verdict
        # takes the larger. The previous default heap's ratio is a reference.
        ratio, text = run["ratio"], ratio_text(run)
        same_heap = (runs or {}).get(PLAIN_RUN_HEAP)
        if same_heap:
            against_same = run["median_s"] / same_heap["median_s"]
            text += (f"; {against_same:.2f}x against the plain program with "
                     f"the same heap ({RUN_HEAP_NAME})")
            ratio = max(ratio, against_same)
        glibc = (runs or {}).get(GLIBC_HEAP)
        if glibc and run is (runs or {}).get("ownsan"):
            text += (f"; on glibc's heap (--glibc-heap) "
                     f"{glibc['ratio']:.2f}x")
        return {"measure": measure, "target": f"<= {target}x",
                "measured": text, "verdict": verdict(ratio <= target)}

    def against_run_heap(run, label):
        # A floor variant's median against the plain program's on the heap
        # `ownsan run` gives.
        return run[label]["median_s"] / run[PLAIN_RUN_HEAP]["median_s"]

    if echo:
        rows.append(ratio_row("(a) --echo, default options", TARGET_ECHO,
                              echo["ownsan"], echo))
        rows.append(ratio_row("(a) --echo, stacks off", TARGET_ECHO_NOSTACK,
                              echo["ownsan stacks off"], echo))
        if "interposition only" in echo:
            fwd = echo["interposition only"]
            rows.append({"measure": "(a) --echo, interposition only "
                                    "(forward_only=1: nothing checked)",
                         "target": "(floor of the two above)",
                         "measured": ratio_text(fwd), "verdict": "-"})
    lite = e2e.get("(b) llvmlite suite")
    if lite:
        rows.append(ratio_row("(b) llvmlite suite, default options",
                              TARGET_LLVMLITE, lite["ownsan"]))
    mods = e2e.get("(c) IR building, many modules")
    if mods:
        rows.append(ratio_row("(c) IR building, default options (issue 22)",
                              TARGET22_IR, mods["ownsan"], mods))
        rows.append(ratio_row("(c) IR building, stacks off (issue 22)",
                              TARGET22_IR_NOSTACK, mods["ownsan stacks off"],
                              mods))
        if "interposition only" in mods:
            rows.append({"measure": "(c) IR building, interposition only "
                                    "(forward_only=1: nothing checked)",
                         "target": "(floor of the two above)",
                         "measured": ratio_text(mods["interposition only"]),
                         "verdict": "-"})
        if QUARANTINE_ALONE in mods:
            rows.append({
                "measure": "(c) IR building, a 64 MB quarantine alone and "
                           "nothing tracked (bench/quarantine_preload.c; "
                           "against the plain program on ownsan run's heap)",
                "target": "(reference)",
                "measured": "the blocks a dispose frees "
                            f"{against_run_heap(mods, QUARANTINE_ALONE):.2f}x"
                            ", every block "
                            f"{against_run_heap(mods, QUARANTINE_ALONE_ALL):.2f}x",
                "verdict": "-"})
            both = against_run_heap(mods, INTERPOSITION_AND_QUARANTINE)
            rows.append({
                "measure": "(c) IR building, the interposition "
                           "(forward_only=1) and that quarantine together, "
                           "nothing tracked (against the plain program on "
                           "ownsan run's heap)",
                "target": "(floor of the two (c) targets)",
                "measured": f"{both:.2f}x",
                "verdict": "-"})
        if LEAST_TRACKER in mods:
            rows.append({
                "measure": "(c) IR building, the least tracker "
                           "(bench/least_tracker_preload.c: every handle "
                           "checked, registered and killed, plainly; against "
                           "the plain program on ownsan run's heap)",
                "target": "(reference: the work of (c) done plainly)",
                "measured": "alone "
                            f"{against_run_heap(mods, LEAST_TRACKER):.2f}x, with "
                            "the quarantine "
                            f"{against_run_heap(mods, LEAST_TRACKER_AND_QUARANTINE):.2f}x"
                            ", and stacks "
                            f"{against_run_heap(mods, LEAST_TRACKER_QUARANTINE_STACKS):.2f}x"
                            ", and ownsan's other per-object work (a lock, a "
                            "record, kind, parent, name, expiry on reuse, "
                            "deaths in operator delete) "
                            f"{against_run_heap(mods, LEAST_TRACKER_OWNSAN_WORK):.2f}x",
                "verdict": "-"})
    if echo:
        rows.append(ratio_row("(a) --echo, default options (issue 22)",
                              TARGET22_ECHO, echo["ownsan"], echo))
        rows.append(ratio_row("(a) --echo, stacks off (issue 22)",
                              TARGET22_ECHO_NOSTACK,
                              echo["ownsan stacks off"], echo))
    for name, run in e2e.items():
        if name.startswith("(d) "):
            rows.append(ratio_row(f"{name} (issue 22)", TARGET22_JIT,
                                  run["ownsan"], run))
            if QUARANTINE_OFF in run:
                rows.append({"measure": f"{name}: ownsan without its "
                                        "quarantine (quarantine_size_mb=0)",
                             "target": "(reference: what the quarantine "
                                       "costs)",
                             "measured": ratio_text(run[QUARANTINE_OFF]),
                             "verdict": "-"})
            if QUARANTINE_ALONE in run:
                alone = against_run_heap(run, QUARANTINE_ALONE)
                both = against_run_heap(run, INTERPOSITION_AND_QUARANTINE)
                rows.append({
                    "measure": f"{name}: a 64 MB quarantine of the blocks of "
                               f"up to {JIT_QUARANTINE_MAX_BLOCK} B an "
                               "engine's dispose frees, nothing tracked "
                               "(bench/quarantine_preload.c; against the "
                               "plain program on ownsan run's heap)",
                    "target": "(floor of the row above)",
                    "measured": f"alone {alone:.2f}x, with the "
                                f"interposition {both:.2f}x",
                    "verdict": "-"})
    # The bar issue 22 names, on the same workloads: no target, a reference.
    for name, run in e2e.items():
        if ASAN in run and ASAN_OWN_Q in run:
            rows.append({"measure": f"{name}: AddressSanitizer's runtime "
                                    f"preloaded (reference; ownsan "
                                    f"{run['ownsan']['ratio']:.2f}x)",
                         "target": "-",
                         "measured": f"{run[ASAN]['ratio']:.2f}x (its own "
                                     f"quarantine), "
                                     f"{run[ASAN_OWN_Q]['ratio']:.2f}x "
                                     f"(ownsan's)",
                         "verdict": "-"})
    jr = r.get("jit_rss")
    if jr:
        small, large = jr["small"], jr["large"]
        flat = large["maxrss_kb"] / small["maxrss_kb"]
        rows.append({"measure": f"(d) MCJIT loop, ownsan peak RSS, "
                                f"{large['n']:,} / {small['n']:,} iterations",
                     "target": f"<= {TARGET22_JIT_FLAT:.2f}",
                     "measured": f"{large['maxrss_kb'] / 1024:.0f} / "
                                 f"{small['maxrss_kb'] / 1024:.0f} MB = "
                                 f"{flat:.3f}",
                     "verdict": verdict(flat <= TARGET22_JIT_FLAT)})
    for m in r.get("memory", []):
        b = m["bytes_per_object_slope"]
        rows.append({"measure": f"memory per live tracked object "
                                f"({m['kind']}, slope 0.5M..1M)",
                     "target": f"<= {TARGET_BYTES_PER_OBJECT:.0f} B + depot",
                     "measured": f"{b:.0f} B",
                     "verdict": verdict(b <= TARGET_BYTES_PER_OBJECT)})
    lr = r.get("longrun")
    if lr:
        churn = lr["churn"]
        for n, v in churn.items():
            extra = (v["ownsan"]["maxrss_kb"] - v["plain"]["maxrss_kb"]) / 1024
            rows.append({"measure": f"{int(n):,} objects created and freed, "
                                    f"peak RSS plain / ownsan",
                         "target": f"ownsan <= plain + "
                                   f"{TARGET_CHURN_EXTRA_MB:.0f} MB",
                         "measured": f"{v['plain']['maxrss_kb'] / 1024:.0f} / "
                                     f"{v['ownsan']['maxrss_kb'] / 1024:.0f} "
                                     f"MB (+{extra:.0f} MB)",
                         "verdict": verdict(extra <= TARGET_CHURN_EXTRA_MB)})
        if len(churn) >= 2:
            sizes = sorted(churn, key=int)
            lo, hi = churn[sizes[0]], churn[sizes[-1]]
            flat = hi["ownsan"]["maxrss_kb"] / lo["ownsan"]["maxrss_kb"]
            rows.append({"measure": f"ownsan peak RSS, {int(sizes[-1]):,} / "
                                    f"{int(sizes[0]):,} objects",
                         "target": f"<= {TARGET_CHURN_FLAT:.2f}",
                         "measured": f"{flat:.3f}",
                         "verdict": verdict(flat <= TARGET_CHURN_FLAT)})
        th = lr.get("threads")
        if th:
            added = th["ownsan"]["added_kb"] / 1024
            rows.append({"measure": f"{th['count']:,} short threads, resident "
                                    f"set added (plain / ownsan)",
                         "target": f"< {TARGET_THREADS_MB:.0f} MB",
                         "measured": f"{th['plain']['added_kb'] / 1024:.1f} / "
                                     f"{added:.1f} MB",
                         "verdict": verdict(added < TARGET_THREADS_MB)})
        so = lr.get("soak")
        if so and so.get("min_after_kb"):
            flat = so["max_after_kb"] / so["min_after_kb"]
            rows.append({"measure": f"soak {so['seconds']} s, resident set "
                                    f"max / min after the first minute",
                         "target": f"<= {TARGET_SOAK_FLAT:.2f}",
                         "measured": f"{so['max_after_kb'] / 1024:.0f} / "
                                     f"{so['min_after_kb'] / 1024:.0f} MB = "
                                     f"{flat:.3f}",
                         "verdict": verdict(flat <= TARGET_SOAK_FLAT)})
    su = r.get("startup")
    if su:
        for way in ("preload", "ownsan run"):
            added = su[way] - su["plain"]
            rows.append({"measure": f"start-up added to a one-call program "
                                    f"({way})",
                         "target": f"<= {TARGET_STARTUP_MS:.0f} ms",
                         "measured": f"{su[way]:.1f} - {su['plain']:.1f} ms "
                                     f"= {added:.1f} ms",
                         "verdict": verdict(added <= TARGET_STARTUP_MS)})
        # The floors: (way, what ownsan's cost above it is measured from,
        # measured to, the row's words).
        for floor_way, base, top, measure, text in (
                ("exec floor", "preload", "ownsan run",
                 "`ownsan run` above the preload, against one extra exec "
                 "(`/usr/bin/env PROGRAM`)",
                 "{above:.1f} ms; one extra exec {floor:.1f} ms"),
                ("preload floor", "preload floor", "preload",
                 "the preload, against a preloaded library that does "
                 "nothing",
                 "an empty preload adds {floor:.1f} ms; ownsan {above:.1f} "
                 "ms more")):
            if floor_way in su:
                rows.append({"measure": measure, "target": "(floor)",
                             "measured": text.format(
                                 floor=su[floor_way] - su["plain"],
                                 above=su[top] - su[base]),
                             "verdict": "-"})
    dp = r.get("depth")
    if dp:
        lo, hi = dp[str(DEPTHS[0])], dp[str(DEPTHS[-1])]
        ratio = hi["ownsan"] / lo["ownsan"]
        rows.append({"measure": f"object cost at stack depth {DEPTHS[-1]:,} "
                                f"/ depth {DEPTHS[0]} (ownsan)",
                     "target": f"<= {TARGET_DEPTH_RATIO:.1f}x",
                     "measured": f"{hi['ownsan']:.0f} / {lo['ownsan']:.0f} "
                                 f"ns = {ratio:.2f}x (plain "
                                 f"{hi['plain']:.0f} / {lo['plain']:.0f} ns)",
                     "verdict": verdict(ratio <= TARGET_DEPTH_RATIO)})
    d = r.get("depot")
    if d:
        stacks = d["stacks"]["stacks"]
        rows.append({"measure": f"stack depot: {d['events']:,} events from "
                                f"{d['sites']} sites",
                     "target": "a few hundred stacks",
                     "measured": f"{stacks} stacks",
                     "verdict": verdict(stacks is not None
                                        and stacks <= 3 * d["sites"] + 50)})
    return rows


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--reps", type=int, default=5,
                    help="repetitions of each end-to-end run (default 5)")
    ap.add_argument("--micro-reps", type=int, default=3,
                    help="Google Benchmark repetitions (default 3)")
    ap.add_argument("--micro-min-time", type=float, default=0.1)
    ap.add_argument("--micro-processes", type=int, default=3,
                    help="processes of the per-call run; each cell's "
                         "overhead is its median over them (default 3)")
    ap.add_argument("--llvm", type=int,
                    help="LLVM major for everything but llvmlite (default: "
                         "the newest installed, as the top-level build)")
    ap.add_argument("--build-dir", default=str(ROOT / "build-bench"))
    ap.add_argument("--build-dir14", default=str(ROOT / "build-bench-llvm14"))
    ap.add_argument("--no-build", action="store_true",
                    help="reuse the build dirs as they are")
    ap.add_argument("--no-pgo", action="store_true",
                    help="build the runtime without its profile and without "
                         "ThinLTO (-DOWNSAN_PGO=OFF -DOWNSAN_LTO=OFF)")
    ap.add_argument("--echo-functions", type=int, default=2000)
    ap.add_argument("--modules", type=int, default=3000)
    ap.add_argument("--churn-objects", default="10000000,50000000",
                    help="longrun: objects created and freed per run")
    ap.add_argument("--threads", type=int, default=100000,
                    help="longrun: short threads (0: none)")
    ap.add_argument("--soak-seconds", type=int, default=600,
                    help="longrun: length of the soak (0: none)")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: micro,echo,llvmlite,"
                         "modules,memory,depot,longrun,depth,startup,jit,"
                         "asan")
    ap.add_argument("--jit-iterations", default="200,2000",
                    help="jit: iterations of the LLJIT and MCJIT loops"
                         " timed (default 200,2000: about a second each)")
    ap.add_argument("--jit-steady", default="1000,4000",
                    help="jit: iterations of LLJIT on 4 threads timed after"
                         " an untimed warm-up, N,WARMUP (the steady state;"
                         " default 1000,4000; '': none)")
    ap.add_argument("--jit-rss-iterations", default="10000,100000",
                    help="jit: the MCJIT loop's iterations whose ownsan"
                         " peak RSS is compared ('': none)")
    ap.add_argument("--depth-objects", type=int, default=200000,
                    help="depth: objects churned per run")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    t_start = time.time()

    llvm = args.llvm or newest_llvm()
    bdir = pathlib.Path(args.build_dir)
    bdir14 = pathlib.Path(args.build_dir14)
    llvm_bin = pathlib.Path(f"/usr/lib/llvm-{llvm}/bin")
    do_lite = "llvmlite" not in skip and llvm != 14
    if not args.no_build:
        build(bdir, llvm, ["ownsan_bench"], bench=True, pgo=not args.no_pgo)
        if do_lite:
            build(bdir14, 14, ["ownsan", "ownsan_cli", "ownsan_observer"],
                  bench=False, pgo=not args.no_pgo)
    ownsan = bdir / "bin" / "ownsan"
    use_run_heap(ownsan)
    log(f"ownsan run's heap: {RUN_HEAP_NAME}")
    micro_exe = bdir / "bench" / "ownsan_bench_call_overhead"
    workload = bdir / "bench" / "ownsan_bench_ir_workload"
    asan = None if "asan" in skip else asan_runtime(llvm)
    if not asan and "asan" not in skip:
        log("no AddressSanitizer runtime (libclang-rt-N-dev): no reference")

    r = {"machine": machine(), "llvm": llvm, "reps": args.reps,
         "end_to_end": {}, "load_before": loadavg(),
         "pgo": cmake_cache_value(bdir, "OWNSAN_PGO"),
         "lto": cmake_cache_value(bdir, "OWNSAN_LTO"),
         "run_heap": RUN_HEAP_NAME}
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="ownsan-bench-"))
    try:
        if "micro" not in skip:
            micro = run_micro(micro_exe, ownsan, tmp, args.micro_reps,
                              args.micro_min_time, args.micro_processes)
            r["micro_raw"] = micro
            r["calls"], r["handoff"], r["events"] = micro_tables(micro)
            r["micro_exit_stats"] = micro.get("calls_exit_stats")

        # (a) llvm-c-test --echo
        src = tmp / "echo_big.c"
        src.write_text(echo_source(args.echo_functions))
        bc = tmp / "echo_big.bc"
        sh([llvm_bin / "clang", "-O0", "-c", "-emit-llvm", src, "-o", bc])
        r["echo_functions"] = args.echo_functions
        r["echo_instructions"] = count_instructions(llvm_bin / "llvm-dis", bc)
        log(f"(a) module: {r['echo_instructions']} instructions")
        echo = llvm_bin / "llvm-c-test"
        if "echo" not in skip:
            # Same output with and without ownsan (checked once).
            ref, got = tmp / "echo_plain.ll", tmp / "echo_ownsan.ll"
            run_timed([echo, "--echo"], None, bc, ref)
            run_timed([ownsan, "run", "--", echo, "--echo"], None, bc, got)
            if ref.read_bytes() != got.read_bytes():
                sys.exit("(a): --echo output differs under ownsan")
            # What ownsan does in it: the exit statistics (verbosity=1).
            _, _, _, _, err, _ = run_timed(
                [ownsan, "run", "--", echo, "--echo"],
                {"OWNSAN_OPTIONS": "verbosity=1"}, bc)
            m = re.search(r"==OwnSan: work: (\d+) checked calls, (\d+) "
                          r"objects registered", err)
            if m:
                r["echo_work"] = {"calls": int(m[1]), "objects": int(m[2])}
            r["end_to_end"]["(a) llvm-c-test --echo"] = compare("echo", [
                ("plain", [echo, "--echo"], None, bc),
                ("ownsan", [ownsan, "run", "--", echo, "--echo"], None, bc),
                ("ownsan stacks off", [ownsan, "run", "--", echo, "--echo"],
                 {"OWNSAN_OPTIONS": "malloc_context_size=0"}, bc),
                # (The interposition alone, against the plain program: the
                # heap as the plain run has it.)
                ("interposition only", [ownsan, "run", "--glibc-heap",
                                        "--no-huge-heap", "--", echo,
                                        "--echo"],
                 {"OWNSAN_OPTIONS": "forward_only=1"}, bc),
                (GLIBC_HEAP, [ownsan, "run", "--glibc-heap", "--", echo,
                              "--echo"], None, bc),
                (PLAIN_RUN_HEAP, [echo, "--echo"], RUN_HEAP_ENV, bc),
            ] + asan_variants(asan, [echo, "--echo"], bc), args.reps)

        # (b) llvmlite
        if do_lite:
            ownsan14 = bdir14 / "bin" / "ownsan"
            cmd = [PY, "-m", "llvmlite.tests"]

            def lite_ok(label, err):
                if not re.search(r"^OK", err, re.M):
                    sys.exit(f"(b) llvmlite suite failed ({label}):\n"
                             + err[-3000:])
            r["end_to_end"]["(b) llvmlite suite"] = compare("llvmlite", [
                ("plain", cmd, None, None),
                ("ownsan", [ownsan14, "run", "--"] + cmd, None, None),
                ("ownsan stacks off", [ownsan14, "run", "--"] + cmd,
                 {"OWNSAN_OPTIONS": "malloc_context_size=0"}, None),
            ], args.reps, check=lite_ok)

        # (c) IR building
        if "modules" not in skip:
            cmd = [workload, "modules", args.modules]
            r["modules"] = args.modules
            r["end_to_end"]["(c) IR building, many modules"] = compare(
                "modules", [
                    ("plain", cmd, None, None),
                    ("ownsan", [ownsan, "run", "--"] + cmd, None, None),
                    ("ownsan stacks off", [ownsan, "run", "--"] + cmd,
                     {"OWNSAN_OPTIONS": "malloc_context_size=0"}, None),
                    ("interposition only",
                     [ownsan, "run", "--glibc-heap", "--no-huge-heap",
                      "--"] + cmd,
                     {"OWNSAN_OPTIONS": "forward_only=1"}, None),
                    (GLIBC_HEAP, [ownsan, "run", "--glibc-heap", "--"] + cmd,
                     None, None),
                    (PLAIN_RUN_HEAP, cmd, RUN_HEAP_ENV, None),
                ] + [(label, cmd, env, None)
                     for label, env in floor_envs(bdir).items()]
                + asan_variants(asan, cmd), args.reps)

        if "memory" not in skip:
            r["memory"] = run_memory(workload, ownsan, [500000, 1000000],
                                     ["inst", "const"])
        if "depot" not in skip:
            r["depot"] = run_depot(workload, ownsan, 1000000)
        if "startup" not in skip:
            r["startup"] = run_startup(
                bdir / "bench" / "ownsan_bench_one_call", ownsan,
                bdir / "lib" / "libownsan.so",
                bdir / "bench" / "libownsan_bench_empty_preload.so",
                args.reps)
        if "depth" not in skip:
            r["depth"] = run_depth(workload, ownsan, args.reps,
                                   args.depth_objects)
        if "jit" not in skip:
            run_jit(bdir / "bench" / "ownsan_bench_jit_server", ownsan, r,
                    args, asan, bdir)
        if "longrun" not in skip:
            r["longrun"] = run_longrun(
                workload, ownsan,
                [int(n) for n in args.churn_objects.split(",") if n],
                args.threads, args.soak_seconds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    r["elapsed_s"] = round(time.time() - t_start, 1)
    r["load_after"] = loadavg()
    r["summary"] = summarize(r)
    print_report(r)
    print(f"\n(total {r['elapsed_s']} s)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
