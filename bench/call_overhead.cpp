//===- call_overhead.cpp - Per-call and per-event cost of ownsan ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Google Benchmark microbenchmarks of what ownsan adds to one LLVM-C call.
// One run prints both sides:
//
//   direct   the entry point inside the loaded libLLVM, found by reading
//            libLLVM's own dynamic symbol table (dlsym/dlvsym are interposed
//            by ownsan and hand back the wrappers, so they cannot be asked)
//   wrapped  the normal symbol: under `ownsan run` it binds to the wrapper
//            in libownsan.so; without ownsan it is the same as `direct`
//
// call/<fn>/<direct|wrapped>/live:<L>/freed:<F>/probes:<P>/threads:<T>
//   LLVMTypeOf, LLVMGetValueKind (on instructions) and LLVMGetTypeKind (on
//   integer types), with L live tracked objects (instructions made with
//   LLVMBuildAdd) and F freed objects in the shadow map (instructions whose
//   module was disposed with LLVMDisposeModule). Each thread calls on its
//   own handles in its own context, made on that thread: P = 256 cycles
//   over a pool of tracked handles (the result averages over many
//   addresses: the filters and caches are indexed by address), P = 1 calls
//   on one handle again and again (the best case). T = 2: a second,
//   long-lived thread runs the same loop meanwhile; the time reported is
//   the main thread's CPU time per call, the worker's is a counter.
//   The freed population only grows; the states are visited in this order:
//     (0,0) (1k,0) (10k,0) (100k,0) (1M,0)
//     dispose the 1M live -> (0,1M) (1k,1M) (10k,1M) (100k,1M) (1M,1M)
//     make and dispose 1M more -> (1M,2M)
//   The 10k, 100k and 2M states (curve points) run LLVMGetValueKind only,
//   1 thread, 256 handles.
//   "0 live" still has the probe pools and their parents (a few hundred
//   objects). Keeping 2M freed objects matched needs the quarantine to hold
//   their memory: run with OWNSAN_OPTIONS=quarantine_size_mb=1024.
//
// handoff/<fn>/<direct|wrapped>
//   One handle of a context made by a thread that has exited, used by the
//   main thread (a context that changed threads once).
//
// event/<what>/<direct|wrapped>
//   builder:  LLVMCreateBuilderInContext + LLVMDisposeBuilder
//   add:      LLVMBuildAdd + LLVMInstructionEraseFromParent
//   module:   LLVMModuleCreateWithNameInContext + LLVMDisposeModule
//   One iteration = one create and one dispose event. Stacks on or off is
//   chosen by OWNSAN_OPTIONS (malloc_context_size=0: off) for the process.
//   These grow the shadow map and the quarantine; run them in a process of
//   their own (--benchmark_filter=^event/).
//
//===----------------------------------------------------------------------===//

#include <benchmark/benchmark.h>

#include <llvm-c/Core.h>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace {

//===----------------------------------------------------------------------===//
// The un-wrapped entry points
//===----------------------------------------------------------------------===//

struct LoadedObject {
  std::string path;
  ElfW(Addr) base = 0;
};

// The libLLVM this process loaded (linked against it, so it is there).
LoadedObject FindLibLLVM() {
  LoadedObject found;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        const char *name = info->dlpi_name;
        if (!name || !strstr(name, "/libLLVM"))
          return 0;
        auto *out = static_cast<LoadedObject *>(data);
        out->path = name;
        out->base = info->dlpi_addr;
        return 1;
      },
      &found);
  return found;
}

// Looks names up in the file's .dynsym; addresses are relocated by the load
// base. Only defined symbols count (st_shndx != SHN_UNDEF).
class DynamicSymbols {
public:
  explicit DynamicSymbols(const LoadedObject &lib) : base_(lib.base) {
    int fd = open(lib.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      size_ = static_cast<size_t>(st.st_size);
      void *p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED)
        file_ = static_cast<const unsigned char *>(p);
    }
    close(fd);
    if (!file_)
      return;
    auto *eh = reinterpret_cast<const ElfW(Ehdr) *>(file_);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff == 0)
      return;
    auto *sh = reinterpret_cast<const ElfW(Shdr) *>(file_ + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_DYNSYM)
        continue;
      syms_ = reinterpret_cast<const ElfW(Sym) *>(file_ + sh[i].sh_offset);
      nsyms_ = sh[i].sh_size / sizeof(ElfW(Sym));
      strtab_ =
          reinterpret_cast<const char *>(file_ + sh[sh[i].sh_link].sh_offset);
      break;
    }
  }
  ~DynamicSymbols() {
    if (file_)
      munmap(const_cast<unsigned char *>(file_), size_);
  }

  void *Find(const char *name) const {
    for (size_t i = 0; i < nsyms_; ++i) {
      const ElfW(Sym) &s = syms_[i];
      if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC)
        continue;
      if (strcmp(strtab_ + s.st_name, name) == 0)
        return reinterpret_cast<void *>(base_ + s.st_value);
    }
    return nullptr;
  }

private:
  ElfW(Addr) base_;
  const unsigned char *file_ = nullptr;
  size_t size_ = 0;
  const ElfW(Sym) *syms_ = nullptr;
  size_t nsyms_ = 0;
  const char *strtab_ = nullptr;
};

// Every LLVM-C function the benchmarks call, in both flavours.
struct Api {
  LLVMTypeRef (*TypeOf)(LLVMValueRef);
  LLVMValueKind (*GetValueKind)(LLVMValueRef);
  LLVMTypeKind (*GetTypeKind)(LLVMTypeRef);
  LLVMBuilderRef (*CreateBuilderInContext)(LLVMContextRef);
  void (*DisposeBuilder)(LLVMBuilderRef);
  LLVMValueRef (*BuildAdd)(LLVMBuilderRef, LLVMValueRef, LLVMValueRef,
                           const char *);
  void (*InstructionEraseFromParent)(LLVMValueRef);
  LLVMModuleRef (*ModuleCreateWithNameInContext)(const char *, LLVMContextRef);
  void (*DisposeModule)(LLVMModuleRef);
};

Api g_wrapped = {LLVMTypeOf,
                 LLVMGetValueKind,
                 LLVMGetTypeKind,
                 LLVMCreateBuilderInContext,
                 LLVMDisposeBuilder,
                 LLVMBuildAdd,
                 LLVMInstructionEraseFromParent,
                 LLVMModuleCreateWithNameInContext,
                 LLVMDisposeModule};
Api g_direct;
bool g_preloaded = false; // the normal symbols are ownsan's wrappers

template <typename F>
void Resolve(const DynamicSymbols &syms, F *out, const char *name, F wrapped) {
  void *p = syms.Find(name);
  if (!p) {
    fprintf(stderr, "call_overhead: %s not found in libLLVM's .dynsym\n", name);
    exit(2);
  }
  Dl_info info;
  if (!dladdr(p, &info) || !info.dli_fname ||
      !strstr(info.dli_fname, "/libLLVM")) {
    fprintf(stderr, "call_overhead: %s resolved outside libLLVM\n", name);
    exit(2);
  }
  *out = reinterpret_cast<F>(p);
  if (reinterpret_cast<void *>(wrapped) != p)
    g_preloaded = true;
}

void ResolveDirect() {
  LoadedObject lib = FindLibLLVM();
  if (lib.path.empty()) {
    fprintf(stderr, "call_overhead: no libLLVM loaded\n");
    exit(2);
  }
  DynamicSymbols syms(lib);
#define OWNSAN_RESOLVE(field, name)                                            \
  Resolve(syms, &g_direct.field, name, g_wrapped.field)
  OWNSAN_RESOLVE(TypeOf, "LLVMTypeOf");
  OWNSAN_RESOLVE(GetValueKind, "LLVMGetValueKind");
  OWNSAN_RESOLVE(GetTypeKind, "LLVMGetTypeKind");
  OWNSAN_RESOLVE(CreateBuilderInContext, "LLVMCreateBuilderInContext");
  OWNSAN_RESOLVE(DisposeBuilder, "LLVMDisposeBuilder");
  OWNSAN_RESOLVE(BuildAdd, "LLVMBuildAdd");
  OWNSAN_RESOLVE(InstructionEraseFromParent, "LLVMInstructionEraseFromParent");
  OWNSAN_RESOLVE(ModuleCreateWithNameInContext,
                 "LLVMModuleCreateWithNameInContext");
  OWNSAN_RESOLVE(DisposeModule, "LLVMDisposeModule");
#undef OWNSAN_RESOLVE
  Dl_info self;
  const char *wrapper_lib =
      dladdr(reinterpret_cast<void *>(g_wrapped.TypeOf), &self) &&
              self.dli_fname
          ? self.dli_fname
          : "?";
  fprintf(stderr, "call_overhead: direct entries from %s; wrapped = %s%s\n",
          lib.path.c_str(), wrapper_lib,
          g_preloaded ? "" : " (ownsan not preloaded: both are direct)");
}

//===----------------------------------------------------------------------===//
// The world: tracked objects made through the (wrapped) C API
//===----------------------------------------------------------------------===//

constexpr int kProbes = 256;

// A function `i64 f(i64, i64)` with one block and a positioned builder, all
// made through the wrapped API so every object is tracked.
struct Body {
  LLVMModuleRef module = nullptr;
  LLVMValueRef fn = nullptr;
  LLVMValueRef a = nullptr, b = nullptr;
  LLVMBuilderRef builder = nullptr;

  void Init(LLVMContextRef ctx, const char *name) {
    module = LLVMModuleCreateWithNameInContext(name, ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef params[2] = {i64, i64};
    fn = LLVMAddFunction(module, "f", LLVMFunctionType(i64, params, 2, 0));
    a = LLVMGetParam(fn, 0);
    b = LLVMGetParam(fn, 1);
    builder = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(builder,
                             LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  }
  // `n` more instructions at the end of the block (`add a, b`: not folded).
  void Grow(size_t n) {
    for (size_t i = 0; i < n; ++i)
      LLVMBuildAdd(builder, a, b, "");
  }
  void Dispose() {
    LLVMDisposeBuilder(builder);
    LLVMDisposeModule(module);
    *this = Body();
  }
};

// A context with kProbes instructions and kProbes types to call on.
struct ThreadWorld {
  LLVMContextRef ctx = nullptr;
  Body body;
  LLVMValueRef values[kProbes];
  LLVMTypeRef types[kProbes];

  // Called on the thread that will use the world.
  void Init() {
    ctx = LLVMContextCreate();
    body.Init(ctx, "probes");
    for (int i = 0; i < kProbes; ++i) {
      values[i] = LLVMBuildAdd(body.builder, body.a, body.b, "");
      // Distinct types: i1 .. i256.
      types[i] = LLVMIntTypeInContext(ctx, static_cast<unsigned>(i + 1));
    }
  }
};

enum class Fn { TypeOf, GetValueKind, GetTypeKind };

// The loop every call benchmark runs: `fn` on handle (i & mask) of a world.
struct CallLoop {
  Fn fn;
  const Api *api;
  unsigned mask;

  template <typename Keep> uint64_t Run(const ThreadWorld &t, Keep keep) {
    uint64_t n = 0;
    unsigned i = 0;
    switch (fn) {
    case Fn::TypeOf:
      for (auto f = api->TypeOf; keep(); ++n)
        benchmark::DoNotOptimize(f(t.values[i++ & mask]));
      break;
    case Fn::GetValueKind:
      for (auto f = api->GetValueKind; keep(); ++n)
        benchmark::DoNotOptimize(f(t.values[i++ & mask]));
      break;
    case Fn::GetTypeKind:
      for (auto f = api->GetTypeKind; keep(); ++n)
        benchmark::DoNotOptimize(f(t.types[i++ & mask]));
      break;
    }
    return n;
  }
};

double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// The second thread of the 2-thread benchmarks. It lives for the whole run
// and made its own context itself, so no context ever changes threads (a
// context that does is measured separately: handoff/...). While a 2-thread
// benchmark measures the main thread, the worker runs the same loop on its
// own handles; its CPU time per call is reported as a counter.
class Worker {
public:
  void Start() {
    thread_ = std::thread([this] { Main(); });
    thread_.detach();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return ready_; });
  }

  void Begin(CallLoop loop) {
    std::lock_guard<std::mutex> lock(mu_);
    loop_ = loop;
    running_.store(true);
    done_ = false;
    ++job_;
    cv_.notify_all();
  }

  // Stops the loop; the worker's CPU ns per call.
  double End() {
    running_.store(false);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
    return calls_ ? cpu_ns_ / static_cast<double>(calls_) : 0;
  }

private:
  void Main() {
    world_.Init();
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    ready_ = true;
    cv_.notify_all();
    for (;;) {
      cv_.wait(lock, [&] { return job_ != seen; });
      seen = job_;
      CallLoop loop = loop_;
      lock.unlock();
      double t0 = ThreadCpuNs();
      uint64_t n = loop.Run(
          world_, [this] { return running_.load(std::memory_order_relaxed); });
      double t1 = ThreadCpuNs();
      lock.lock();
      calls_ = n;
      cpu_ns_ = t1 - t0;
      done_ = true;
      cv_.notify_all();
    }
  }

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false, done_ = false;
  uint64_t job_ = 0;
  CallLoop loop_{};
  std::atomic<bool> running_{false};
  uint64_t calls_ = 0;
  double cpu_ns_ = 0;
  ThreadWorld world_;
};

struct World {
  ThreadWorld main;    // made on and used by the main thread
  Worker worker;       // the second thread, with a world of its own
  ThreadWorld handoff; // made on a thread that exited; used by main
  LLVMContextRef bulk_ctx = nullptr;
  Body bulk;        // the live population
  Body trash;       // made and disposed to grow the freed population
  size_t live = 0;  // instructions in `bulk`
  size_t freed = 0; // instructions freed through the C API
  int phase = -1;   // index into kPhases reached so far
};
// Never destroyed: the worker thread still waits on its members at exit.
World &g_world = *new World;

struct Phase {
  size_t live, freed;
  bool full; // every function, mode, thread count and pool size; else only
             // the curve points (LLVMGetValueKind, 1 thread, 256 handles)
};
// The order the states are visited in: the freed population only grows.
constexpr size_t k1M = 1000000;
constexpr Phase kPhases[] = {
    {0, 0, true},       {1000, 0, true},      {10000, 0, false},
    {100000, 0, false}, {k1M, 0, true},       {0, k1M, true},
    {1000, k1M, true},  {10000, k1M, false},  {100000, k1M, false},
    {k1M, k1M, true},   {k1M, 2 * k1M, false}};
constexpr int kNumPhases = sizeof(kPhases) / sizeof(kPhases[0]);

void InitWorld() {
  g_world.main.Init();
  g_world.worker.Start();
  std::thread([] { g_world.handoff.Init(); }).join();
  g_world.bulk_ctx = LLVMContextCreate();
  g_world.phase = 0;
}

// Moves the world forward to phase `target`; false if it is already past.
bool AdvanceTo(int target) {
  if (g_world.phase < 0)
    InitWorld();
  if (target < g_world.phase)
    return false;
  while (g_world.phase < target) {
    const Phase &next = kPhases[g_world.phase + 1];
    if (next.live < g_world.live) {
      // Free the whole live population through the C API.
      g_world.freed += g_world.live;
      g_world.bulk.Dispose();
      g_world.live = 0;
    }
    if (next.freed > g_world.freed) {
      // Make more objects and free them through the C API.
      g_world.trash.Init(g_world.bulk_ctx, "trash");
      g_world.trash.Grow(next.freed - g_world.freed);
      g_world.trash.Dispose();
      g_world.freed = next.freed;
    }
    if (next.live > g_world.live) {
      if (!g_world.bulk.module)
        g_world.bulk.Init(g_world.bulk_ctx, "bulk");
      g_world.bulk.Grow(next.live - g_world.live);
      g_world.live = next.live;
    }
    ++g_world.phase;
  }
  return true;
}

int PhaseIndex(int64_t live, int64_t freed) {
  for (int i = 0; i < kNumPhases; ++i)
    if (static_cast<int64_t>(kPhases[i].live) == live &&
        static_cast<int64_t>(kPhases[i].freed) == freed)
      return i;
  return -1;
}

// Google Benchmark calls this on the main thread before each run.
void SetupPhase(const benchmark::State &state) {
  int idx = PhaseIndex(state.range(0), state.range(1));
  if (!AdvanceTo(idx))
    fprintf(stderr,
            "call_overhead: phase %d requested after phase %d; results for "
            "it describe the later world\n",
            idx, g_world.phase);
}

//===----------------------------------------------------------------------===//
// Benchmarks
//===----------------------------------------------------------------------===//

// Args: live, freed, probes, threads. The time is the main thread's CPU
// time per call; with 2 threads the worker runs the same loop meanwhile.
void BM_Call(benchmark::State &state, Fn fn, const Api *api) {
  CallLoop loop{fn, api, static_cast<unsigned>(state.range(2)) - 1};
  bool two = state.range(3) == 2;
  if (two)
    g_world.worker.Begin(loop);
  loop.Run(g_world.main, [&] { return state.KeepRunning(); });
  if (two)
    state.counters["worker_ns_per_call"] = g_world.worker.End();
  state.counters["live"] = static_cast<double>(g_world.live);
  state.counters["freed"] = static_cast<double>(g_world.freed);
}

// The main thread calls on handles of a context another thread made: the
// context changed threads once, before the measurement.
void BM_Handoff(benchmark::State &state, Fn fn, const Api *api) {
  CallLoop loop{fn, api, static_cast<unsigned>(state.range(2)) - 1};
  loop.Run(g_world.handoff, [&] { return state.KeepRunning(); });
}

// Event benchmarks use the main thread's context and a function of their
// own.
Body g_event_body;
LLVMContextRef EventContext() {
  if (!g_event_body.module) {
    if (g_world.phase < 0)
      InitWorld();
    g_event_body.Init(g_world.main.ctx, "events");
  }
  return g_world.main.ctx;
}

void BM_BuilderEvent(benchmark::State &state, const Api *api) {
  LLVMContextRef ctx = EventContext();
  for (auto _ : state) {
    LLVMBuilderRef b = api->CreateBuilderInContext(ctx);
    benchmark::DoNotOptimize(b);
    api->DisposeBuilder(b);
  }
}

void BM_AddEvent(benchmark::State &state, const Api *api) {
  EventContext();
  Body &body = g_event_body;
  for (auto _ : state) {
    LLVMValueRef v = api->BuildAdd(body.builder, body.a, body.b, "");
    benchmark::DoNotOptimize(v);
    api->InstructionEraseFromParent(v);
  }
}

void BM_ModuleEvent(benchmark::State &state, const Api *api) {
  LLVMContextRef ctx = EventContext();
  for (auto _ : state) {
    LLVMModuleRef m = api->ModuleCreateWithNameInContext("m", ctx);
    benchmark::DoNotOptimize(m);
    api->DisposeModule(m);
  }
}

void RegisterAll() {
  struct NamedFn {
    const char *name;
    Fn fn;
  } fns[] = {{"LLVMTypeOf", Fn::TypeOf},
             {"LLVMGetValueKind", Fn::GetValueKind},
             {"LLVMGetTypeKind", Fn::GetTypeKind}};
  struct Mode {
    const char *name;
    const Api *api;
  } modes[] = {{"direct", &g_direct}, {"wrapped", &g_wrapped}};
  // Warms the CPU and the code before the first measured benchmark.
  benchmark::RegisterBenchmark("warmup", BM_Call, Fn::GetValueKind, &g_direct)
      ->Args({0, 0, 1, 1})
      ->Setup(SetupPhase)
      ->MinTime(0.5)
      ->Repetitions(1);
  for (const Phase &p : kPhases)
    for (int probes : {kProbes, 1})
      for (const NamedFn &f : fns)
        for (const Mode &m : modes)
          for (int threads : {1, 2}) {
            if (!p.full &&
                (probes != kProbes || threads != 1 || f.fn != Fn::GetValueKind))
              continue;
            std::string name = std::string("call/") + f.name + "/" + m.name;
            benchmark::RegisterBenchmark(name.c_str(), BM_Call, f.fn, m.api)
                ->ArgNames({"live", "freed", "probes", "threads"})
                ->Args({static_cast<int64_t>(p.live),
                        static_cast<int64_t>(p.freed), probes, threads})
                ->Setup(SetupPhase);
          }
  for (const NamedFn &f : fns)
    for (const Mode &m : modes) {
      std::string name = std::string("handoff/") + f.name + "/" + m.name;
      benchmark::RegisterBenchmark(name.c_str(), BM_Handoff, f.fn, m.api)
          ->ArgNames({"live", "freed", "probes"})
          ->Args({1000000, 1000000, 1})
          ->Setup(SetupPhase);
    }
  for (const Mode &m : modes) {
    std::string mode = m.name;
    benchmark::RegisterBenchmark(("event/builder/" + mode).c_str(),
                                 BM_BuilderEvent, m.api);
    benchmark::RegisterBenchmark(("event/add/" + mode).c_str(), BM_AddEvent,
                                 m.api);
    benchmark::RegisterBenchmark(("event/module/" + mode).c_str(),
                                 BM_ModuleEvent, m.api);
  }
}

} // namespace

int main(int argc, char **argv) {
  ResolveDirect();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  RegisterAll();
  benchmark::AddCustomContext("ownsan_preloaded", g_preloaded ? "yes" : "no");
  const char *opts = getenv("OWNSAN_OPTIONS");
  benchmark::AddCustomContext("OWNSAN_OPTIONS", opts ? opts : "");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0; // the parked worker thread is not joined
}
