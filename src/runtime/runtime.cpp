//===- runtime.cpp - The ownsan runtime: state machine of handles --------===//
//
// HANDLE STATES
//
//   unknown --Register/adopt--> LIVE --free--> FREED(matched) --alloc-->
//   FREED(expired)
//                                 |                  |
//                                 |                  +--LLVM returns the same
//                                 |                     address again: the old
//                                 |                     record expires, a new
//                                 |                     LIVE record starts
//                                 +--memory reallocated under an unwatched
//                                    object (it died behind our back): dropped
//
//   unknown  the program has a handle the runtime never saw LLVM hand out
//            (made by C++ code in a binding, say). Arguments that are
//            unknown are let through: nothing is known to be wrong.
//   LIVE     in the OwnershipGraph, with kind, last known parent, creating
//            call and stack. Values are watched: their granule is in the
//            live_values_ filter, which operator delete consults.
//   FREED    in the ShadowMap, keyed by the old address, with the FreeEvent
//            (freeing call, its target, stack, thread). Any use of the
//            address is reported; so is a second free.
//   expired  the record stays (reports about other objects may name it) but
//            no longer matches its address.
//   evicted  the record is gone (history_size_mb); while its address is
//            evicted-matched a use is still reported, with its kind only
//            and a note that its history is gone.
//
// WHO MAKES EACH TRANSITION
//
//   unknown -> LIVE     Register(): a wrapper saw LLVM return the handle
//                       (return value, Out parameter, out array); the
//                       parents are registered first (Classify()).
//   LIVE -> FREED       Before() of a spec'd free (the binding disposes):
//                       recorded *before* the call is forwarded, with the
//                       unwatched descendants (a context's modules and
//                       types). Watched descendants (values) follow from
//                       ValuesDied() while LLVM destroys them.
//   LIVE -> FREED       ValuesDied() / FlushDeaths(): operator delete (or
//                       the sanitizer free hook) releases a block that holds
//                       a watched value: LLVM destroyed it, during any call
//                       (a parent's dispose, a pass) or outside one. Inside
//                       a wrapped call the block is held and the deaths are
//                       recorded in a batch (DeferDeaths) at the latest when
//                       the call returns, before its after-effects and
//                       before a callback's nested call (which leaves the
//                       blocks to the call that deferred them). Every Value is
//                       deleted that way, and a block being released holds
//                       no live object, so each watched record in the block
//                       died.
//   LIVE -> FREED       UnwatchedDied(): operator delete (or the sanitizer
//                       free hook) releases a block holding an unwatched
//                       live object (a module an execution engine built in
//                       C++ deleted): it died, with its unwatched
//                       descendants, under the running call (batched with
//                       the values' deaths inside a wrapped call).
//   FREED -> expired    OnAllocation(): operator new returned memory that
//                       covers the address; or Register() saw LLVM hand the
//                       address out again.
//   FREED -> evicted    EvictHistory() (from MarkFreedSorted): the freed
//                       and dropped records, oldest first, with the free
//                       events they pay for (HistoryEntry), exceed
//                       history_size_mb; the oldest go until half of it is
//                       left. A matched address stays matched, by an entry
//                       that keeps only the kind (evicted-matched); an
//                       expired one is forgotten. Every reference to the
//                       record (parents, predecessors, builder positions,
//                       free event targets, context slots) is cleared, then
//                       its slot is reused by a new LIVE record. Not while
//                       a report reads freed records outside mu_
//                       (HistoryPin).
//   evicted-matched -> gone  as FREED -> expired, but no predecessor is
//                       named: operator new over the address, or LLVM
//                       handing it out again.
//   LIVE -> dropped     OnAllocation() over an unwatched LIVE object: it
//                       died where the runtime could not see (its memory was
//                       not released through operator delete).
//
// INVARIANTS
//
//   * An address is LIVE in at most one record and FREED-matched (by a
//     record or an evicted entry) at most once; never both.
//   * No record, event or context slot refers to an evicted record: its
//     slot may already describe another object. Freed records read outside
//     mu_ are pinned (HistoryPin) against eviction.
//   * A FREED-matched address has not been returned by operator new since
//     the object died, so it cannot name a newer object: a report on it is
//     never a false positive.
//   * No lock is held while calling into LLVM (LLVM calls back into the
//     runtime from ~Value).
//   * LLVM is only asked about objects that are alive: handles the running
//     call was given or returned, and, when an object dies, the names of
//     its values (whose deaths operator delete shows) and of its context's
//     types. Module names are kept from registration and renames.
//   * No exception leaves the runtime: its allocations end the process
//     with one line when memory runs out (OwnsanOutOfMemory).
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"

#include "fn_ids.h"
#include "interpose/real_llvm.h"
#include "interpose/signal_entry.h"
#include "observer/value_observer.h"
#include "report/python_frames.h"
#include "report/report_writer.h"
#include "report/symbolizer.h"
#include "runtime/crash_handler.h"
#include "runtime/preload_env.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

#include <llvm-c/Core.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ownsan {

std::atomic<bool> g_enabled{false};
std::atomic<uint64_t> g_signal_handler_calls{0};
std::atomic<bool> g_runtime_ready{false};

__thread ThreadCallState tls_call_state
    __attribute__((tls_model("initial-exec")));
__thread CallContext tls_call __attribute__((tls_model("initial-exec")));
__thread LastReturned tls_last_returned
    __attribute__((tls_model("initial-exec")));
std::atomic<Runtime *> g_runtime{nullptr};

namespace {
uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}
} // namespace

namespace {

// Marks the runtime's own work on this thread: nested wrapped calls are not
// checked and the allocation hook ignores the runtime's own allocations.
// A signal handler's wrapped call that interrupts the work is forwarded
// unchecked too, so the per-thread state the runtime changes (batches,
// caches, call contexts) and the locks it holds are never re-entered: every
// change to them happens inside a section (the fences keep the compiler from
// moving it out).
class RuntimeSection {
public:
  RuntimeSection() : state_(CurrentThreadCallState()), was_(state_.in_runtime) {
    state_.in_runtime = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~RuntimeSection() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    state_.in_runtime = was_;
  }

private:
  ThreadCallState &state_;
  bool was_;
};

CallContext &CurrentCall() { return tls_call; }
} // namespace

// Read by the crash handler in a signal handler: thread-locals only.
const char *CurrentWrappedCallName(bool *in_runtime) {
  const ThreadCallState &state = CurrentThreadCallState();
  *in_runtime = state.in_runtime;
  if (state.depth == 0)
    return nullptr;
  FnId fn = CurrentCall().fn;
  return fn < kFnCount ? kFnInfo[fn].name : "an LLVM-C call";
}

namespace {

// Text ranges of code whose frames are not the program's: ownsan itself,
// the observer and libLLVM. Leading frames there are dropped from stacks.
struct CodeRange {
  uintptr_t lo, hi;
  bool llvm; ///< libLLVM's
};
Mutex g_ranges_mu(absl::kConstInit);
// Append-only and read without a lock on every stack capture: entries are
// written before the count that publishes them.
constexpr int kMaxRanges = 32;
CodeRange g_ranges[kMaxRanges];
std::atomic<int> g_range_count{0};

void AddCodeRangesOf(const void *addr_in_module, bool llvm = false) {
  Dl_info info;
  if (!dladdr(addr_in_module, &info))
    return;
  struct Arg {
    const void *base;
    std::vector<CodeRange> found;
  } arg{info.dli_fbase, {}};
  dl_iterate_phdr(
      [](dl_phdr_info *pi, size_t, void *data) {
        auto *a = static_cast<Arg *>(data);
        for (int i = 0; i < pi->dlpi_phnum; ++i) {
          const auto &ph = pi->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
          uintptr_t lo = pi->dlpi_addr + ph.p_vaddr;
          if (reinterpret_cast<uintptr_t>(a->base) > lo + ph.p_memsz ||
              reinterpret_cast<uintptr_t>(a->base) + 0x100000000ull < lo)
            continue;
          // Same object: the base must be this object's load address.
          Dl_info di;
          if (dladdr(reinterpret_cast<void *>(lo), &di) &&
              di.dli_fbase == a->base)
            a->found.push_back({lo, lo + ph.p_memsz, false});
        }
        return 0;
      },
      &arg);
  MutexLock lock(&g_ranges_mu);
  for (auto r : arg.found) {
    int n = g_range_count.load(std::memory_order_relaxed);
    if (n == kMaxRanges)
      break;
    r.llvm = llvm;
    g_ranges[n] = r;
    g_range_count.store(n + 1, std::memory_order_release);
  }
}

// Is `pc` in a recorded range (of libLLVM only, if `llvm_only`)?
bool InCodeRanges(uintptr_t pc, bool llvm_only) {
  int n = g_range_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if ((g_ranges[i].llvm || !llvm_only) && pc >= g_ranges[i].lo &&
        pc < g_ranges[i].hi)
      return true;
  return false;
}
bool IsInternalPc(uintptr_t pc) { return InCodeRanges(pc, false); }
bool IsLLVMPc(uintptr_t pc) { return InCodeRanges(pc, true); }

const char *FnName(FnIndex fn) {
  return fn < kFnCount ? kFnInfo[fn].name : "<none>";
}

bool FreesArg(FnId fn, unsigned arg) {
  const FnInfo &info = kFnInfo[fn];
  for (unsigned i = 0; i < info.num_effects; ++i) {
    EffectKind k = info.effects[i].kind;
    if (info.effects[i].arg == arg &&
        (k == EffectKind::Free || k == EffectKind::FreeAttached ||
         k == EffectKind::FreeDetached))
      return true;
  }
  return false;
}

} // namespace

namespace {
// Calls Release(value) when the calling thread exits (one pthread key for
// each Release).
template <void (*Release)(void *)> void ReleaseAtThreadExit(const void *value) {
  static pthread_key_t key;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] { pthread_key_create(&key, Release); });
  pthread_setspecific(key, value);
}

// Per-thread call counters for the exit statistics: each thread that makes
// a checked call lists its counter here; a thread that exits folds its
// count into the total. (Threads of the parent are gone after a fork: their
// entries are dropped in the child, their calls stay in the total.)
Mutex g_thread_calls_mu(absl::kConstInit);
std::vector<const std::atomic<uint64_t> *> *
    g_thread_calls ABSL_GUARDED_BY(g_thread_calls_mu);
uint64_t g_exited_thread_calls ABSL_GUARDED_BY(g_thread_calls_mu) = 0;

void ForgetThreadCalls(void *counter) {
  // (Runs on the exiting thread: the counter is its own.)
  auto *c = static_cast<std::atomic<uint64_t> *>(counter);
  RuntimeSection section;
  MutexLock lock(&g_thread_calls_mu);
  auto &v = *g_thread_calls;
  v.erase(std::remove(v.begin(), v.end(), c), v.end());
  g_exited_thread_calls += c->load(std::memory_order_relaxed);
  // Case: a destructor that runs after this one on the thread (another
  // thread-specific key's, a thread_local's) makes more checked calls: the
  // first of them counts as the thread's first again and lists the counter
  // anew, and pthread runs this destructor once more.
  c->store(0, std::memory_order_relaxed);
}

// Checked calls made so far by every thread.
uint64_t TotalCalls() {
  MutexLock lock(&g_thread_calls_mu);
  uint64_t n = g_exited_thread_calls;
  if (g_thread_calls)
    for (const std::atomic<uint64_t> *c : *g_thread_calls)
      n += c->load(std::memory_order_relaxed);
  return n;
}

// In a fork child: the other threads' counters stop (their threads are not
// here); their counts so far stay in the total.
void ForkThreadCalls() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (!g_thread_calls)
    return;
  const std::atomic<uint64_t> *mine = &tls_call_state.calls;
  for (const std::atomic<uint64_t> *c : *g_thread_calls)
    if (c != mine)
      g_exited_thread_calls += c->load(std::memory_order_relaxed);
  g_thread_calls->clear();
  if (mine->load(std::memory_order_relaxed))
    g_thread_calls->push_back(mine);
}

} // namespace

void NoteFirstCall() {
  RuntimeSection section;
  const std::atomic<uint64_t> *c = &tls_call_state.calls;
  {
    MutexLock lock(&g_thread_calls_mu);
    if (!g_thread_calls)
      g_thread_calls = new std::vector<const std::atomic<uint64_t> *>;
    // Case: a signal handler's first call came between this thread's first
    // call's count and its listing: both saw the count 1.
    if (std::find(g_thread_calls->begin(), g_thread_calls->end(), c) !=
        g_thread_calls->end())
      return;
    g_thread_calls->push_back(c);
  }
  ReleaseAtThreadExit<ForgetThreadCalls>(c);
}

uint32_t CurrentThreadNumber() {
  static std::atomic<uint32_t> next{1};
  // number + 1; 0 until first asked (a trivial thread_local: no guard).
  static thread_local uint32_t number_plus_one
      __attribute__((tls_model("initial-exec"))) = 0;
  if (__builtin_expect(number_plus_one == 0, 0)) {
    uint32_t n = (static_cast<uint32_t>(syscall(SYS_gettid)) ==
                          static_cast<uint32_t>(getpid())
                      ? 0u
                      : next.fetch_add(1)) +
                 1;
    // (A signal handler's call may have numbered the thread meanwhile.)
    if (number_plus_one == 0)
      number_plus_one = n;
  }
  return number_plus_one - 1;
}

//===----------------------------------------------------------------------===//
// Start-up
//===----------------------------------------------------------------------===//

Runtime &Runtime::Create() {
  static Runtime *runtime = new Runtime; // never destroyed: used until exit
  g_runtime.store(runtime, std::memory_order_release);
  return *runtime;
}

Runtime::Runtime()
    : tracked_pages_(24, 4), live_values_(24, 3), dangling_builders_(16, 0),
      quarantine_(0) {
  RuntimeSection section;
  const char *opts = getenv("OWNSAN_OPTIONS");
  std::string error;
  if (opts && !ParseFlags(opts, &flags_, &error))
    Fatal(error);
  if (flags_.help) {
    std::string text =
        "ownsan options (OWNSAN_OPTIONS=key=value:...):\n" + FlagsMarkdown();
    (void)!write(2, text.data(), text.size());
    _exit(0);
  }
  AddCodeRangesOf(reinterpret_cast<void *>(&FnName));
  empty_stack_ = depot_.Put(StackTrace{});
  {
    MutexLock lock(&quarantine_mu_);
    quarantine_ = Quarantine(size_t(flags_.quarantine_size_mb) << 20);
    history_limit_ = size_t(flags_.history_size_mb) << 20;
  }
  // Calls that insert at a builder's insertion point.
  uses_insertion_point_.resize(kFnCount);
  context_exempt_args_.resize(kFnCount);
  is_cast_.resize(kFnCount);
  for (unsigned f = 0; f < kFnCount; ++f) {
    // LLVMIsA* hand back their argument (or NULL): nothing new to learn,
    // and the argument may be anything the program chose to test.
    is_cast_[f] = std::string(kFnInfo[f].name).rfind("LLVMIsA", 0) == 0;
    for (unsigned e = 0; e < kFnInfo[f].num_effects; ++e) {
      const Effect &effect = kFnInfo[f].effects[e];
      if (effect.kind == EffectKind::SerializedBy)
        context_exempt_args_[f] = ~uint64_t{0};
      else if (effect.kind == EffectKind::DataOnly && effect.arg < 64)
        context_exempt_args_[f] |= uint64_t{1} << effect.arg;
    }
    std::string name = kFnInfo[f].name;
    uses_insertion_point_[f] =
        name.rfind("LLVMBuild", 0) == 0 ||
        name.rfind("LLVMInsertIntoBuilder", 0) == 0 ||
        name == "LLVMInsertExistingBasicBlockAfterInsertBlock";
  }
  if (!flags_.suppressions.empty()) {
    MutexLock lock(&report_mu_);
    if (!suppressions_.Load(flags_.suppressions, &error))
      Fatal(error);
  }
  // Reports go to the stderr the process started with, even if the program
  // later points fd 2 elsewhere (pytest captures it during each test).
  report_fd_ = fcntl(2, F_DUPFD_CLOEXEC, 100);
  if (report_fd_ < 0)
    report_fd_ = 2;
  // absl's deadlock detector costs time on every lock and misreads locks
  // re-created in a fork() child; the runtime's lock order is fixed.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Registered first, so it runs last: after the program's own handlers.
  atexit([] { Runtime::Get().OnExit(); });
}

void Runtime::Fatal(const std::string &message) {
  std::string line =
      absl::StrCat("==", getpid(), "==ERROR: OwnSan: ", message, "\n");
  (void)!write(2, line.data(), line.size());
  _exit(1);
}

void Runtime::OnLibLLVMFound(const std::string &path, int major) {
  RuntimeSection section;
  void *llvm_fn = RealDlsym(RTLD_DEFAULT, "LLVMContextCreate");
  if (void *h = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    if (void *f = RealDlsym(h, "LLVMContextCreate"))
      llvm_fn = f;
  }
  if (llvm_fn)
    AddCodeRangesOf(llvm_fn, /*llvm=*/true);
  // The observer sits next to this library.
  Dl_info self;
  std::string dir;
  if (dladdr(reinterpret_cast<void *>(&FnName), &self) && self.dli_fname) {
    dir = self.dli_fname;
    dir = dir.substr(0, dir.rfind('/') + 1);
  }
  std::string observer = dir + "libownsan_observer.so";
  void *h = dlopen(observer.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h)
    Fatal(absl::StrCat("cannot load ", observer, ": ", dlerror()));
  auto init = reinterpret_cast<ownsan_observer_init_fn>(
      RealDlsym(h, "ownsan_observer_init"));
  if (!init)
    Fatal(absl::StrCat(observer, " lacks the observer entry points"));
  int observer_major = init();
  if (observer_major != major)
    Fatal(absl::StrCat(observer, " was built for LLVM ", observer_major,
                       " but the process uses LLVM ", major));
  AddCodeRangesOf(reinterpret_cast<void *>(init));
  if (flags_.handle_segv && !flags_.forward_only)
    InstallCrashHandler(report_fd_, flags_.log_path.c_str());
  observer_copy_ = reinterpret_cast<ownsan_observer_copy_buffer_fn>(
      RealDlsym(h, "ownsan_observer_copy_buffer"));
  if (flags_.verbosity >= 1) {
    std::string line = absl::StrCat("==", getpid(), "==OwnSan: using ", path,
                                    " (LLVM ", major, ")\n");
    (void)!write(2, line.data(), line.size());
  }
}

//===----------------------------------------------------------------------===//
// Stacks and free events
//===----------------------------------------------------------------------===//

namespace {
// Stacks this thread stored, with their depot ids, by hash (direct-mapped,
// 128 entries). A call site that runs in a loop (creating objects, or
// claiming a context that changed threads) finds its stack here: no depot
// lock, no hashing of vectors, no allocation. A binding copying a module
// cycles through a few dozen to a hundred call sites. Exact: an entry is
// used only for the very same frames. The cache (26 KiB) is taken for a
// thread when it first captures a stack and given back when it exits, not
// kept in thread-local storage: glibc takes that from each thread's stack,
// and a thread created with a small stack must still start. Caches given
// back are reused by the next threads (a few are kept; their entries name
// process-wide depot ids, valid on any thread), so short threads cost no
// mapping each.
constexpr int kCachedFrames = 24; // the default malloc_context_size
constexpr unsigned kStackCacheBits = 7;
struct CachedStack {
  uint64_t hash;
  uint32_t n;
  StackId id; ///< 0: empty entry
  uintptr_t pcs[kCachedFrames];
};
struct StackCache {
  CachedStack entry[1u << kStackCacheBits];
};
__thread StackCache *tls_stack_cache __attribute__((tls_model("initial-exec")));

// Caches of exited threads, for the next threads (a leaf lock; taken only
// in runtime sections, so a signal handler's wrapped call meanwhile is
// forwarded unchecked and never waits for it).
constexpr int kSpareStackCaches = 8;
Mutex g_spare_stack_caches_mu(absl::kConstInit);
StackCache *g_spare_stack_caches[kSpareStackCaches] ABSL_GUARDED_BY(
    g_spare_stack_caches_mu);
int g_spare_stack_cache_count ABSL_GUARDED_BY(g_spare_stack_caches_mu) = 0;

void ReleaseStackCache(void *p) {
  // (A destructor that runs later on this thread and captures a stack takes
  // a cache again, which pthread releases on its next round of
  // destructors.)
  RuntimeSection section;
  tls_stack_cache = nullptr;
  auto *cache = static_cast<StackCache *>(p);
  {
    MutexLock lock(&g_spare_stack_caches_mu);
    if (g_spare_stack_cache_count < kSpareStackCaches) {
      g_spare_stack_caches[g_spare_stack_cache_count++] = cache;
      return;
    }
  }
  InternalUnmapBlock(cache, sizeof(StackCache));
}

CachedStack &StackCacheEntry(uint64_t hash) {
  StackCache *cache = tls_stack_cache;
  if (__builtin_expect(cache == nullptr, 0)) {
    {
      MutexLock lock(&g_spare_stack_caches_mu);
      if (g_spare_stack_cache_count > 0)
        cache = g_spare_stack_caches[--g_spare_stack_cache_count];
    }
    if (!cache)
      cache = static_cast<StackCache *>(
          InternalMapBlock(sizeof(StackCache), /*huge_pages=*/false));
    tls_stack_cache = cache;
    ReleaseAtThreadExit<ReleaseStackCache>(cache);
  }
  return cache->entry[hash >> (64 - kStackCacheBits)];
}

uint64_t HashFrames(const uintptr_t *pcs, int n) {
  uint64_t h = 0x9E3779B97F4A7C15ull * (n + 1);
  for (int i = 0; i < n; ++i)
    h = (h ^ pcs[i]) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}
} // namespace

StackId Runtime::CaptureStack(bool from_inside_llvm, bool dwarf) {
  // The stack and the depot allocate and free memory (the depot under its
  // lock): the allocation hooks must not come back into the runtime (freed
  // memory can hold filter bits, and recording a death captures a stack).
  RuntimeSection section;
  int depth = flags_.malloc_context_size;
  // Stacks off: nothing to unwind (the depot gives the empty stack an id).
  if (depth == 0)
    return empty_stack_;
  // Frames inside libLLVM have no frame pointers: unwind with DWARF there.
  bool fast = flags_.fast_unwind && !from_inside_llvm && !dwarf;
  constexpr int kMaxRaw = 256;
  uintptr_t raw[kMaxRaw];
  int n = CaptureNativeStack(raw, kMaxRaw, 0, depth + 32, fast);
  int i = 0;
  if (from_inside_llvm) {
    // Case: a death seen in an allocator's free path (ownsan's operator
    // delete, or a sanitizer's free hook, whose code may be linked into the
    // program): the frames before LLVM's are the allocator's.
    int first_llvm = 0;
    while (first_llvm < n && !IsLLVMPc(raw[first_llvm]))
      ++first_llvm;
    if (first_llvm < n)
      i = first_llvm;
  }
  while (i < n && IsInternalPc(raw[i]))
    ++i;
  const uintptr_t *pcs = raw + i;
  int kept = std::min(n - i, depth);
  StackTrace st;
  if (flags_.python_frames)
    CapturePythonFrames(&st.py_frames, depth);
  // Only native-only stacks are cached (Python frames are part of a
  // stack's identity).
  bool cacheable = st.py_frames.empty() && kept <= kCachedFrames;
  uint64_t hash = 0;
  if (cacheable) {
    hash = HashFrames(pcs, kept);
    const CachedStack &c = StackCacheEntry(hash);
    if (c.id && c.hash == hash && c.n == static_cast<uint32_t>(kept) &&
        std::equal(pcs, pcs + kept, c.pcs))
      return c.id;
  }
  st.pcs.assign(pcs, pcs + kept);
  StackId id = depot_.Put(std::move(st));
  if (cacheable) {
    CachedStack &c = StackCacheEntry(hash);
    c.hash = hash;
    c.n = kept;
    c.id = id;
    std::copy(pcs, pcs + kept, c.pcs);
  }
  return id;
}

StackId Runtime::CurrentCallStack() {
  CallContext &call = CurrentCall();
  if (call.fn == kNoFn)
    return CaptureStack(false);
  if (call.stack == 0)
    call.stack = CaptureStack(false);
  return call.stack;
}

namespace {
// A new event of this thread. The events its running call may still record
// deaths with stay held; in a nested call (a callback), whose outer calls'
// events are saved out of sight, every one does.
FreeEvent *NewThreadFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                              const char *detail);
} // namespace

FreeEvent *Runtime::CurrentFreeEvent(ObjectRecord *target) {
  RuntimeSection section; // (events come from a pool under a lock)
  CallContext &call = CurrentCall();
  if (call.fn == kNoFn) {
    if (!call.orphan_event)
      call.orphan_event =
          NewThreadFreeEvent(kNoFn, nullptr, CaptureStack(true), "");
    return call.orphan_event;
  }
  if (!call.event) {
    // Deleted by LLVM in the middle of a call: we are deep inside libLLVM
    // unless the call's stack was taken before it was forwarded.
    StackId stack = call.stack ? call.stack : CaptureStack(target == nullptr);
    if (!call.stack && target)
      call.stack = stack;
    call.event = NewThreadFreeEvent(call.fn, target, stack, call.cause_text);
  }
  return call.event;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace {
// Call contexts of outer calls while a nested call (from a callback) runs.
constexpr int kMaxNesting = 8;
struct SavedCalls {
  CallContext saved[kMaxNesting];
  int depth = 0;
};
SavedCalls &CurrentSavedCalls() {
  static thread_local SavedCalls saved
      __attribute__((tls_model("initial-exec")));
  return saved;
}
} // namespace

// Jumps out of wrapped calls (longjmp from a diagnostic or fatal-error
// handler, siglongjmp from a SIGFPE handler in JIT code) skip the scopes'
// destructors: their call contexts stay current, their context claims held.
// A scope is known open or left by its frame: an open scope encloses every
// later one, so on one stack (which grows down) it lies above it.
// longjmp & co. close the scopes between the jump and its target first
// (BeforeJump); jumps no libc function sees are found when the next call
// starts below a left scope (EnterNested) or an enclosing call returns.
namespace {
// Farther apart than this, two frames are not on one stack.
constexpr uintptr_t kMaxStackSpan = uintptr_t(1) << 30;

// Was the scope at `frame` left, seen from a scope being entered at `here`?
bool ScopeLeft(const void *frame, const void *here) {
  uintptr_t f = reinterpret_cast<uintptr_t>(frame),
            h = reinterpret_cast<uintptr_t>(here);
  if (f >= h || h - f > kMaxStackSpan)
    return false;
  // Case: a signal handler running on the alternate signal stack, which may
  // lie above the thread's stack: calls it interrupted are open.
  stack_t alt;
  if (sigaltstack(nullptr, &alt) == 0 && (alt.ss_flags & SS_ONSTACK)) {
    uintptr_t lo = reinterpret_cast<uintptr_t>(alt.ss_sp);
    return f >= lo && f - lo < alt.ss_size;
  }
  return true;
}

// Closes the current call context as its scope's destructor would have:
// records its pending deaths, releases its context claim and makes the
// outer call's context current.
void CloseCurrentScope() {
  if (tls_call_state.pending_deaths)
    Runtime::Get().FlushDeaths();
  CallContext &call = tls_call;
  call.fn = kNoFn;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (call.entered) {
    call.entered->store(0, std::memory_order_release);
    call.entered = nullptr;
  }
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth > 0) {
    call = s.saved[s.depth - 1];
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --s.depth;
  } else {
    call = CallContext{};
  }
}

// After CloseCurrentScope(): the thread's nesting depth, from the scope
// that is current now (unchecked scopes inside it were left too).
void RecountDepth() {
  const CallContext &call = tls_call;
  if (call.fn != kNoFn)
    tls_call_state.depth = call.level + 1;
  else if (CurrentSavedCalls().depth == 0)
    tls_call_state.depth = 0;
}
} // namespace

bool CallScope::EnterNested(const void *caller_pc) {
  ThreadCallState &state = tls_call_state;
  CallContext &call = tls_call;
  if (call.fn != kNoFn && ScopeLeft(call.frame, this)) {
    // Case: the current call was left by a jump no libc function saw
    // (__builtin_longjmp, a language runtime's own unwinding).
    do
      CloseCurrentScope();
    while (call.fn != kNoFn && ScopeLeft(call.frame, this));
    RecountDepth();
    if (state.depth == 0) {
      // No call is open after all: this one is the outermost.
      level_ = 0;
      state.depth = 1;
      nested_ = false;
      Publish(caller_pc);
      return true;
    }
    level_ = state.depth;
    state.depth = level_ + 1;
  }
  // The outer call's deaths are recorded under its own event, before the
  // callback's call looks at any handle; their blocks stay held until the
  // outer call releases them (this call may come from a signal handler that
  // interrupted free()).
  if (state.pending_deaths)
    Runtime::Get().FlushDeaths(/*release=*/false);
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth == kMaxNesting)
    return false; // too deep: forwarded unchecked
  // (Saved before it counts, so that a signal handler's call in between
  // saves into the next slot, not over this one.)
  s.saved[s.depth] = call;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ++s.depth;
  call.fn = kNoFn;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  call.context = nullptr;
  call.context_arg = 0;
  call.entered = nullptr;
  call.cause_text = nullptr;
  Publish(caller_pc);
  return true;
}

void CallScope::LeaveNested() {
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth > 0) {
    // (Copied before the slot is freed: see EnterNested.)
    tls_call = s.saved[s.depth - 1];
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --s.depth;
  }
}

bool CallScope::CloseScopesInside() {
  const SavedCalls &s = CurrentSavedCalls();
  const CallContext &call = tls_call;
  bool open = call.fn != kNoFn && call.frame == this;
  for (int i = 0; i < s.depth && !open; ++i)
    open = s.saved[i].fn != kNoFn && s.saved[i].frame == this;
  if (!open)
    return false; // (closed as left: a jump's target was misjudged)
  while (call.fn == kNoFn || call.frame != this)
    CloseCurrentScope();
  return true;
}

void CallScope::BeforeJump(uintptr_t target, uintptr_t here) {
  ThreadCallState &state = tls_call_state;
  // Case: the jump leaves the runtime's own work (a signal handler that
  // jumps out of anything): its locks may be held; nothing can be undone.
  if (state.depth == 0 || state.in_runtime)
    return;
  // Only a jump up this stack closes scopes here; the others (off a signal
  // stack, between coroutines) are left to EnterNested.
  if (target <= here || target - here > kMaxStackSpan)
    return;
  const CallContext &call = tls_call;
  bool closed = false;
  while (call.fn != kNoFn) {
    uintptr_t f = reinterpret_cast<uintptr_t>(call.frame);
    if (f < here || f >= target)
      break; // the jump's target is inside this call
    CloseCurrentScope();
    closed = true;
  }
  if (closed)
    RecountDepth();
}

namespace {
// Can a handle of C type `type` name an object of kind `k`?
bool Compatible(ObjectKind k, HandleType type) {
  switch (type) {
  case HandleType::Other:
    return true;
  case HandleType::Context:
    return k == ObjectKind::Context;
  case HandleType::Module:
    return k == ObjectKind::Module;
  case HandleType::Type:
    return k == ObjectKind::Type;
  case HandleType::Builder:
    return k == ObjectKind::Builder;
  case HandleType::MemoryBuffer:
    return k == ObjectKind::MemoryBuffer;
  case HandleType::BasicBlock:
    return k == ObjectKind::BasicBlock;
  case HandleType::Value:
    return IsValueKind(k);
  case HandleType::Error:
    return k == ObjectKind::Opaque;
  }
  return true;
}
} // namespace

namespace {
// A per-thread cache of live records: records never move and their slots
// are never unmapped (an evicted record's slot is reused), so a cached
// pointer is safe to read; it is valid while it still names a live object
// at that address (the record's own `addr` and `state` say so: nothing
// has to invalidate another thread's entries).
//
// An entry is one word: the record's address shifted up 16 bits, and a
// 16-bit tag from the handle's hash below it (never 0; 0 is an empty way).
// The tag only picks the candidate; the record confirms it. Eight ways
// fill one cache line, so a set holds eight hot handles and the whole
// cache, 128 sets, is 8 KiB per thread (it lives in static TLS, which
// glibc takes from every thread's stack).
constexpr unsigned kRecordCacheBits = 7;
constexpr int kRecordCacheWays = 8;
struct alignas(64) RecordCacheSet {
  uint64_t way[kRecordCacheWays];
};
__thread RecordCacheSet tls_record_cache[1u << kRecordCacheBits]
    __attribute__((tls_model("initial-exec")));

struct RecordCacheSlot {
  RecordCacheSet &set;
  uint64_t tag;
};
inline RecordCacheSlot RecordCacheSlotOf(const void *h) {
  // Fibonacci hashing: LLVM lays objects out at regular strides (an
  // instruction every 288 bytes), which a plain slice of address bits maps
  // onto a fraction of the sets. The set takes the top bits, the tag the
  // 16 below them.
  uint64_t x = reinterpret_cast<uintptr_t>(h) * 0x9E3779B97F4A7C15ull;
  return {tls_record_cache[x >> (64 - kRecordCacheBits)],
          ((x >> (48 - kRecordCacheBits)) & 0xFFFF) | 1};
}
inline ObjectRecord *CachedRecordOf(uint64_t entry) {
  return reinterpret_cast<ObjectRecord *>(entry >> 16);
}

// The live record at `h` if this thread's cache has it; no lock. (Always
// inlined: it is most of every checked call.)
[[gnu::always_inline]] inline ObjectRecord *CachedLive(const void *h) {
  auto [set, tag] = RecordCacheSlotOf(h);
  for (uint64_t e : set.way)
    if ((e & 0xFFFF) == tag) {
      ObjectRecord *r = CachedRecordOf(e);
      if (__atomic_load_n(&r->addr, __ATOMIC_RELAXED) == h) {
        if (r->state.load(std::memory_order_acquire) != ObjectState::Live)
          return nullptr;
        // An evicted slot reused for another object since this entry was
        // made says Live only after its new address was written.
        return __atomic_load_n(&r->addr, __ATOMIC_RELAXED) == h ? r : nullptr;
      }
      // (a tag shared with another handle: look on)
    }
  return nullptr;
}

// Remembers the live record `r` of `h` (nothing when r is nullptr: a miss
// costs the same) in the first way: a handle just looked up or handed out
// is the likeliest to be used next. The entry it displaces takes the place
// of `h`'s old entry, an empty way or a random older one. (Always evicting
// the oldest would make nine handles used in turn that share a set miss on
// every call.)
__thread uint32_t tls_record_cache_rng
    __attribute__((tls_model("initial-exec")));
inline void CacheRecord(const void *h, ObjectRecord *r) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(r);
  if (!r || bits >> 48)
    return; // (an address above 2^48 does not fit an entry: not cached)
  auto [set, tag] = RecordCacheSlotOf(h);
  int victim = -1;
  for (int i = 0; i < kRecordCacheWays; ++i) {
    uint64_t e = set.way[i];
    if (!e || ((e & 0xFFFF) == tag && __atomic_load_n(&CachedRecordOf(e)->addr,
                                                      __ATOMIC_RELAXED) == h)) {
      victim = i;
      break;
    }
  }
  if (victim < 0) {
    uint32_t x = tls_record_cache_rng + 0x9E3779B9u; // (a Weyl sequence,
    tls_record_cache_rng = x;                        // scrambled below)
    x ^= x >> 16;
    x *= 0x7feb352du;
    victim = 1 + static_cast<int>((x >> 24) % (kRecordCacheWays - 1));
  }
  if (victim > 0)
    set.way[victim] = set.way[0];
  set.way[0] = (static_cast<uint64_t>(bits) << 16) | tag;
}
} // namespace

inline bool Runtime::CheckHandle(FnId fn, unsigned arg, const void *h,
                                 HandleType type) {
  // Fast path: a handle naming a live object of a kind the parameter can
  // take. A live address is never freed-matched too (see INVARIANTS), so
  // the shadow map has nothing to say; what is left is the context (or, for
  // a builder, its insertion point).
  if (type == HandleType::Other) {
    // Case: an untyped handle (an array or iterator LLVM handed out) that
    // names a live object: nothing else to check.
    if (CachedLive(h))
      return false;
  } else {
    ObjectRecord *r = CachedLive(h);
    if (r && Compatible(r->kind, type)) {
      if (type == HandleType::Builder)
        return uses_insertion_point_[fn] &&
               dangling_builders_.MaybeContains(h) &&
               CheckInsertionPoint(fn, arg, h);
      if (ContextUse *use = r->context_use;
          use && type != HandleType::MemoryBuffer && !ContextExempt(fn, arg))
        return CheckContext(fn, arg, h, r, use);
      return false;
    }
  }
  return CheckHandleSlow(fn, arg, h, type);
}

ObjectRecord *Runtime::LookupLive(const void *h) {
  if (ObjectRecord *r = CachedLive(h))
    return r;
  if (!MaybeLive(h))
    return nullptr; // (no filter bit: never registered)
  RuntimeSection section;
  ObjectRecord *r;
  {
    ReaderMutexLock lock(&mu_);
    r = graph_.Find(h);
  }
  CacheRecord(h, r);
  return r;
}

bool Runtime::CheckHandleSlow(FnId fn, unsigned arg, const void *h,
                              HandleType type) {
  // The shadow map's filter is atomic and read without the lock, by design
  // (core/shadow_map.h); what it lets through is looked up under the lock.
  if (ABSL_TS_UNCHECKED_READ(shadow_).MaybeContains(h)) {
    RuntimeSection section;
    ObjectRecord *freed = nullptr, *now = nullptr;
    ShadowMap::EvictedObject evicted;
    bool was_evicted = false;
    HistoryPin pin(this);
    {
      MutexLock lock(&mu_);
      freed = shadow_.Find(h);
      if (!freed)
        was_evicted =
            shadow_.FindEvicted(h, &evicted) && Compatible(evicted.kind, type);
      // Case: a freed object of a kind this parameter cannot name. Its
      // memory may hold an object LLVM made with malloc (memory buffers),
      // which the allocation hook does not see: say nothing.
      if (freed && !Compatible(freed->kind, type))
        freed = nullptr;
      if (!freed && type != HandleType::Other) {
        // Case: LLVM has handed the address to a new object, but of a kind
        // this parameter cannot take, and an object of the right kind died
        // here before: the handle is that dead object's stale copy.
        ObjectRecord *live = graph_.Find(h);
        if (live && !Compatible(live->kind, type))
          for (ObjectRecord *p = live->rare().previous; p && !freed;
               p = p->rare().previous)
            if (Compatible(p->kind, type)) {
              freed = p;
              now = live;
            }
      }
      if (freed)
        pin.Take(); // (read below, without the lock)
    }
    if (was_evicted)
      return ReportEvicted(fn, arg, h, evicted);
    if (freed && FreesArg(fn, arg) && freed->kind == ObjectKind::Opaque &&
        !freed->owned_by_other && freed->freed &&
        freed->freed->target != freed && !freed->freed->consumed) {
      // Case: an object that died with its owner but is a separate
      // allocation (a section iterator after LLVMDisposeObjectFile): using
      // it is a use after free, disposing it once is not.
      MutexLock lock(&mu_);
      if (!freed->rare().disposed_late) {
        freed->MutableRare().disposed_late = true;
        return false;
      }
    }
    if (freed) {
      // Case: the handle names an object that died, and no object has been
      // created at its address since (the quarantine holds the memory).
      // Any use is a use after free; a second free is a double free.
      ErrorKind kind =
          FreesArg(fn, arg) ? ErrorKind::DoubleFree : ErrorKind::UseAfterFree;
      if (freed->freed && freed->freed->consumed)
        kind = ErrorKind::UseAfterConsume;
      ErrorReport rep = NewReport(kind, freed, h, fn, arg);
      rep.related = now;
      return Report(std::move(rep));
    }
  }
  if (type == HandleType::Builder && uses_insertion_point_[fn] &&
      dangling_builders_.MaybeContains(h))
    return CheckInsertionPoint(fn, arg, h);
  if (type != HandleType::Other && type != HandleType::Builder &&
      type != HandleType::MemoryBuffer && !ContextExempt(fn, arg)) {
    ObjectRecord *r = LookupLive(h);
    if (r && r->context_use)
      return CheckContext(fn, arg, h, r, r->context_use);
  }
  return false;
}

bool Runtime::ReportEvicted(FnId fn, unsigned arg, const void *h,
                            ShadowMap::EvictedObject what) {
  // Case: the handle names an object that died and whose address is still
  // unreused, but whose record was evicted (history_size_mb): what it was
  // is all that is left.
  ObjectRecord stand_in;
  stand_in.addr = h;
  stand_in.kind = what.kind;
  stand_in.state = ObjectState::Evicted;
  ErrorKind kind = FreesArg(fn, arg) ? ErrorKind::DoubleFree
                   : what.consumed   ? ErrorKind::UseAfterConsume
                                     : ErrorKind::UseAfterFree;
  ErrorReport rep = NewReport(kind, &stand_in, h, fn, arg);
  rep.history_evicted = true;
  rep.note = absl::StrCat(
      "its history is gone: it was freed long enough ago that its record "
      "was evicted to keep the history of freed objects within "
      "history_size_mb=",
      flags_.history_size_mb, "; a larger history_size_mb keeps more");
  return Report(std::move(rep));
}

namespace {
// See "Context concurrency" below.
constexpr uint32_t kStackClaimsAfterHandoff = 256;
} // namespace

// Context concurrency: the first handle of a call that belongs to a context
// claims the context for the thread until the call returns (active_thread).
// Another thread finding it claimed is inside a call on the same context at
// the same time: a race. Claims are lock-free. Each time a thread takes
// over a context another thread used last (a hand-off), the next
// kStackClaimsAfterHandoff claims record their stacks, so a race report
// can show both threads; threads that take turns keep recording. A context
// one thread has used alone since then records only each claim's calling
// frame (a stack capture is most of such a call's cost), as a context that
// never changed threads does.
bool Runtime::CheckContext(FnId fn, unsigned arg, const void *h,
                           ObjectRecord *r, ContextUse *use) {
  CallContext &call = CurrentCall();
  ObjectRecord *ctx = use->record;
  if (call.context) {
    if (call.context == ctx)
      return false;
    // Case: two handles of one call belong to different contexts (a type
    // of the global context in a module of another context, say).
    return ReportCrossContext(fn, arg, h, r, ctx);
  }
  call.context = ctx;
  call.context_arg = arg;
  uint32_t me = CurrentThreadNumber() + 1;
  uint32_t active = use->active_thread.load(std::memory_order_acquire);
  if (active == me)
    return false; // an outer call on this thread (a callback) has it
  if (active != 0)
    // Case: another thread is inside an LLVM-C call on this context now.
    return ReportContextRace(fn, arg, r, use, active);
  // Case: the context is free (or already ours): claim it for this call.
  uint32_t last = use->last_thread.load(std::memory_order_relaxed);
  if (last != me) {
    // Sequential hand-off to another thread is fine; remember it, so the
    // next claims record their stacks.
    if (last != 0)
      use->stack_claims_left.store(kStackClaimsAfterHandoff + 1,
                                   std::memory_order_relaxed);
    use->last_thread.store(me, std::memory_order_relaxed);
  }
  // Before the claim is visible: a thread that finds the claim reads them.
  use->active_fn.store(fn, std::memory_order_relaxed);
  use->active_pc.store(call.caller_pc, std::memory_order_relaxed);
  use->active_thread.store(me, std::memory_order_release);
  call.entered = &use->active_thread;
  if (uint32_t left = use->stack_claims_left.load(std::memory_order_relaxed)) {
    use->stack_claims_left.store(left - 1, std::memory_order_relaxed);
    if (left > 1)
      RecordClaimStack(use);
    else
      // Case: the last recorded claim's stack is not this claim's; from
      // now on a report shows the calling frame (active_pc) instead.
      use->active_stack.store(0, std::memory_order_relaxed);
  }
  return false;
}

bool Runtime::ReportCrossContext(FnId fn, unsigned arg, const void *h,
                                 ObjectRecord *r, ObjectRecord *ctx) {
  CallContext &call = CurrentCall();
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::CrossContext, r, h, fn, arg);
  rep.note = absl::StrCat("argument ", arg + 1, " belongs to ", ShortLabel(ctx),
                          " but argument ", call.context_arg + 1,
                          " belongs to ", ShortLabel(call.context),
                          ": objects of two contexts cannot be mixed");
  return Report(std::move(rep));
}

bool Runtime::ReportContextRace(FnId fn, unsigned arg, ObjectRecord *r,
                                ContextUse *use, uint32_t active) {
  ObjectRecord *ctx = use->record;
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::ContextRace, ctx, ctx->addr, fn, arg);
  rep.has_other = true;
  rep.other_thread = active - 1;
  rep.other_stack = use->active_stack.load();
  rep.other_fn = use->active_fn.load();
  if (!rep.other_stack) {
    // Case: the owner's claim recorded no stack (no hand-off before it, or
    // a long run of claims by the owner alone since the last one): show
    // the frame that called into LLVM.
    if (const void *pc = use->active_pc.load(std::memory_order_relaxed)) {
      StackTrace one;
      one.pcs.push_back(reinterpret_cast<uintptr_t>(pc));
      rep.other_stack = depot_.Put(std::move(one));
    }
  }
  rep.note = absl::StrCat(
      "argument ", arg + 1, " (", ShortLabel(r), ") belongs to ",
      ShortLabel(ctx),
      ", which another thread is using right now; an LLVMContext must not "
      "be used by two threads at once");
  return Report(std::move(rep));
}

namespace {
bool KindExpected(uint8_t expected, ObjectKind k) {
  return (kKindExpectations[expected].kinds >> static_cast<unsigned>(k)) & 1;
}
} // namespace

ArgVerdict Runtime::CheckKindedHandle(FnId fn, unsigned arg, const void *h,
                                      HandleType type, uint8_t expected) {
  if (CheckHandle(fn, arg, h, type))
    return ArgVerdict::Skip;
  ObjectRecord *r = LookupLive(h);
  // Case: a handle ownsan never saw handed out (made by C++ code, or not
  // an LLVM object at all), or a record of an unwatched kind, which may
  // have died unseen: nothing is known. The call goes ahead.
  if (!r || !IsValueKind(r->kind))
    return ArgVerdict::Unverified;
  if (KindExpected(expected, r->kind))
    return ArgVerdict::Ok;
  return ReportWrongKind(fn, arg, h, r, expected);
}

ArgVerdict Runtime::ReportWrongKind(FnId fn, unsigned arg, const void *h,
                                    ObjectRecord *r, uint8_t expected) {
  // Case: a live value of another kind: LLVM would cast it unchecked and
  // read the wrong object's fields (undefined behaviour).
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::WrongHandleKind, r, h, fn, arg);
  rep.expected = kKindExpectations[expected].description;
  rep.note = absl::StrCat(FnName(fn), " expects ", rep.expected,
                          " as argument ", arg + 1, ", but it is ",
                          ShortLabel(r), "; the C API casts it unchecked");
  // (A suppressed report lets the call through: its result is not trusted.)
  return Report(std::move(rep)) ? ArgVerdict::Skip : ArgVerdict::Unverified;
}

void Runtime::RecordClaimStack(ContextUse *use) {
  RuntimeSection section;
  use->active_stack.store(CurrentCallStack(), std::memory_order_relaxed);
}

bool Runtime::CheckInsertionPoint(FnId fn, unsigned arg, const void *h) {
  RuntimeSection section;
  ObjectRecord *builder, *dead;
  HistoryPin pin(this);
  {
    MutexLock lock(&mu_);
    builder = graph_.Find(h);
    if (!builder || builder->kind != ObjectKind::Builder ||
        !builder->rare().insert_point_freed)
      return false;
    dead = builder->rare().insert_point_freed;
    pin.Take();
  }
  // Case: a live builder whose insertion block was deleted, or whose
  // insertion point was an instruction that was erased: LLVM would insert
  // into freed memory.
  ErrorReport rep =
      NewReport(ErrorKind::DanglingInsertionPoint, builder, h, fn, arg);
  rep.related = dead;
  rep.note = absl::StrCat(
      FnName(fn), " inserts at the builder's position, which is ",
      dead->kind == ObjectKind::BasicBlock ? "the end of a freed block"
                                           : "before a freed instruction",
      "; position the builder again first");
  return Report(std::move(rep));
}

void Runtime::SetPosition(ObjectRecord *b, ObjectRecord *block,
                          ObjectRecord *before) {
  if (!block && !before && !b->rare().insert_block &&
      !b->rare().insert_before && !b->rare().insert_point_freed)
    return; // (a builder never positioned: nothing to write)
  RecordExtra &x = b->MutableRare();
  for (ObjectRecord *old : {x.insert_block, x.insert_before}) {
    if (!old)
      continue;
    auto it = positioned_at_.find(old);
    if (it != positioned_at_.end()) {
      it->second.erase(b);
      if (it->second.empty())
        positioned_at_.erase(it);
    }
  }
  x.insert_block = block;
  x.insert_before = before;
  x.insert_point_freed = nullptr;
  if (block)
    positioned_at_[block].insert(b);
  if (before)
    positioned_at_[before].insert(b);
}

void Runtime::NoteDeath(ObjectRecord *r) {
  if (r->kind == ObjectKind::Builder) {
    SetPosition(r, nullptr, nullptr);
    return;
  }
  auto it = positioned_at_.find(r);
  if (it == positioned_at_.end())
    return;
  for (ObjectRecord *b : it->second) {
    // The builder keeps pointing here; its next insertion is reported.
    RecordExtra &x = b->MutableRare();
    (x.insert_block == r ? x.insert_block : x.insert_before) = nullptr;
    x.insert_point_freed = r;
    dangling_builders_.Add(b->addr);
  }
  positioned_at_.erase(it);
}

// Does [p, p + size) hold the object the running call frees explicitly?
// Its record was matched at its address when the call began (Before), and
// the memory is only now being released: the block is one a stale handle
// names, no need to ask the shadow map under the lock. (Holding a block
// that turns out to hold no matched address only delays its reuse.)
static bool HoldsFreeTarget(const void *p, size_t size) {
  const FreeEvent *ev = CurrentCall().event;
  if (!ev || !ev->target)
    return false;
  uintptr_t a = reinterpret_cast<uintptr_t>(ev->target->addr),
            lo = reinterpret_cast<uintptr_t>(p);
  return a - lo < size;
}

bool Runtime::TakeIntoQuarantine(void *p) {
  if (CurrentThreadCallState().in_runtime)
    return false;
  size_t size = malloc_usable_size(p);
  if (!size)
    size = 1;
  bool values = live_values_.MaybeOverlaps(p, size);
  bool tracked = tracked_pages_.MaybeOverlaps(p, size);
  if (!values && !tracked)
    return false;
  RuntimeSection section;
  // Case: a block that may hold live values, released inside a wrapped
  // call: recorded with the call's other deaths (held until then).
  if (values && DeferDeaths(p, size))
    return true;
  // Case: the block held live values: they died, and their freed records
  // now match addresses in it (no need to ask the shadow map).
  bool died = values && ValuesDied(p, size);
  // Case: the block held an unwatched object ownsan believed live (a module
  // an execution engine built in C++ deleted): it died here.
  if (tracked && UnwatchedDied(p, size))
    died = true;
  if (!died && !HoldsFreeTarget(p, size)) {
    MutexLock lock(&mu_);
    // Case: memory that holds no freed object's address: free it now.
    if (!shadow_.AnyInRange(p, size))
      return false;
  }
  // Case: the memory of an object a stale handle may still name.
  Hold({p, size, Quarantine::Chunk::kFree});
  return true;
}

void Runtime::Hold(Quarantine::Chunk chunk) { HoldAll(&chunk, 1); }

void Runtime::HoldAll(const Quarantine::Chunk *chunks, size_t n) {
  RuntimeSection section;
  Quarantine::ReleaseList release;
  bool trim_due;
  {
    MutexLock lock(&quarantine_mu_);
    for (size_t i = 0; i < n; ++i)
      quarantine_.Put(chunks[i], &release);
    trim_due = quarantine_.TakeTrimDue(MonotonicNs);
  }
  for (const Quarantine::Chunk &c : release) {
    if (c.release == Quarantine::Chunk::kFree) {
      free(c.p);
      continue;
    }
    // LLVM frees buffers and strings with free(), which ownsan does not
    // see, so their addresses stop matching when the real dispose happens.
    {
      MutexLock lock(&mu_);
      shadow_.DropRange(c.p, 1);
    }
    switch (c.release) {
    case Quarantine::Chunk::kDisposeMemoryBuffer:
      Real<void (*)(LLVMMemoryBufferRef)>(kFn_LLVMDisposeMemoryBuffer)(
          static_cast<LLVMMemoryBufferRef>(c.p));
      break;
    case Quarantine::Chunk::kDisposeMessage:
      Real<void (*)(char *)>(kFn_LLVMDisposeMessage)(static_cast<char *>(c.p));
      break;
    case Quarantine::Chunk::kDisposeErrorMessage:
      Real<void (*)(char *)>(kFn_LLVMDisposeErrorMessage)(
          static_cast<char *>(c.p));
      break;
    case Quarantine::Chunk::kFreeMalloced:
      free(c.p); // what the skipped disposer would have done
      break;
    case Quarantine::Chunk::kFree:
      break;
    }
  }
#ifdef __GLIBC__
  if (trim_due) { // (see Quarantine::TakeTrimDue)
    uint64_t start = MonotonicNs();
    malloc_trim(0);
    uint64_t end = MonotonicNs();
    MutexLock lock(&quarantine_mu_);
    quarantine_.TrimDone(start, end);
  }
#else
  (void)trim_due;
#endif
}

void Runtime::PrintExitStatistics() {
  size_t peak, now, count, taken, limit;
  {
    MutexLock lock(&quarantine_mu_);
    peak = quarantine_.peak_bytes();
    now = quarantine_.bytes();
    count = quarantine_.count();
    taken = quarantine_.total_taken();
    limit = quarantine_.limit();
  }
  std::string line = absl::StrCat(
      "==", getpid(), "==OwnSan: quarantine: peak ", peak, " bytes (limit ",
      limit, "), ", now, " bytes in ", count, " chunks at exit, ", taken,
      " chunks taken; ", LiveObjects(), " live objects, ", FreedObjects(),
      " freed objects matched; ", depot_.size(), " stacks\n");
  size_t records, slots, history, history_peak, evicted;
  {
    MutexLock lock(&mu_);
    records = graph_.RecordCount();
    slots = graph_.SlotCount();
    history = history_bytes_;
    history_peak = history_peak_bytes_;
    evicted = evicted_;
  }
  absl::StrAppend(&line, "==", getpid(), "==OwnSan: history: peak ",
                  history_peak, " bytes (limit ", history_limit_, "), ",
                  history, " bytes at exit, ", evicted, " records evicted; ",
                  slots, " record slots, ", FreeEventsInUse(),
                  " free events\n");
  // What the run cost is made of (docs/performance.md): checked calls, and
  // objects registered (each also freed, if it died).
  absl::StrAppend(&line, "==", getpid(), "==OwnSan: work: ", TotalCalls(),
                  " checked calls, ", records, " objects registered\n");
  (void)!write(2, line.data(), line.size());
}

bool Runtime::Before(FnId fn, const void *const *args, void *const *slots) {
  bool skip = false;
  const FnInfo &info = kFnInfo[fn];
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = info.effects[i];
    if (e.arg == kRet)
      continue; // about the result: After
    const void *h = args[e.arg];
    if (!h)
      continue;
    switch (e.kind) {
    case EffectKind::CauseText:
      // Case: a call that may delete values by itself (a pass pipeline):
      // its text goes into the cause of whatever it deletes.
      CurrentCall().cause_text = static_cast<const char *>(h);
      break;
    case EffectKind::FreeAttached:
    case EffectKind::FreeDetached:
      if (CheckFreePrecondition(fn, e.arg, e.kind, h))
        return true; // continue mode: the invalid free is not forwarded
      [[fallthrough]];
    case EffectKind::Free: {
      // Case: the binding frees an object. Record the death before LLVM
      // runs, so no other thread can be handed the address first.
      ObjectRecord *r = FindOrAdopt(fn, h, e.arg_type);
      if (!r)
        break;
      if (r->owned_by_other) {
        // Case: the object was given away (an engine owns the module): it
        // is not the caller's to free.
        if (ReportOwnedFree(fn, e.arg, h, r))
          return true;
        break;
      }
      FreeWithDescendants(r, CurrentFreeEvent(r));
      if (fn == kFn_LLVMDisposeMemoryBuffer &&
          r->kind == ObjectKind::MemoryBuffer) {
        // Case: a memory buffer (malloc'ed by LLVM, so operator delete
        // never sees it): hold the whole buffer; it is disposed for real
        // when it leaves the quarantine.
        size_t size =
            Real<size_t (*)(LLVMMemoryBufferRef)>(kFn_LLVMGetBufferSize)(
                static_cast<LLVMMemoryBufferRef>(const_cast<void *>(h)));
        Hold({const_cast<void *>(h), size + 64,
              Quarantine::Chunk::kDisposeMemoryBuffer});
        skip = true;
      } else if (e.extra == kFreesMallocedArray &&
                 r->kind == ObjectKind::Opaque) {
        // Case: a malloc'ed array whose disposer is free(), which ownsan
        // does not see: hold the block, free it when it leaves.
        void *p = const_cast<void *>(h);
        size_t size = malloc_usable_size(p);
        Hold({p, size ? size : 1, Quarantine::Chunk::kFreeMalloced});
        skip = true;
      }
      break;
    }
    case EffectKind::Own:
    case EffectKind::OwnByOut:
    case EffectKind::ConsumeIfOk:
    case EffectKind::ConsumeIfFailed:
      // Case: giving away an object another one owns already (a module
      // given to a second execution engine): both would free it.
      if (ReportSecondOwner(fn, e.arg, h))
        return true;
      break;
    case EffectKind::Consume: {
      // Case: the call takes the object (LLVMParseIRInContext frees its
      // buffer; LLVMLinkModules2 destroys its source module). It is dead
      // to the caller from now on, whatever LLVM does with it.
      if (ReportSecondOwner(fn, e.arg, h))
        return true;
      ObjectRecord *r = FindOrAdopt(fn, h, e.arg_type);
      if (!r)
        break;
      FreeEvent *ev = CurrentFreeEvent(r);
      ev->consumed = true;
      FreeWithDescendants(r, ev);
      if (r->kind == ObjectKind::MemoryBuffer && slots && observer_copy_) {
        // A consumed buffer is freed by LLVM with free(), which ownsan
        // cannot see: LLVM gets an identical copy (same contents, same
        // name) and the caller's buffer waits in the quarantine, so its
        // address cannot be reused while the stale handle may be used.
        if (void *copy = observer_copy_(const_cast<void *>(h))) {
          *static_cast<void **>(slots[e.arg]) = copy;
          size_t size =
              Real<size_t (*)(LLVMMemoryBufferRef)>(kFn_LLVMGetBufferSize)(
                  static_cast<LLVMMemoryBufferRef>(const_cast<void *>(h)));
          Hold({const_cast<void *>(h), size + 64,
                Quarantine::Chunk::kDisposeMemoryBuffer});
        }
      }
      break;
    }
    case EffectKind::FreeMessage:
    case EffectKind::FreeErrorMessage:
      if (FreeString(fn, e.arg, h, e.kind == EffectKind::FreeErrorMessage,
                     &skip))
        return true;
      break;
    default:
      break; // the other effects act after the call
    }
  }
  return skip;
}

void Runtime::After(FnId fn, const void *const *args, const void *ret,
                    bool ok) {
  const FnInfo &info = kFnInfo[fn];
  // New objects first: an Own effect may name one as the owner.
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = info.effects[i];
    if (e.kind != EffectKind::New && e.kind != EffectKind::Message &&
        e.kind != EffectKind::UnterminatedMessage &&
        e.kind != EffectKind::ErrorMessage)
      continue;
    const void *obj = ret;
    if (e.arg != kRet) {
      // Out parameters are read only when LLVM writes them.
      bool written =
          e.extra == 0 || (e.extra == 1 && ok) || (e.extra == 2 && !ok);
      if (!written || !args[e.arg])
        continue;
      obj = *static_cast<const void *const *>(args[e.arg]);
    }
    if (!obj)
      continue;
    if (e.kind == EffectKind::New) {
      const void *parent = e.other != kNoArg ? args[e.other] : nullptr;
      RegisterOpaque(fn, obj, e.type, parent);
    } else {
      RegisterString(fn, static_cast<const char *>(obj),
                     e.kind == EffectKind::ErrorMessage,
                     e.kind == EffectKind::UnterminatedMessage);
    }
  }
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = info.effects[i];
    if (e.arg == kRet) {
      if (ret && (e.kind == EffectKind::Own || e.kind == EffectKind::Forget))
        ReturnedBelongsElsewhere(fn, e, args, ret);
      continue;
    }
    const void *h = args[e.arg];
    if (!h)
      continue;
    switch (e.kind) {
    case EffectKind::Renames: {
      // Case: a value or module got a new name: the one to report once it
      // is freed.
      ObjectRecord *r = LookupLive(h);
      if (r && (IsValueKind(r->kind) || r->kind == ObjectKind::Module)) {
        RuntimeSection section;
        std::string name = IsValueKind(r->kind) ? ValueName(h) : ModuleName(h);
        MutexLock lock(&mu_);
        r->name = std::move(name);
      }
      break;
    }
    case EffectKind::Detach: {
      // Case: the object left its parent; the caller owns it now.
      RuntimeSection section;
      ObjectRecord *r = LookupLive(h);
      if (r) {
        MutexLock lock(&mu_);
        graph_.SetParent(r, nullptr);
        r->owned_by_other = false;
      }
      break;
    }
    case EffectKind::Attach:
    case EffectKind::AttachAtBuilder: {
      // Case: a detached object was inserted into a function or block.
      RuntimeSection section;
      const void *parent = args[e.other];
      if (e.kind == EffectKind::AttachAtBuilder && parent)
        parent =
            Real<LLVMBasicBlockRef (*)(LLVMBuilderRef)>(kFn_LLVMGetInsertBlock)(
                static_cast<LLVMBuilderRef>(const_cast<void *>(parent)));
      ObjectRecord *r = RegisterImpl(fn, h, HandleType::Value, 0);
      ObjectRecord *p =
          parent ? RegisterImpl(fn, parent, HandleType::Value, 0) : nullptr;
      if (r) {
        MutexLock lock(&mu_);
        graph_.SetParent(r, p);
      }
      break;
    }
    case EffectKind::Position: {
      // Case: the builder was positioned; remember where, so the death of
      // that block or instruction makes the builder's next insertion a
      // report.
      RuntimeSection section;
      ObjectRecord *b = RegisterImpl(fn, h, HandleType::Builder, 0);
      const void *block = e.other != kNoArg ? args[e.other] : nullptr;
      const void *before = e.extra != kNoArg ? args[e.extra] : nullptr;
      ObjectRecord *block_r =
          block ? RegisterImpl(fn, block, HandleType::BasicBlock, 0) : nullptr;
      ObjectRecord *before_r =
          before ? RegisterImpl(fn, before, HandleType::Value, 0) : nullptr;
      if (b) {
        MutexLock lock(&mu_);
        if (b->state == ObjectState::Live)
          SetPosition(b, before_r ? nullptr : block_r, before_r);
      }
      break;
    }
    case EffectKind::ConsumeIfOk:
    case EffectKind::ConsumeIfFailed: {
      // Case: the call took the object because it succeeded (or, for the
      // execution engine constructors, destroyed it because it failed).
      if (ok != (e.kind == EffectKind::ConsumeIfOk))
        break;
      RuntimeSection section;
      if (ObjectRecord *r = LookupLive(h)) {
        FreeEvent *ev = CurrentFreeEvent(r);
        ev->consumed = true;
        // The call has returned: LLVM may have destroyed the object already
        // (a failed engine constructor does), so its name is not read.
        FreeWithDescendants(r, ev, /*intact=*/false);
      } else if (FreeEvent *ev = CurrentCall().event) {
        // Case: operator delete showed LLVM destroying it during this call
        // (a failed engine constructor): that death was the consumption.
        MutexLock lock(&mu_);
        if (ObjectRecord *f = shadow_.Find(h); f && f->freed == ev)
          ev->consumed = true;
      }
      break;
    }
    case EffectKind::Forget: {
      // Case: handed to a part of LLVM ownsan does not model (an ORC
      // thread-safe module): not the caller's to free, not a leak.
      RuntimeSection section;
      if (ObjectRecord *r = LookupLive(h)) {
        MutexLock lock(&mu_);
        r->owned_by_other = true;
        r->owner_untracked = true;
        r->MutableRare().owned_via = fn;
      }
      break;
    }
    case EffectKind::Own:
    case EffectKind::OwnByOut: {
      // Case: the object now belongs to another (a module given to an
      // execution engine): it dies with its owner and the caller must not
      // free it.
      if (!ok)
        break;
      RuntimeSection section;
      // by=ret: the new object the call returned (registered above).
      const void *owner = e.other == kRet ? ret : args[e.other];
      if (e.kind == EffectKind::OwnByOut)
        owner = owner ? *static_cast<const void *const *>(owner) : nullptr;
      ObjectRecord *r = FindOrAdopt(fn, h, e.arg_type);
      ObjectRecord *o = owner ? LookupLive(owner) : nullptr;
      if (r && o) {
        MutexLock lock(&mu_);
        graph_.SetParent(r, o);
        r->owned_by_other = true;
        r->MutableRare().owned_via = fn;
      }
      break;
    }
    default:
      break;
    }
  }
}

void Runtime::ReturnedBelongsElsewhere(FnId fn, const Effect &e,
                                       const void *const *args,
                                       const void *ret) {
  RuntimeSection section;
  ObjectRecord *owner = nullptr;
  if (e.kind == EffectKind::Own) {
    owner = args[e.other] ? LookupLive(args[e.other]) : nullptr;
    if (!owner)
      return; // an owner we never saw: nothing to tie the result to
  }
  // The result may be known already: getters (LLVMOrcLLJITGetMainJITDylib)
  // return the same object on every call.
  ObjectRecord *r = LookupLive(ret);
  if (!r) {
    auto type = static_cast<HandleType>(e.extra); // see Effect::extra
    if (type == HandleType::Other)
      RegisterOpaque(fn, ret, e.type, nullptr);
    else
      RegisterImpl(fn, ret, type, 0);
    r = LookupLive(ret);
    if (!r)
      return;
  }
  MutexLock lock(&mu_);
  if (r->state != ObjectState::Live)
    return;
  if (owner) {
    // Case: own(ret,by=J): the result dies with J (an LLJIT's execution
    // session, main JITDylib and layers) and is not the caller's to free.
    if (r != owner)
      graph_.SetParent(r, owner);
  } else {
    // Case: forget(ret): the result belongs to a part of LLVM ownsan does
    // not model (the context of a thread-safe context, shared with every
    // thread-safe module made from it).
    r->owner_untracked = true;
  }
  r->owned_by_other = true;
  r->MutableRare().owned_via = fn;
}

bool Runtime::CheckFreePrecondition(FnId fn, unsigned arg, EffectKind kind,
                                    const void *h) {
  RuntimeSection section;
  auto v = static_cast<LLVMValueRef>(const_cast<void *>(h));
  LLVMValueKind vk =
      Real<LLVMValueKind (*)(LLVMValueRef)>(kFn_LLVMGetValueKind)(v);
  const void *parent = nullptr;
  const char *what, *container;
  if (vk == LLVMInstructionValueKind) {
    parent = Real<LLVMBasicBlockRef (*)(LLVMValueRef)>(
        kFn_LLVMGetInstructionParent)(v);
    what = "instructions";
    container = "block";
  } else if (vk == LLVMBasicBlockValueKind) {
    parent = Real<LLVMValueRef (*)(LLVMBasicBlockRef)>(
        kFn_LLVMGetBasicBlockParent)(Real<LLVMBasicBlockRef (*)(LLVMValueRef)>(
        kFn_LLVMValueAsBasicBlock)(v));
    what = "blocks";
    container = "function";
  } else if (vk == LLVMGlobalIFuncValueKind) {
    parent = Real<LLVMModuleRef (*)(LLVMValueRef)>(kFn_LLVMGetGlobalParent)(v);
    what = "global ifuncs";
    container = "module";
  } else {
    // The precondition is about instructions, blocks and ifuncs only.
    return false;
  }
  bool attached = parent != nullptr;
  if (attached == (kind == EffectKind::FreeAttached))
    return false;
  ObjectRecord *r = RegisterImpl(fn, h, HandleType::Value, 0);
  if (!r)
    return false;
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  if (attached) {
    ObjectRecord *p = RegisterImpl(fn, parent, HandleType::Value, 0);
    // Case: freeing a detached-only object that still has an owner; LLVM
    // would free it while its parent still lists it.
    rep.note =
        absl::StrCat(FnName(fn), " frees only detached ", what,
                     "; this one is still in ", p ? ShortLabel(p) : container);
  } else {
    // Case: an erase-style call on an object with no parent (LLVM would
    // dereference the missing parent).
    rep.note = absl::StrCat(FnName(fn), " needs ", what, " that are in a ",
                            container, "; this one is detached");
  }
  return Report(std::move(rep));
}

void Runtime::FreeWithDescendants(ObjectRecord *root, FreeEvent *ev,
                                  bool intact) {
  RuntimeSection section;
  std::vector<ObjectRecord *> dying;
  std::vector<std::string> names;
  MutexLock lock(&mu_);
  if (root->state != ObjectState::Live)
    return;
  if ((!intact || !NameComesFromLLVM(root)) &&
      !graph_.HasUnwatchedChildren(root)) {
    // Case: an object that takes nothing with it and whose name ownsan
    // keeps (a builder, a buffer, a message, an opaque object).
    graph_.RemoveWithoutList(root);
    MarkFreed(root, ev);
    return;
  }
  dying = graph_.Remove(root);
  if (intact && std::any_of(dying.begin(), dying.end(), NameComesFromLLVM)) {
    // Names are read while the objects are still intact (not yet
    // forwarded), without the lock: reading them calls into LLVM.
    mu_.Unlock();
    names.reserve(dying.size());
    for (ObjectRecord *r : dying)
      names.push_back(SnapshotName(r));
    mu_.Lock();
  }
  for (size_t i = 0; i < dying.size(); ++i) {
    ObjectRecord *r = dying[i];
    if (!names.empty())
      r->name = std::move(names[i]);
    MarkFreed(r, ev);
  }
}

void Runtime::MarkFreed(ObjectRecord *r, FreeEvent *ev) {
  MarkFreedSorted(&r, 1, ev);
}

void Runtime::MarkFreedSorted(ObjectRecord *const *rs, size_t n,
                              FreeEvent *ev) {
  // (Before marking: the records the caller holds are all live, and
  // freed records it holds are pinned.)
  if (history_bytes_ > history_limit_)
    EvictHistory();
  ev->refs.fetch_add(static_cast<uint32_t>(n), std::memory_order_relaxed);
  for (size_t k = 0; k < n; ++k) {
    rs[k]->state = ObjectState::Freed;
    rs[k]->freed = ev;
    tracked_pages_.Add(rs[k]->addr);
    AddToHistory(rs[k]);
  }
  shadow_.InsertSorted(rs, n);
  for (size_t k = 0; k < n; ++k)
    NoteDeath(rs[k]);
}

template <typename F>
void Runtime::ForEachRecordIn(const void *p, size_t size, F visit) {
  // One range query of the live index: a Value is not at the start of its
  // block (a User's operands, or the pointer to its hung-off operands, come
  // first), and the filter bits of values that died here before stay set,
  // so a lookup per set bit found nothing as often as not.
  if (live_values_.MaybeOverlaps(p, size))
    graph_.ForEachLiveIn(p, size, visit);
}

void Runtime::ValueDied(ObjectRecord *r, FreeEvent *ev) {
  // Case: already recorded as freed by the explicit free that is now being
  // forwarded (or by another thread meanwhile).
  if (r->state != ObjectState::Live)
    return;
  graph_.RemoveWithoutList(r);
  MarkFreed(r, ev);
}

bool Runtime::ValuesDied(const void *p, size_t size) {
  ObjectRecord *dying[16];
  size_t n = 0;
  std::vector<ObjectRecord *> more;
  {
    ReaderMutexLock lock(&mu_);
    ForEachRecordIn(p, size, [&](ObjectRecord *r) {
      if (!OwnershipGraph::IsWatched(r->kind))
        return;
      if (n < 16)
        dying[n++] = r;
      else
        more.push_back(r);
    });
  }
  if (n == 0)
    return false; // Case: the bits were set by values that died before.
  // Case: LLVM destroyed values the program may still hold (a parent was
  // freed, or a pass deleted them): they die with the call now running.
  FreeEvent *ev = CurrentFreeEvent(nullptr);
  MutexLock lock(&mu_);
  for (size_t i = 0; i < n; ++i)
    ValueDied(dying[i], ev);
  for (ObjectRecord *r : more)
    ValueDied(r, ev);
  return true;
}

bool Runtime::UnwatchedDied(const void *p, size_t size) {
  if (exiting_.load(std::memory_order_relaxed))
    return false; // (see RegisterImpl)
  {
    ReaderMutexLock lock(&mu_);
    bool any = false;
    graph_.ForEachUnwatchedIn(p, size, [&](ObjectRecord *) { any = true; });
    if (!any)
      return false;
  }
  // (The event is taken without the lock: it captures a stack.)
  FreeEvent *ev = CurrentFreeEvent(nullptr);
  MutexLock lock(&mu_);
  absl::InlinedVector<ObjectRecord *, 4> dying;
  graph_.ForEachUnwatchedIn(p, size,
                            [&](ObjectRecord *r) { dying.push_back(r); });
  for (ObjectRecord *r : dying)
    UnwatchedDiedLocked(r, ev);
  return !dying.empty();
}

void Runtime::UnwatchedDiedLocked(ObjectRecord *r, FreeEvent *ev) {
  // Case: already taken by the death of an ancestor in the same block; or
  // the process is exiting (see RegisterImpl).
  if (r->state != ObjectState::Live || exiting_.load(std::memory_order_relaxed))
    return;
  // Its unwatched descendants (a context's modules and types) died with it
  // if C++ code did not free them first; their names are the ones recorded
  // earlier: the memory is gone.
  for (ObjectRecord *d : graph_.Remove(r))
    MarkFreed(d, ev);
}

namespace {
// Blocks operator delete released during this thread's running call, whose
// value deaths are not recorded yet (ThreadCallState::pending_deaths of
// them). A module's dispose releases its values one by one: recording them
// in batches takes the locks once per batch, not three times per value.
//
// The batch belongs to one call (`owner`, its scope's frame). A call nested
// in it (a callback's, or a signal handler's, which may have interrupted
// malloc or free) records the outer call's deaths but leaves its blocks to
// the outer call to release, and records its own deaths at once.
constexpr size_t kMaxPendingDeaths = 32;
struct PendingDeaths {
  FreeEvent *event;  ///< the call's free event, taken at the first death
  const void *owner; ///< CallContext::frame of the call
  size_t recorded;   ///< blocks whose deaths are recorded (held still)
  struct Block {
    void *p;
    size_t size;
  } blocks[kMaxPendingDeaths];
};
__thread PendingDeaths tls_pending_deaths
    __attribute__((tls_model("initial-exec")));

// The calling thread exits: the events it held go back to the pool once
// their records are evicted. (In a runtime section: a signal handler's
// wrapped call meanwhile is forwarded unchecked. One that comes after and
// makes an event holds it anew, and registers this again.)
__thread bool tls_holds_events __attribute__((tls_model("initial-exec")));
void ReleaseHeldFreeEvents(void *) {
  RuntimeSection section;
  tls_holds_events = false;
  ReleaseThreadFreeEvents();
}

FreeEvent *NewThreadFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                              const char *detail) {
  // (The event pool's lock is held inside: a signal handler's wrapped call
  // meanwhile is forwarded unchecked, never waits for it.)
  RuntimeSection section;
  if (!tls_holds_events) {
    tls_holds_events = true;
    ReleaseAtThreadExit<ReleaseHeldFreeEvents>(&tls_holds_events);
  }
  const CallContext &call = CurrentCall();
  const ThreadCallState &state = CurrentThreadCallState();
  const FreeEvent *in_use[] = {call.event, call.orphan_event,
                               state.pending_deaths ? tls_pending_deaths.event
                                                    : nullptr};
  return NewFreeEvent(fn, target, stack, CurrentThreadNumber(), detail,
                      /*release_unused=*/state.depth <= 1, in_use,
                      std::size(in_use));
}
} // namespace

bool Runtime::DeferDeaths(void *p, size_t size) {
  // Case: outside any wrapped call (the program's C++ code, exit-time
  // destructors): nothing would flush the batch soon.
  const CallContext &call = CurrentCall();
  if (call.fn == kNoFn)
    return false;
  ThreadCallState &state = CurrentThreadCallState();
  PendingDeaths &pending = tls_pending_deaths;
  if (state.pending_deaths == 0) {
    // The stack is taken here, inside LLVM, as for a death recorded at once.
    pending.event = CurrentFreeEvent(nullptr);
    pending.owner = call.frame;
    pending.recorded = 0;
  } else if (pending.owner != call.frame) {
    return false; // Case: the batch is an outer call's (see PendingDeaths).
  }
  pending.blocks[state.pending_deaths++] = {p, size};
  if (state.pending_deaths == kMaxPendingDeaths)
    FlushDeaths();
  return true;
}

void Runtime::FlushDeaths(bool release) {
  ThreadCallState &state = CurrentThreadCallState();
  if (state.pending_deaths == 0)
    return;
  // Before the batch is read: a signal handler's call that interrupts the
  // flush is forwarded unchecked instead of flushing the same blocks.
  RuntimeSection section; // (nothing is deferred while it runs)
  PendingDeaths &pending = tls_pending_deaths;
  // Case: a call nested in the batch's call: the blocks are the outer
  // call's to release.
  if (pending.owner != CurrentCall().frame)
    release = false;
  size_t n = state.pending_deaths, from = pending.recorded;
  if (from == n && !release)
    return;
  bool any[kMaxPendingDeaths] = {}; // block i held a watched value
  Quarantine::Chunk held[kMaxPendingDeaths];
  void *unheld[kMaxPendingDeaths];
  size_t n_held = 0, n_unheld = 0;
  {
    MutexLock lock(&mu_);
    // Two passes: find the records first and prefetch them, then mark them
    // (each is a cache miss of its own otherwise).
    constexpr size_t kBatch = 128;
    ObjectRecord *found[kBatch];
    uint16_t block_of[kBatch];
    size_t n_found = 0;
    absl::InlinedVector<std::pair<ObjectRecord *, uint16_t>, 2> unwatched;
    // (The visitor below calls die() from inside the index's range walk,
    // where -Wthread-safety cannot see the lock taken above.)
    auto die = [&]() {
      mu_.AssertHeld();
      // The usual value (no unwatched children) leaves the live index and
      // enters the shadow map with the rest of the batch, in address order:
      // one pass over each region rather than a search and a shift each.
      ObjectRecord *dead[kBatch];
      size_t n_dead = 0;
      for (size_t k = 0; k < n_found; ++k) {
        ObjectRecord *r = found[k];
        if (!OwnershipGraph::IsWatched(r->kind)) {
          // Case: an unwatched object in a block with values (a module
          // C++ code deleted, next to one of its values): it died too,
          // recorded once the index is no longer being walked.
          unwatched.push_back({r, block_of[k]});
          continue;
        }
        any[block_of[k]] = true;
        if (r->state != ObjectState::Live)
          continue; // (see ValueDied)
        if (graph_.HasUnwatchedChildren(r)) {
          ValueDied(r, pending.event); // (rare: the general path)
          continue;
        }
        dead[n_dead++] = r;
      }
      n_found = 0;
      std::sort(dead, dead + n_dead, [](ObjectRecord *a, ObjectRecord *b) {
        return a->addr < b->addr;
      });
      graph_.RemoveWatchedSorted(dead, n_dead);
      MarkFreedSorted(dead, n_dead, pending.event);
    };
    for (size_t i = from; i < n; ++i) {
      ForEachRecordIn(pending.blocks[i].p, pending.blocks[i].size,
                      [&](ObjectRecord *r) {
                        __builtin_prefetch(r, 1);
                        found[n_found] = r;
                        block_of[n_found++] = static_cast<uint16_t>(i);
                        if (n_found == kBatch)
                          die();
                      });
    }
    die();
    for (auto [r, block] : unwatched) {
      UnwatchedDiedLocked(r, pending.event);
      any[block] = true;
    }
    pending.recorded = n;
    if (!release)
      return;
    for (size_t i = 0; i < n; ++i) {
      auto [p, size] = pending.blocks[i];
      // As in TakeIntoQuarantine: hold the block if a freed record matches
      // an address in it.
      if (any[i] || shadow_.AnyInRange(p, size))
        held[n_held++] = {p, size, Quarantine::Chunk::kFree};
      else
        unheld[n_unheld++] = p;
    }
    state.pending_deaths = 0;
    pending.recorded = 0;
  }
  for (size_t i = 0; i < n_unheld; ++i)
    free(unheld[i]);
  HoldAll(held, n_held);
}

void Runtime::OnSanitizerFree(const void *p) {
  if (CurrentThreadCallState().in_runtime)
    return;
  size_t size = malloc_usable_size(const_cast<void *>(p));
  if (!size)
    return;
  bool values = live_values_.MaybeOverlaps(p, size);
  bool tracked = tracked_pages_.MaybeOverlaps(p, size);
  if (!values && !tracked)
    return;
  RuntimeSection section;
  if (values)
    ValuesDied(p, size);
  if (tracked)
    UnwatchedDied(p, size);
}

void Runtime::OnAllocation(const void *p, size_t n) {
  if (CurrentThreadCallState().in_runtime)
    return;
  if (!tracked_pages_.MaybeOverlaps(p, n ? n : 1))
    return;
  RuntimeSection section;
  MutexLock lock(&mu_);
  // Case: new memory over a freed object's address. The address may name a
  // new object from now on; stop matching it.
  shadow_.DropRange(p, n);
  // Case: new memory over an unwatched object we believed live: it was
  // freed by code we do not see. Forget it (and its unwatched children).
  std::vector<ObjectRecord *> stale;
  graph_.ForEachUnwatchedIn(p, n, [&](ObjectRecord *r) { stale.push_back(r); });
  for (ObjectRecord *r : stale) {
    if (r->state != ObjectState::Live)
      continue;
    DropUnseen(r);
  }
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void Runtime::Register(FnId fn, const void *h, HandleType type) {
  if (!h || type == HandleType::Other)
    return;
  // Fast path: an object this thread handled recently (the record cache).
  // (LLVMIsA* results are not registered at all; a cached one is known.)
  ObjectRecord *r = CachedLive(h);
  if (r && type != HandleType::Error &&
      IsValueKind(r->kind) ==
          (type == HandleType::Value || type == HandleType::BasicBlock)) {
    // (See CallScope::Returned.) The handle goes last: a signal handler's
    // call that finds it finds its record and type too.
    LastReturned &last = tls_last_returned;
    last.handle = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    last.record = r;
    last.type = type;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    last.handle = h;
    return;
  }
  RegisterSlow(fn, h, type);
}

void Runtime::RegisterSlow(FnId fn, const void *h, HandleType type) {
  if (is_cast_[fn])
    return;
  if (type == HandleType::Error) {
    // Case: LLVM handed out an error; the caller must consume it.
    RegisterOpaque(fn, h, "LLVMErrorRef", nullptr);
    return;
  }
  bool want_value = type == HandleType::Value || type == HandleType::BasicBlock;
  // Case: a value at an address that never held a live value (its filter
  // bit is clear): new, no need to look it up. Otherwise it may be one we
  // know, though this thread has not seen it lately.
  if (!want_value || live_values_.MaybeContains(h)) {
    ObjectRecord *r = LookupLive(h);
    if (r && IsValueKind(r->kind) == want_value)
      return;
  }
  RuntimeSection section;
  RegisterImpl(fn, h, type, 0, /*looked_up=*/true);
}

Runtime::Classification Runtime::Classify(const void *h, HandleType type) {
  Classification c;
  void *p = const_cast<void *>(h);
  switch (type) {
  case HandleType::Context:
    c.kind = ObjectKind::Context;
    break;
  case HandleType::Module:
    c.kind = ObjectKind::Module;
    c.parent = Real<LLVMContextRef (*)(LLVMModuleRef)>(
        kFn_LLVMGetModuleContext)(static_cast<LLVMModuleRef>(p));
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Type:
    c.kind = ObjectKind::Type;
    c.parent = Real<LLVMContextRef (*)(LLVMTypeRef)>(kFn_LLVMGetTypeContext)(
        static_cast<LLVMTypeRef>(p));
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Builder:
    c.kind = ObjectKind::Builder;
    break;
  case HandleType::MemoryBuffer:
    c.kind = ObjectKind::MemoryBuffer;
    break;
  case HandleType::Value:
  case HandleType::BasicBlock: {
    auto v = static_cast<LLVMValueRef>(p);
    switch (Real<LLVMValueKind (*)(LLVMValueRef)>(kFn_LLVMGetValueKind)(v)) {
    case LLVMArgumentValueKind:
      c.kind = ObjectKind::Argument;
      c.parent =
          Real<LLVMValueRef (*)(LLVMValueRef)>(kFn_LLVMGetParamParent)(v);
      c.parent_type = HandleType::Value;
      break;
    case LLVMBasicBlockValueKind:
      c.kind = ObjectKind::BasicBlock;
      c.parent = Real<LLVMValueRef (*)(LLVMBasicBlockRef)>(
          kFn_LLVMGetBasicBlockParent)(static_cast<LLVMBasicBlockRef>(p));
      c.parent_type = HandleType::Value;
      break;
    case LLVMInstructionValueKind:
      c.kind = ObjectKind::Instruction;
      c.parent = Real<LLVMBasicBlockRef (*)(LLVMValueRef)>(
          kFn_LLVMGetInstructionParent)(v);
      c.parent_type = HandleType::BasicBlock;
      break;
    case LLVMFunctionValueKind:
    case LLVMGlobalVariableValueKind:
    case LLVMGlobalAliasValueKind:
    case LLVMGlobalIFuncValueKind: {
      LLVMValueKind vk =
          Real<LLVMValueKind (*)(LLVMValueRef)>(kFn_LLVMGetValueKind)(v);
      c.kind = vk == LLVMFunctionValueKind         ? ObjectKind::Function
               : vk == LLVMGlobalVariableValueKind ? ObjectKind::GlobalVariable
               : vk == LLVMGlobalAliasValueKind    ? ObjectKind::GlobalAlias
                                                   : ObjectKind::GlobalIFunc;
      c.parent =
          Real<LLVMModuleRef (*)(LLVMValueRef)>(kFn_LLVMGetGlobalParent)(v);
      c.parent_type = HandleType::Module;
      break;
    }
    case LLVMMetadataAsValueValueKind:
    case LLVMInlineAsmValueKind:
    case LLVMMemoryUseValueKind:
    case LLVMMemoryDefValueKind:
    case LLVMMemoryPhiValueKind:
      c.kind = ObjectKind::OtherValue;
      break;
    default: // every kind of constant
      c.kind = ObjectKind::Constant;
      c.parent = Real<LLVMContextRef (*)(LLVMTypeRef)>(kFn_LLVMGetTypeContext)(
          Real<LLVMTypeRef (*)(LLVMValueRef)>(kFn_LLVMTypeOf)(v));
      c.parent_type = HandleType::Context;
      break;
    }
    break;
  }
  case HandleType::Other:
  case HandleType::Error: // registered by RegisterOpaque
    break;
  }
  return c;
}

ObjectRecord *Runtime::RegisterImpl(FnId fn, const void *h, HandleType type,
                                    int depth, bool looked_up) {
  if (!h || depth > 8)
    return nullptr;
  // (Register has just looked; the locked check below catches a thread
  // that registered the object since.)
  if (ObjectRecord *r = looked_up ? nullptr : LookupLive(h)) {
    bool want_value =
        type == HandleType::Value || type == HandleType::BasicBlock;
    if (type == HandleType::Other || IsValueKind(r->kind) == want_value)
      return r;
  }
  if (type == HandleType::Other)
    return nullptr;
  Classification c = Classify(h, type);
  if (c.kind == ObjectKind::Unknown)
    return nullptr;
  ObjectRecord *parent =
      c.parent ? RegisterImpl(fn, c.parent, c.parent_type, depth + 1) : nullptr;
  bool is_global = false;
  if (c.kind == ObjectKind::Context) {
    const void *global = global_context_.load(std::memory_order_acquire);
    if (!global) {
      global = Real<LLVMContextRef (*)()>(kFn_LLVMGetGlobalContext)();
      // The global context is a static LLVM destroys at exit, with the
      // modules left in it: those are leaks, not deaths C++ code caused.
      // (Registered after the static's destructor, so it runs before it.)
      if (!global_context_.exchange(global, std::memory_order_acq_rel))
        atexit([] {
          Runtime::Get().exiting_.store(true, std::memory_order_relaxed);
        });
    }
    is_global = h == global;
  }
  std::string name;
  if (OwnershipGraph::IsWatched(c.kind)) {
    // The name a report gives the value once it is freed (its memory is
    // gone by the time ownsan learns of the death); renames update it.
    name = ValueName(h);
  } else if (c.kind == ObjectKind::Module) {
    // Kept from now on (and after LLVMSetModuleIdentifier): never read when
    // the module dies, since C++ code may have freed it by then.
    name = ModuleName(h);
  }
  // Adopted objects (depth > 0: parents) were not created by this call.
  bool created_here = depth == 0;
  StackId stack = created_here ? CurrentCallStack() : 0;
  ObjectRecord *r;
  {
    MutexLock lock(&mu_);
    if (ObjectRecord *existing = MaybeLive(h) ? graph_.Find(h) : nullptr) {
      if (IsValueKind(existing->kind) == IsValueKind(c.kind))
        return existing; // another thread registered it meanwhile
      // Case: a stale unwatched record at an address LLVM now hands out as
      // another kind of object: the old one died unseen.
      DropUnseen(existing);
    }
    ObjectRecord *old = TakeOverFreedAddress(h);
    r = graph_.Add(h, c.kind, parent);
    LinkPredecessor(r, old);
    r->is_global_context = is_global;
    r->name = std::move(name);
    if (created_here) {
      r->created_by = fn;
      r->create_stack = stack;
      r->create_thread = CurrentThreadNumber();
    } else {
      r->MutableRare().first_seen_in = fn; // (adopted: rare)
    }
    if (OwnershipGraph::IsWatched(c.kind))
      live_values_.Add(h); // its deletion is seen by operator delete
    else
      tracked_pages_.Add(h);
  }
  CacheRecord(h, r); // the program is about to use it
  return r;
}

void Runtime::DropUnseen(ObjectRecord *r) {
  for (ObjectRecord *d : graph_.Remove(r)) {
    d->state = ObjectState::Freed;
    d->address_reused = true;
    AddToHistory(d); // (matched nowhere, but reports may name it)
  }
}

void Runtime::EvictHistory() {
  if (history_pins_.load(std::memory_order_acquire) > 0)
    return; // (a report is reading freed records: next time)
  // (The event details it frees are the runtime's, not program memory.)
  RuntimeSection section;
  std::vector<ObjectRecord *, InternalAllocator<ObjectRecord *>> batch;
  while (history_bytes_ > history_limit_ / 2 && !history_.empty()) {
    ObjectRecord *r = history_.front().record();
    history_bytes_ -= history_.front().bytes();
    history_.pop_front();
    // A use of the address is still stale while it stays matched.
    shadow_.Evict(r, r->freed && r->freed->consumed);
    r->state.store(ObjectState::Evicted, std::memory_order_relaxed);
    batch.push_back(r);
  }
  // Nothing may refer to an evicted record once its slot is reused: the
  // references of every other record, and of every free event, are
  // cleared. (One pass over all records per eviction of half the bound.)
  auto evicted = [](const ObjectRecord *p) {
    return p &&
           p->state.load(std::memory_order_relaxed) == ObjectState::Evicted;
  };
  graph_.ForEachRecord([&](ObjectRecord *r) {
    if (r->state.load(std::memory_order_relaxed) == ObjectState::Evicted)
      return;
    if (evicted(r->parent))
      r->parent = nullptr;
    if (r->context_use && evicted(r->context_use->record))
      r->context_use = nullptr;
    if (RecordExtra *x = r->OwnExtra())
      for (ObjectRecord **ref : {&x->previous, &x->insert_block,
                                 &x->insert_before, &x->insert_point_freed})
        if (evicted(*ref))
          *ref = nullptr;
  });
  ForEachFreeEvent([&](FreeEvent *ev) {
    if (evicted(ev->target))
      ev->target = nullptr;
  });
  absl::erase_if(inherited_, evicted);
  for (ObjectRecord *r : batch) {
    if (r->freed)
      ReleaseFreeEvent(const_cast<FreeEvent *>(r->freed));
    r->freed = nullptr;
    r->ReleaseHistory();
    graph_.Recycle(r);
  }
  evicted_ += batch.size();
}

ObjectRecord *Runtime::TakeOverFreedAddress(const void *h) {
  if (ShadowMap::EvictedObject evicted; shadow_.FindEvicted(h, &evicted)) {
    // Case: the same, for an object whose history was evicted.
    shadow_.Forget(h);
    return nullptr;
  }
  if (ObjectRecord *old = shadow_.Find(h)) {
    // Case: LLVM hands out a freed address again: a new object lives
    // there; stale copies of the handle now alias it.
    old->address_reused = true;
    shadow_.Forget(h);
    return old;
  }
  // Case: the address was reallocated earlier (operator new); this is the
  // object that got it.
  return shadow_.TakeExpired(h);
}

void Runtime::LinkPredecessor(ObjectRecord *r, ObjectRecord *old) {
  if (!old)
    return;
  r->MutableRare().previous = old; // (generation() counts the chain)
}

void Runtime::RegisterOpaque(FnId fn, const void *h, const char *type,
                             const void *parent) {
  // Case: a new caller-owned object of a kind the spec names (an engine,
  // a binary, an iterator...). Its parent, if any, owns its lifetime.
  RuntimeSection section;
  ObjectRecord *p = parent ? LookupLive(parent) : nullptr;
  StackId stack = CurrentCallStack();
  MutexLock lock(&mu_);
  if (ObjectRecord *old = graph_.Find(h))
    DropUnseen(old); // live as something we did not see die
  ObjectRecord *prev = TakeOverFreedAddress(h);
  ObjectRecord *r = graph_.Add(h, ObjectKind::Opaque, p);
  r->SetTypeName(type);
  CacheRecord(h, r); // the program is about to use it
  r->created_by = fn;
  r->create_stack = stack;
  r->create_thread = CurrentThreadNumber();
  LinkPredecessor(r, prev);
  tracked_pages_.Add(h);
}

void Runtime::RegisterString(FnId fn, const char *s, bool error_message,
                             bool unterminated) {
  // Case: LLVM handed out a string the caller must release (with
  // LLVMDisposeMessage, or LLVMDisposeErrorMessage for error messages).
  // An unterminated one (LLVMGetRelocationTypeName) is never read: its
  // bytes end with the malloc block, with no NUL.
  RuntimeSection section;
  StackId stack = CurrentCallStack();
  MutexLock lock(&mu_);
  if (ObjectRecord *old = graph_.Find(s))
    DropUnseen(old); // live as something we did not see die
  ShadowMap::EvictedObject evicted;
  if (shadow_.Find(s) || shadow_.FindEvicted(s, &evicted))
    shadow_.Forget(s);
  else
    shadow_.TakeExpired(s);
  ObjectRecord *r = graph_.Add(
      s, error_message ? ObjectKind::ErrorMessage : ObjectKind::Message,
      nullptr);
  if (unterminated)
    r->MutableRare().unterminated = true;
  // A short excerpt names it in reports.
  size_t n = unterminated ? 0 : strnlen(s, 41);
  std::string excerpt(s, n > 40 ? 40 : n);
  if (n > 40)
    excerpt += "...";
  r->name = excerpt;
  r->created_by = fn;
  r->create_stack = stack;
  r->create_thread = CurrentThreadNumber();
  tracked_pages_.Add(s);
}

bool Runtime::FreeString(FnId fn, unsigned arg, const void *s,
                         bool error_message, bool *skip) {
  RuntimeSection section;
  ObjectRecord *r = LookupLive(s);
  if (!r) {
    // Case: a string ownsan never saw handed out (made by other code, or
    // already freed and reported by CheckString): let it through.
    ObjectRecord *freed;
    ShadowMap::EvictedObject evicted;
    bool was_evicted = false;
    HistoryPin pin(this);
    {
      MutexLock lock(&mu_);
      freed = shadow_.Find(s);
      if (freed)
        pin.Take();
      else
        was_evicted = shadow_.FindEvicted(s, &evicted);
    }
    if (was_evicted && (evicted.kind == ObjectKind::Message ||
                        evicted.kind == ObjectKind::ErrorMessage))
      return ReportEvicted(fn, arg, s, evicted); // (released twice)
    if (!freed || (freed->kind != ObjectKind::Message &&
                   freed->kind != ObjectKind::ErrorMessage))
      // Case: maybe a string a getter lent (LLVMGetModuleIdentifier's).
      return ReportLentStringFree(fn, arg, s);
    // Case: released twice.
    return Report(NewReport(ErrorKind::DoubleFree, freed, s, fn, arg));
  }
  if (r->kind != ObjectKind::Message && r->kind != ObjectKind::ErrorMessage)
    return false; // not a string we know: not ours to judge
  bool is_error = r->kind == ObjectKind::ErrorMessage;
  if (is_error != error_message) {
    // Case: the wrong deallocator (LLVMGetErrorMessage's string is new[]'d,
    // the others are malloc'ed).
    ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, s, fn, arg);
    rep.note = absl::StrCat(
        FnName(fn), " cannot release this string: it came from ",
        FnName(r->created_by), " and must be released with ",
        is_error ? "LLVMDisposeErrorMessage" : "LLVMDisposeMessage");
    return Report(std::move(rep));
  }
  // Case: a correct release. The string is held back whole (LLVM frees it
  // with free(), which ownsan does not see) and released for real when it
  // leaves the quarantine.
  size_t size = r->rare().unterminated
                    ? malloc_usable_size(const_cast<void *>(s))
                    : strlen(static_cast<const char *>(s)) + 1;
  FreeWithDescendants(r, CurrentFreeEvent(r));
  Hold({const_cast<void *>(s), size ? size : 1,
        error_message ? Quarantine::Chunk::kDisposeErrorMessage
                      : Quarantine::Chunk::kDisposeMessage});
  *skip = true;
  return false;
}

bool Runtime::ReportSecondOwner(FnId fn, unsigned arg, const void *h) {
  RuntimeSection section;
  ObjectRecord *r = LookupLive(h);
  if (!r)
    return false;
  const ObjectRecord *owner;
  {
    ReaderMutexLock lock(&mu_);
    if (!r->owned_by_other || r->owner_untracked || !r->parent ||
        r->parent->state != ObjectState::Live)
      return false;
    owner = r->parent;
  }
  ErrorReport rep = NewReport(ErrorKind::InvalidTransfer, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " gives away an object that ",
                          ShortLabel(owner), " already owns (since ",
                          FnName(r->rare().owned_via), "): both would free it");
  return Report(std::move(rep));
}

bool Runtime::ReportOwnedFree(FnId fn, unsigned arg, const void *h,
                              ObjectRecord *r) {
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " frees an object the caller gave away: ",
                          r->owner_untracked ? std::string("LLVM")
                          : r->parent        ? ShortLabel(r->parent)
                                             : std::string("another object"),
                          " owns it since ", FnName(r->rare().owned_via),
                          " and frees it itself",
                          r->kind == ObjectKind::Module
                              ? " (take it back first, e.g. LLVMRemoveModule)"
                              : "");
  return Report(std::move(rep));
}

ObjectRecord *Runtime::FindOrAdopt(FnId fn, const void *h, HandleType type) {
  if (ObjectRecord *r = LookupLive(h))
    return r;
  // Case: an untyped handle (an iterator, a binary...) ownsan never saw
  // handed out: a kind it cannot classify; let it through.
  if (type == HandleType::Other || type == HandleType::Error)
    return nullptr;
  // Case: the binding frees (or gives away) an object it got from code we
  // do not see. Adopt it now, as the C type of the argument the spec's
  // effect names (it is still intact), so later uses can be reported.
  RuntimeSection section;
  return RegisterImpl(fn, h, type, 1);
}

//===----------------------------------------------------------------------===//
// Labels
//===----------------------------------------------------------------------===//

// Does SnapshotName ask LLVM (values, types), or is the name the one
// recorded at registration (modules: see RegisterImpl)?
bool Runtime::NameComesFromLLVM(const ObjectRecord *r) {
  return IsValueKind(r->kind) || r->kind == ObjectKind::Type;
}

std::string Runtime::ValueName(const void *h) {
  size_t len = 0;
  const char *s =
      Real<const char *(*)(LLVMValueRef, size_t *)>(kFn_LLVMGetValueName2)(
          static_cast<LLVMValueRef>(const_cast<void *>(h)), &len);
  return std::string(s ? s : "", s ? len : 0);
}

std::string Runtime::ModuleName(const void *h) {
  size_t len = 0;
  const char *s = Real<const char *(*)(LLVMModuleRef, size_t *)>(
      kFn_LLVMGetModuleIdentifier)(
      static_cast<LLVMModuleRef>(const_cast<void *>(h)), &len);
  return std::string(s ? s : "", s ? len : 0);
}

std::string Runtime::SnapshotName(const ObjectRecord *r) {
  void *h = const_cast<void *>(r->addr);
  if (IsValueKind(r->kind))
    return ValueName(h);
  switch (r->kind) {
  case ObjectKind::Type: {
    char *s = Real<char *(*)(LLVMTypeRef)>(kFn_LLVMPrintTypeToString)(
        static_cast<LLVMTypeRef>(h));
    std::string out = s ? s : "";
    Real<void (*)(char *)>(kFn_LLVMDisposeMessage)(s);
    return out;
  }
  default:
    return r->name;
  }
}

std::string Runtime::ShortLabel(const ObjectRecord *r) {
  // (An opaque object is named by its C type unless it was given a name.)
  std::string name = r->kind == ObjectKind::Opaque && r->name.empty()
                         ? OpaqueNoun(r)
                         : std::string(r->name);
  // Live values are named as they are now (names change); freed ones as
  // they were when they died.
  if (r->state == ObjectState::Live && IsValueKind(r->kind))
    name = SnapshotName(r);
  // A name is the program's bytes: escaped, so it cannot forge report lines
  // or reach the terminal as an escape sequence (messages: CEscape below).
  std::string raw_name = name;
  name = PrintableText(name);
  std::string addr =
      absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(r->addr)));
  switch (r->kind) {
  case ObjectKind::Context:
    return absl::StrCat("context ", addr,
                        r->is_global_context ? " (global)" : "");
  case ObjectKind::Module:
    return absl::StrCat("module \"", name, "\"");
  case ObjectKind::Function:
  case ObjectKind::GlobalVariable:
  case ObjectKind::GlobalAlias:
  case ObjectKind::GlobalIFunc:
    return absl::StrCat(KindNoun(r->kind), " ",
                        name.empty() ? "<unnamed>" : "@" + name);
  case ObjectKind::BasicBlock:
  case ObjectKind::Instruction:
  case ObjectKind::Argument:
    return absl::StrCat(KindNoun(r->kind), " ",
                        name.empty() ? "<unnamed>" : "%" + name);
  case ObjectKind::Type:
    return absl::StrCat("type ", name.empty() ? addr : name);
  case ObjectKind::Opaque:
    return absl::StrCat(name.empty() ? "object" : name, " ", addr);
  case ObjectKind::Message:
  case ObjectKind::ErrorMessage:
    if (r->rare().unterminated)
      return absl::StrCat("message ", addr, " (not NUL-terminated)");
    return absl::StrCat(r->kind == ObjectKind::ErrorMessage ? "error message "
                                                            : "message ",
                        addr, " \"", absl::CEscape(raw_name), "\"");
  default:
    return absl::StrCat(KindNoun(r->kind), " ", addr);
  }
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

std::string Runtime::SymbolizerPath() const {
  if (!flags_.symbolize)
    return "";
  return flags_.symbolizer_path.empty() ? OWNSAN_DEFAULT_SYMBOLIZER
                                        : flags_.symbolizer_path;
}

namespace {
// Did a frame-pointer walk that ended at `pc` reach the start of its
// thread? A thread's outermost frames are glibc's (__libc_start_call_main,
// start_thread), which the walk reaches through code that keeps frame
// pointers; a walk that ends anywhere else met a frame without one.
bool EndsInLibc(uintptr_t pc) {
  static const void *const libc_base = [] {
    Dl_info d;
    return dladdr(reinterpret_cast<void *>(&gnu_get_libc_version), &d)
               ? d.dli_fbase
               : nullptr;
  }();
  Dl_info d;
  return libc_base && dladdr(reinterpret_cast<void *>(pc), &d) &&
         d.dli_fbase == libc_base;
}
} // namespace

StackId Runtime::ReportUseStack() {
  StackId id = CurrentCallStack();
  if (!flags_.fast_unwind)
    return id;
  const StackTrace &st = depot_.Get(id);
  if (st.pcs.empty() || !st.py_frames.empty() ||
      st.pcs.size() >= static_cast<size_t>(flags_.malloc_context_size) ||
      EndsInLibc(st.pcs.back()))
    return id; // stacks off, Python frames, full depth, or a whole walk
  // Case: the frame-pointer walk stopped at a frame without a frame pointer
  // (OCaml code, a bindings' C stub built without them): a report is rare,
  // so unwind this one with DWARF tables. Otherwise two misuses that reach
  // LLVM through the same stub would have the same use stack: one problem,
  // the second never shown, and neither at its line.
  return CaptureStack(false, /*dwarf=*/true);
}

ErrorReport Runtime::NewReport(ErrorKind kind, const ObjectRecord *object,
                               const void *handle, FnId fn, unsigned arg) {
  ErrorReport rep;
  rep.kind = kind;
  rep.object = object;
  rep.handle = handle;
  rep.fn = fn;
  rep.arg = arg;
  rep.use_stack = ReportUseStack();
  rep.thread = CurrentThreadNumber();
  return rep;
}

bool Runtime::SuppressedCallHarms(const ErrorReport &rep) {
  switch (ErrorKindCallHarm(rep.kind)) {
  case CallHarm::Never:
    return false;
  case CallHarm::Always:
    return true;
  case CallHarm::IfItFreesArg:
    return rep.fn < kFnCount && FreesArg(rep.fn, rep.arg);
  }
  return true;
}

bool Runtime::Report(ErrorReport rep) {
  RuntimeSection section;
  std::string text, kind;
  bool halt = flags_.halt_on_error;
  ErrorCallback callback = error_callback_.load();
  {
    MutexLock report_lock(&report_mu_);
    // Case: a problem already reported (same kind and call, same use site
    // and free site: the same use and free stacks): count it, do not print
    // it. Whole stacks, not innermost frames: in a binding, every call goes
    // through the same wrapper line.
    StackId free_stack = rep.object->freed ? rep.object->freed->stack : 0;
    if (rep.kind == ErrorKind::DanglingInsertionPoint && rep.related &&
        rep.related->freed)
      free_stack = rep.related->freed->stack;
    auto key = std::make_tuple(static_cast<int>(rep.kind), rep.fn,
                               rep.use_stack, free_stack);
    auto it = problem_index_.find(key);
    if (it != problem_index_.end()) {
      Problem &p = problems_[it->second];
      ++p.count;
      text = p.text;
      kind = p.kind;
    } else {
      auto fn_name = [](FnIndex f) { return FnName(f); };
      auto short_label = [this](const ObjectRecord *r) {
        return ShortLabel(r);
      };
      ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name,
                        short_label};
      ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
      ResolvedReport resolved = Resolve(rep, ctx);
      // Case: the user's suppression file names this report: say nothing.
      // The call goes through unchanged, unless making it would free memory
      // twice or corrupt it: then it is skipped, as in continue mode.
      if (suppressions_.Match(resolved))
        return SuppressedCallHarms(rep);
      Problem p;
      p.problem_id = resolved.problem_id;
      p.kind = resolved.kind_name;
      p.summary = resolved.summary;
      p.text = RenderText(resolved);
      p.count = 1;
      text = p.text;
      kind = p.kind;
      bool print =
          flags_.max_reports == 0 || printed_ < size_t(flags_.max_reports);
      if (print) {
        ++printed_;
        WriteOut(flags_.report_format == "json" ? RenderJson(resolved) + "\n"
                                                : p.text);
      }
      problem_index_[key] = problems_.size();
      problems_.push_back(std::move(p));
    }
  }
  if (callback) {
    // Case: the binding asked to turn reports into its own errors: it gets
    // the report, the call is skipped and returns 0/NULL.
    {
      MutexLock report_lock(&report_mu_);
      ++handled_by_callback_;
    }
    callback(kind.c_str(), text.c_str(), error_callback_user_.load());
    return true;
  }
  if (halt) {
    if (flags_.abort_on_error)
      abort();
    _exit(flags_.exitcode);
  }
  // Continue mode: skip the offending call.
  return true;
}

void Runtime::WriteOut(const std::string &text) {
  int fd = report_fd_;
  if (!flags_.log_path.empty()) {
    if (!log_tried_) {
      log_tried_ = true;
      std::string path = absl::StrCat(flags_.log_path, ".", getpid());
      // A new file only: never through a symlink, never over a file. (The
      // crash handler may have created it: a crash line came first.)
      log_fd_ = CrashLogFd();
      if (log_fd_ < 0)
        log_fd_ =
            open(path.c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (log_fd_ < 0 && errno == EEXIST)
        log_fd_ = CrashLogFd();
      if (log_fd_ >= 0)
        SetCrashLogFd(log_fd_);
      if (log_fd_ < 0) {
        std::string line = absl::StrCat(
            "==", getpid(), "==WARNING: OwnSan: cannot create log file ", path,
            ": ", strerror(errno), "; writing reports to stderr\n");
        (void)!write(report_fd_, line.data(), line.size());
      }
    }
    if (log_fd_ >= 0)
      fd = log_fd_;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += n;
  }
}

namespace {
// A live object the program was handed and has to dispose itself.
bool CallerMustDispose(const ObjectRecord *r) {
  bool owned =
      (r->kind == ObjectKind::Context && !r->is_global_context &&
       r->created_by == kFn_LLVMContextCreate) ||
      r->kind == ObjectKind::Builder || r->kind == ObjectKind::MemoryBuffer ||
      r->kind == ObjectKind::Opaque || r->kind == ObjectKind::Message ||
      r->kind == ObjectKind::ErrorMessage ||
      // a module is owned by the caller (a live context would
      // dispose it, but only if the context is disposed)
      r->kind == ObjectKind::Module;
  if (!owned || r->created_by == kNoFn || r->owned_by_other)
    return false;
  // An object owned by another live object (an iterator of a binary) is
  // that object's to free.
  return !(r->kind == ObjectKind::Opaque && r->parent);
}
} // namespace

void Runtime::ReportLeaks(std::string *out, size_t *leaked) {
  // Owned objects still alive: grouped by creating call and stack.
  struct Group {
    FnIndex fn;
    StackId stack;
    uint32_t thread;
    ObjectKind kind;
    size_t count = 0;
    std::string example;
  };
  std::vector<Group> groups;
  absl::flat_hash_map<std::pair<FnIndex, StackId>, size_t> index;
  {
    MutexLock lock(&mu_);
    graph_.ForEachLive([&](ObjectRecord *r) {
      mu_.AssertHeld(); // (called under the lock above)
      if (!CallerMustDispose(r) || inherited_.contains(r))
        return;
      auto [it, inserted] =
          index.try_emplace({r->created_by, r->create_stack}, groups.size());
      if (inserted)
        groups.push_back(
            {r->created_by, r->create_stack, r->create_thread, r->kind, 0, ""});
      Group &g = groups[it->second];
      if (g.count++ == 0)
        g.example =
            absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(r->addr)));
    });
  }
  *leaked = 0;
  if (groups.empty())
    return;
  auto fn_name = [](FnIndex f) { return FnName(f); };
  auto short_label = [this](const ObjectRecord *r) { return ShortLabel(r); };
  ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name, short_label};
  ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
  std::sort(groups.begin(), groups.end(),
            [](const Group &a, const Group &b) { return a.count > b.count; });
  bool json = flags_.report_format == "json";
  std::string text =
      absl::StrCat("==", getpid(),
                   "==ERROR: OwnSan: detected leaks of owned LLVM objects\n");
  std::string js =
      absl::StrCat("{\"ownsan_leaks\":1,\"pid\":", getpid(), ",\"groups\":[");
  // Every group's stack in one symbolizer run (see SymbolizerBatch).
  SymbolizerBatch batch;
  for (const Group &g : groups)
    (void)ResolveStack(g.stack, ctx);
  batch.Run(ctx.symbolizer_path, ctx.symbolizer_timeout_ms);
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group &g = groups[i];
    *leaked += g.count;
    ResolvedStack stack = ResolveStack(g.stack, ctx);
    absl::StrAppend(&text, "  ", g.count, " ", KindHandleType(g.kind),
                    g.count == 1 ? "" : "s", " (", KindNoun(g.kind), " ",
                    g.example, g.count == 1 ? "" : ", ...", ") created by ",
                    FnName(g.fn), " on thread T", g.thread,
                    ", never disposed:\n", StackText(stack));
    absl::StrAppend(&js, i ? "," : "", "{\"count\":", g.count,
                    ",\"handle_type\":", JsonEscape(KindHandleType(g.kind)),
                    ",\"kind\":", JsonEscape(KindNoun(g.kind)),
                    ",\"example\":", JsonEscape(g.example),
                    ",\"function\":", JsonEscape(FnName(g.fn)),
                    ",\"thread\":", g.thread, ",\"stack\":");
    AppendJsonStack(&js, stack);
    js += "}";
  }
  absl::StrAppend(&text, "SUMMARY: OwnSan: ", *leaked,
                  " leaked object(s) from ", groups.size(),
                  " allocation site(s)\n");
  absl::StrAppend(&js, "],\"total\":", *leaked, "}\n");
  *out += json ? js : text;
}

void Runtime::OnExit() {
  RuntimeSection section;
  // Not checked, so said (as for another major's calls): one line.
  if (uint64_t n = g_signal_handler_calls.load(std::memory_order_relaxed)) {
    std::string line = absl::StrCat(
        "==", getpid(), "==OwnSan: note: ", n,
        " LLVM-C call(s) made in signal handlers were not checked (checking "
        "may allocate, and a handler may have interrupted malloc)\n");
    (void)!write(2, line.data(), line.size());
  }
  std::string out;
  size_t leaked = 0;
  if (flags_.report_leaks)
    ReportLeaks(&out, &leaked);
  bool any, unhandled = false;
  {
    MutexLock lock(&report_mu_);
    any = !problems_.empty();
    // Problems a binding turned into its own errors (error callback) do
    // not fail the run by themselves.
    size_t occurrences = 0;
    for (const Problem &p : problems_)
      occurrences += p.count;
    unhandled = occurrences > handled_by_callback_;
    bool used_suppressions = false;
    for (const Suppression &s : suppressions_.rules())
      used_suppressions |= s.hits > 0;
    if (flags_.report_format == "json") {
      std::string json = absl::StrCat(
          "{\"ownsan_summary\":1,\"pid\":", getpid(), ",\"problems\":[");
      for (size_t i = 0; i < problems_.size(); ++i)
        absl::StrAppend(&json, i ? "," : "",
                        "{\"problem_id\":", JsonEscape(problems_[i].problem_id),
                        ",\"kind\":", JsonEscape(problems_[i].kind),
                        ",\"count\":", problems_[i].count,
                        ",\"summary\":", JsonEscape(problems_[i].summary), "}");
      absl::StrAppend(&json, "],\"suppressed\":[");
      bool first = true;
      for (const Suppression &s : suppressions_.rules())
        if (s.hits) {
          absl::StrAppend(&json, first ? "" : ",", "{\"pattern\":",
                          JsonEscape(absl::StrCat(s.type, ":", s.pattern)),
                          ",\"count\":", s.hits, "}");
          first = false;
        }
      absl::StrAppend(&json, "],\"leaked\":", leaked, ",\"exitcode\":",
                      (any && unhandled) || leaked ? flags_.exitcode : 0,
                      "}\n");
      if (any || used_suppressions || leaked) {
        if (!out.empty())
          WriteOut(out); // the leak object, one JSON line
        WriteOut(json);
      }
    } else {
      if (flags_.print_summary && any) {
        size_t total = 0;
        absl::StrAppend(&out, "==", getpid(), "==OwnSan: ", problems_.size(),
                        " distinct problem(s):\n");
        for (const Problem &p : problems_) {
          total += p.count;
          absl::StrAppend(&out, "  ", p.count, "x ", p.summary, "\n");
        }
        absl::StrAppend(&out, "SUMMARY: OwnSan: ", problems_.size(),
                        " distinct problem(s), ", total, " occurrence(s)\n");
      }
      if (used_suppressions && flags_.print_summary) {
        absl::StrAppend(&out, "==", getpid(), "==OwnSan: suppressions used:\n");
        for (const Suppression &s : suppressions_.rules())
          if (s.hits)
            absl::StrAppend(&out, "  ", s.hits, " ", s.type, ":", s.pattern,
                            "\n");
      }
      if (!out.empty())
        WriteOut(out);
    }
  }
  if (flags_.verbosity >= 1)
    PrintExitStatistics();
  if ((any && unhandled) || leaked) {
    // The run had problems: the process ends with `exitcode`, as with a
    // sanitizer in recover mode, after stdio is flushed.
    fflush(nullptr);
    _exit(flags_.exitcode);
  }
}

// fork(): every runtime lock is taken before the fork, in the order the
// runtime nests them (report, quarantine, graph, then the leaf locks), so
// no lock is held by a thread that will not exist in the child. The parent
// releases them; the child gets fresh, unlocked mutexes (other threads may
// have been queued on the old ones).
namespace {
// The fork handlers are runtime work: allocations they make must not reach
// the allocation hook, which would wait for the locks they hold.
bool g_fork_saved_in_runtime = false;
} // namespace

void Runtime::PrepareFork() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  g_fork_saved_in_runtime = CurrentThreadCallState().in_runtime;
  CurrentThreadCallState().in_runtime = true;
  report_mu_.Lock();
  quarantine_mu_.Lock();
  mu_.Lock();
  g_ranges_mu.Lock();
  g_thread_calls_mu.Lock();
  depot_.LockForFork();
  g_spare_stack_caches_mu.Lock();
  LockFreeEventsForFork(true);
  LockPythonFramesForFork(true);
}

void Runtime::AfterForkInParent() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockPythonFramesForFork(false);
  LockFreeEventsForFork(false);
  g_spare_stack_caches_mu.Unlock();
  depot_.UnlockAfterFork(false);
  g_thread_calls_mu.Unlock();
  g_ranges_mu.Unlock();
  mu_.Unlock();
  quarantine_mu_.Unlock();
  report_mu_.Unlock();
  CurrentThreadCallState().in_runtime = g_fork_saved_in_runtime;
}

void Runtime::AfterForkInChild() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Threads of the parent that were inside calls do not exist here.
  graph_.ForEachLive([](ObjectRecord *r) {
    if (ContextUse *use =
            r->kind == ObjectKind::Context ? r->context_use : nullptr) {
      use->active_thread.store(0);
      use->last_thread.store(0);
    }
  });
  ResetPythonFramesLockInChild();
  ResetFreeEventsLockInChild();
  new (&g_spare_stack_caches_mu) Mutex;
  depot_.UnlockAfterFork(true);
  new (&g_ranges_mu) Mutex;
  new (&g_thread_calls_mu) Mutex;
  ForkThreadCalls();
  new (&mu_) Mutex;
  new (&quarantine_mu_) Mutex;
  new (&report_mu_) Mutex;
  // What the parent made before the fork is the parent's to dispose (and to
  // report): a child that exits reports only the objects it made itself.
  {
    // (Alone in the process, but -Wthread-safety checks the lambda below on
    // its own: it is called under this lock.)
    MutexLock lock(&mu_);
    inherited_.clear();
    if (flags_.report_leaks)
      graph_.ForEachLive([this](ObjectRecord *r) {
        mu_.AssertHeld();
        if (CallerMustDispose(r))
          inherited_.insert(r);
      });
  }
  // The child is a new process: its own problems, its own log file.
  problems_.clear();
  problem_index_.clear();
  handled_by_callback_ = 0;
  printed_ = 0;
  if (log_fd_ >= 0)
    close(log_fd_);
  log_fd_ = -1;
  SetCrashLogFd(-1);
  log_tried_ = false;
  CurrentThreadCallState().in_runtime = g_fork_saved_in_runtime;
}

void Runtime::SetErrorCallback(ErrorCallback cb, void *user) {
  error_callback_user_.store(user);
  error_callback_.store(cb);
}

int Runtime::HandleState(const void *h) {
  if (!h)
    return 0;
  FlushDeaths(); // (called from a callback inside a call)
  RuntimeSection section;
  MutexLock lock(&mu_);
  if (graph_.Find(h))
    return 1;
  ShadowMap::EvictedObject evicted;
  if (shadow_.Find(h) || shadow_.FindEvicted(h, &evicted))
    return 2;
  return 0;
}

std::string Runtime::DescribeHandle(const void *h) {
  FlushDeaths(); // (called from a callback inside a call)
  RuntimeSection section;
  ObjectRecord *r = nullptr;
  ShadowMap::EvictedObject evicted;
  bool was_evicted = false;
  HistoryPin pin(this);
  {
    MutexLock lock(&mu_);
    r = graph_.Find(h);
    if (!r && (r = shadow_.Find(h)))
      pin.Take();
    if (!r)
      was_evicted = shadow_.FindEvicted(h, &evicted);
  }
  if (was_evicted)
    return absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(h)), " (",
                        KindNoun(evicted.kind),
                        "): freed; its history "
                        "was evicted (history_size_mb=",
                        flags_.history_size_mb, ")\n");
  if (!r)
    return absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(h)),
                        ": not an object ownsan knows");
  auto fn_name = [](FnIndex f) { return FnName(f); };
  auto short_label = [this](const ObjectRecord *o) { return ShortLabel(o); };
  ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name, short_label};
  ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
  ErrorReport rep;
  rep.object = r;
  rep.handle = h;
  rep.fn = r->created_by;
  ResolvedReport rr = Resolve(rep, ctx);
  std::string out =
      absl::StrCat(rr.handle_type, " ", rr.handle, " (", rr.object_label,
                   "): ", r->state == ObjectState::Live ? "live" : "freed",
                   ", identity ", rr.identity, "\n");
  if (rr.free.present)
    absl::StrAppend(&out, "  ", rr.free.heading, "\n");
  if (rr.create.present)
    absl::StrAppend(&out, "  ", rr.create.heading, "\n");
  std::string chain;
  for (const auto &link : rr.chain)
    absl::StrAppend(&chain, chain.empty() ? "" : " -> ", link.second);
  absl::StrAppend(&out, "  ownership chain: ", chain, "\n");
  return out;
}

size_t Runtime::LiveObjects() {
  MutexLock lock(&mu_);
  return graph_.LiveCount();
}

size_t Runtime::FreedObjects() {
  MutexLock lock(&mu_);
  return shadow_.size();
}

//===----------------------------------------------------------------------===//
// CallScope (interpose/wrapper_api.h)
//===----------------------------------------------------------------------===//

// Wrapped calls are checked only once the library constructor has made
// the runtime (g_enabled), so g_runtime is set here.
bool CallScope::CheckHandleArg(FnId fn, unsigned arg, const void *h,
                               HandleType type) {
  return g_runtime.load(std::memory_order_relaxed)
      ->CheckHandle(fn, arg, h, type);
}

ArgVerdict CallScope::CheckKindedArg(FnId fn, unsigned arg, const void *h,
                                     HandleType type, uint8_t expected) {
  return g_runtime.load(std::memory_order_relaxed)
      ->CheckKindedHandle(fn, arg, h, type, expected);
}

void CallScope::RegisterResult(FnId fn, const void *h, HandleType type) {
  g_runtime.load(std::memory_order_relaxed)->Register(fn, h, type);
}

void CallScope::CheckArray(unsigned arg, const void *const *hs, size_t n,
                           HandleType type) {
  if (!hs)
    return;
  for (size_t i = 0; i < n; ++i)
    if (hs[i] && CheckHandleArg(fn_, arg, hs[i], type))
      skip_ = true;
}

void CallScope::Before(const void *const *args) {
  // A call already held back by a report has no effects.
  if (!skip_)
    skip_ = Runtime::Get().Before(fn_, args, nullptr);
}

void CallScope::Before(const void *const *args, void *const *slots) {
  if (!skip_)
    skip_ = Runtime::Get().Before(fn_, args, slots);
}

void CallScope::After(const void *const *args, const void *ret, bool ok) {
  // Deaths during the call come first: after-effects (a consumed module's
  // teardown) see the values LLVM has already destroyed as freed.
  if (tls_call_state.pending_deaths)
    FlushDeaths();
  Runtime::Get().After(fn_, args, ret, ok);
}

void CallScope::FlushDeaths() { Runtime::Get().FlushDeaths(); }

void CallScope::OutArray(unsigned, const void *const *hs, size_t n,
                         HandleType type) {
  if (!hs || unverified_)
    return; // (see Returned)
  for (size_t i = 0; i < n; ++i)
    Runtime::Get().Register(fn_, hs[i], type);
}

namespace {
// The last borrowed strings LLVM handed to this thread: a fixed ring, so a
// getter call costs a few stores. A binding that frees a borrowed string
// does so right after getting it, on the same thread.
struct LentString {
  const char *s;
  FnId fn;
  const void *args[3];
  CallScope::RegetFn reget;
};
struct LentStrings {
  LentString ring[16];
  unsigned next;
};
LentStrings &CurrentLentStrings() {
  static thread_local LentStrings lent
      __attribute__((tls_model("initial-exec")));
  return lent;
}
} // namespace

void CallScope::BorrowedString(const char *s, const void *a0, const void *a1,
                               const void *a2, RegetFn reget) {
  if (!s)
    return;
  // (A section: a signal handler's getter call that interrupts the write is
  // forwarded unchecked rather than mix its entry into this one.)
  RuntimeSection section;
  LentStrings &lent = CurrentLentStrings();
  lent.ring[lent.next++ % 16] = {s, fn_, {a0, a1, a2}, reget};
}

bool Runtime::ReportLentStringFree(FnId fn, unsigned arg, const void *s) {
  const LentStrings &lent = CurrentLentStrings();
  for (const LentString &e : lent.ring) {
    if (e.s != s || !e.reget)
      continue;
    // Case: the string came from a getter on this thread. It is still lent
    // only if every handle it was asked for is live and the getter still
    // returns this very pointer (its memory may have been freed and reused
    // since, e.g. by a string the binding made and may free).
    ObjectRecord *owner = nullptr;
    bool live = true;
    for (const void *h : e.args)
      if (h) {
        ObjectRecord *r = LookupLive(h);
        live = live && r;
        if (!owner)
          owner = r;
      }
    if (!live || !owner)
      continue;
    const char *now;
    {
      RuntimeSection section;
      now = e.reget(e.args);
    }
    if (now != s)
      continue;
    RegisterOpaque(e.fn, s, "const char *", owner->addr);
    ObjectRecord *r = LookupLive(s);
    if (!r)
      return false;
    {
      MutexLock lock(&mu_);
      r->name = "string";
      r->create_stack = 0; // the getter's stack is not recorded (cost)
      r->owned_by_other = true;
      r->MutableRare().owned_via = e.fn;
    }
    ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, s, fn, arg);
    rep.note = absl::StrCat(
        FnName(fn), " frees a string LLVM only lent: ", FnName(e.fn),
        " returned it and ", ShortLabel(owner),
        " owns it; only strings LLVM hands out as owned (LLVMPrint*ToString, "
        "error messages...) go to ",
        FnName(fn));
    return Report(std::move(rep));
  }
  return false;
}

} // namespace ownsan

// longjmp & co. (interpose/jump_entry.c) call this before they jump.
extern "C" void ownsan_before_jump(uintptr_t target, uintptr_t here) {
  ownsan::LeaveSignalFramesBelow(target);
  ownsan::CallScope::BeforeJump(target, here);
}

// The allocation hook (interpose/allocation_observer.cpp) calls this.
void OwnsanOnAllocation(const void *p, size_t n) {
  // Allocations made before the runtime exists (or by its constructor)
  // cannot cover anything it tracks.
  if (ownsan::g_runtime_ready.load(std::memory_order_relaxed))
    ownsan::Runtime::Get().OnAllocation(p, n);
}

// operator new (interpose/allocation_observer.cpp) calls this when malloc
// fails for the runtime's own work: no exception may leave the runtime.
void OwnsanOutOfMemory(size_t n) {
  char line[160];
  int len = snprintf(line, sizeof line,
                     "==%d==ERROR: OwnSan: out of memory: ownsan could not "
                     "allocate %zu bytes for its own records\n",
                     static_cast<int>(getpid()), n);
  (void)!write(2, line, len > 0 ? std::min<size_t>(len, sizeof line - 1) : 0);
  _exit(1);
}

// operator delete (interpose/allocation_observer.cpp) asks this.
bool OwnsanTakeIntoQuarantine(void *p) {
  return ownsan::g_runtime_ready.load(std::memory_order_relaxed) &&
         ownsan::Runtime::Get().TakeIntoQuarantine(p);
}

namespace {

// Under AddressSanitizer (or another sanitizer allocator) loaded ahead of
// ownsan, the sanitizer's operator new and delete are the ones called, not
// ownsan's. Its allocator then tells ownsan about new memory through the
// sanitizers' malloc hooks, and its own quarantine delays the reuse of freed
// memory (ASan's quarantine_size_mb), so both halves of ownsan's reasoning
// about reused addresses still hold.
void OnSanitizerMalloc(const volatile void *p, size_t n) {
  OwnsanOnAllocation(const_cast<const void *>(p), n);
}
void OnSanitizerFree(const volatile void *p) {
  if (p && ownsan::g_runtime_ready.load(std::memory_order_relaxed))
    ownsan::Runtime::Get().OnSanitizerFree(const_cast<const void *>(p));
}

void InstallSanitizerAllocatorHooks() {
  using Installer = int (*)(void (*)(const volatile void *, size_t),
                            void (*)(const volatile void *));
  if (auto install = reinterpret_cast<Installer>(
          dlsym(RTLD_DEFAULT, "__sanitizer_install_malloc_and_free_hooks"))) {
    install(&OnSanitizerMalloc, &OnSanitizerFree);
  }
}

} // namespace

__attribute__((constructor(101))) static void OwnsanInit() {
  ownsan::Runtime::Get();
  InstallSanitizerAllocatorHooks();
  // A child of fork() must not inherit a lock another thread held.
  pthread_atfork([] { ownsan::Runtime::Get().PrepareFork(); },
                 [] { ownsan::Runtime::Get().AfterForkInParent(); },
                 [] { ownsan::Runtime::Get().AfterForkInChild(); });
  if (!ownsan::Runtime::Get().flags().follow_children)
    ownsan::RemoveRuntimeFromPreload();
  // forward_only: the wrappers and the allocation hooks stay plain
  // forwards for the whole run (the interposition's own cost).
  if (ownsan::Runtime::Get().flags().forward_only)
    return;
  // A program linked against another major's libLLVM: its calls pass by.
  ownsan::NoteUncheckedLibLLVMs();
  ownsan::g_runtime_ready.store(true);
  ownsan::g_enabled.store(true);
}

//===----------------------------------------------------------------------===//
// The public API (include/ownsan/ownsan.h)
//===----------------------------------------------------------------------===//

extern "C" OWNSAN_EXPORT int ownsan_handle_state(const void *handle) {
  return ownsan::Runtime::Get().HandleState(handle);
}

extern "C" OWNSAN_EXPORT size_t ownsan_describe_handle(const void *handle,
                                                       char *buffer,
                                                       size_t size) {
  std::string text = ownsan::Runtime::Get().DescribeHandle(handle);
  if (buffer && size) {
    size_t n = std::min(size - 1, text.size());
    memcpy(buffer, text.data(), n);
    buffer[n] = 0;
  }
  return text.size();
}

extern "C" OWNSAN_EXPORT void ownsan_set_error_callback(
    void (*callback)(const char *kind, const char *report, void *user),
    void *user) {
  ownsan::Runtime::Get().SetErrorCallback(callback, user);
}
