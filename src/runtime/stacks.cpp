//===- stacks.cpp - Stack capture and free events -------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Stacks of creating, freeing and using calls (with a per-thread cache of
// recent stacks), the code ranges whose frames are not the program's, and
// the free event of the running call.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "report/output_line.h"
#include "report/python_frames.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <vector>

namespace ownsan {

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
// The span from the lowest range to the highest (written before the count
// that publishes a range): a program's frames, in its executable or in
// libraries loaded apart from ownsan's and LLVM's, are most often outside
// it, answered without a look at each range.
std::atomic<uintptr_t> g_ranges_lo{UINTPTR_MAX}, g_ranges_hi{0};

// Publishes `r` as the n-th range.
void PublishRange(int n, CodeRange r)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_ranges_mu) {
  g_ranges[n] = r;
  if (r.lo < g_ranges_lo.load(std::memory_order_relaxed))
    g_ranges_lo.store(r.lo, std::memory_order_relaxed);
  if (r.hi > g_ranges_hi.load(std::memory_order_relaxed))
    g_ranges_hi.store(r.hi, std::memory_order_relaxed);
  g_range_count.store(n + 1, std::memory_order_release);
}

} // namespace

void AddCodeRangesOf(const void *addr_in_module, bool llvm) {
  // The object is the one with a loaded segment holding the address. (Not
  // dladdr: it walks the object's whole symbol table, ~1 ms for libLLVM.)
  struct Arg {
    uintptr_t addr;
    std::vector<CodeRange> found;
  } arg{reinterpret_cast<uintptr_t>(addr_in_module), {}};
  dl_iterate_phdr(
      [](dl_phdr_info *pi, size_t, void *data) {
        auto *a = static_cast<Arg *>(data);
        auto segment = [pi](int i) {
          uintptr_t lo = pi->dlpi_addr + pi->dlpi_phdr[i].p_vaddr;
          return std::make_pair(lo, lo + pi->dlpi_phdr[i].p_memsz);
        };
        bool holds = false;
        for (int i = 0; i < pi->dlpi_phnum && !holds; ++i)
          holds = pi->dlpi_phdr[i].p_type == PT_LOAD &&
                  a->addr >= segment(i).first && a->addr < segment(i).second;
        if (!holds)
          return 0;
        for (int i = 0; i < pi->dlpi_phnum; ++i)
          if (pi->dlpi_phdr[i].p_type == PT_LOAD &&
              (pi->dlpi_phdr[i].p_flags & PF_X))
            a->found.push_back({segment(i).first, segment(i).second, false});
        return 1;
      },
      &arg);
  MutexLock lock(&g_ranges_mu);
  for (auto r : arg.found) {
    int n = g_range_count.load(std::memory_order_relaxed);
    if (n == kMaxRanges)
      break;
    r.llvm = llvm;
    PublishRange(n, r);
  }
}

#if OWNSAN_LINK_MODE
// The linker's bounds of the section that holds all of the runtime's code
// when it is linked into a program (see OWNSAN_LINK_SCRIPT in CMakeLists.txt).
extern "C" const char __start_ownsan_text[] __attribute__((weak));
extern "C" const char __stop_ownsan_text[] __attribute__((weak));
#endif

void AddOwnCodeRanges() {
#if OWNSAN_LINK_MODE
  if (!__start_ownsan_text || __stop_ownsan_text <= __start_ownsan_text)
    return;
  MutexLock lock(&g_ranges_mu);
  int n = g_range_count.load(std::memory_order_relaxed);
  if (n == kMaxRanges)
    return;
  PublishRange(n, {reinterpret_cast<uintptr_t>(__start_ownsan_text),
                   reinterpret_cast<uintptr_t>(__stop_ownsan_text), false});
#else
  AddCodeRangesOf(reinterpret_cast<void *>(&AddOwnCodeRanges));
#endif
}

#if OWNSAN_LINK_MODE
// Generated with the wrappers: the address of each LLVM-C function the
// program linked in (null for the others).
extern const void *const kLinkedRealFns[];
extern const unsigned kLinkedRealFnCount;

void AddLinkedLLVMCodeRange() {
  // `ownsan link-flags` go after the program's objects, so the static LLVM
  // the link takes lies after the program's code: from the lowest LLVM-C
  // function linked in to the end of that executable segment (which holds
  // only the C library's and the compiler's static bits besides).
  uintptr_t lo = UINTPTR_MAX;
  for (unsigned i = 0; i < kLinkedRealFnCount; ++i)
    if (kLinkedRealFns[i])
      lo = std::min(lo, reinterpret_cast<uintptr_t>(kLinkedRealFns[i]));
  if (lo == UINTPTR_MAX)
    return;
  struct Arg {
    uintptr_t lo, hi = 0;
  } arg{lo};
  dl_iterate_phdr(
      [](dl_phdr_info *pi, size_t, void *data) {
        auto *a = static_cast<Arg *>(data);
        for (int i = 0; i < pi->dlpi_phnum; ++i) {
          const auto &ph = pi->dlpi_phdr[i];
          uintptr_t start = pi->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && a->lo >= start &&
              a->lo < start + ph.p_memsz) {
            a->hi = start + ph.p_memsz;
            return 1;
          }
        }
        return 0;
      },
      &arg);
  if (!arg.hi)
    return;
  MutexLock lock(&g_ranges_mu);
  int n = g_range_count.load(std::memory_order_relaxed);
  if (n == kMaxRanges)
    return;
  PublishRange(n, {lo, arg.hi, true});
}
#endif

namespace {

// Is `pc` in a recorded range (of libLLVM only, if `llvm_only`)?
bool InCodeRanges(uintptr_t pc, bool llvm_only) {
  int n = g_range_count.load(std::memory_order_acquire);
  if (pc < g_ranges_lo.load(std::memory_order_relaxed) ||
      pc >= g_ranges_hi.load(std::memory_order_relaxed))
    return false;
  for (int i = 0; i < n; ++i)
    if ((g_ranges[i].llvm || !llvm_only) && pc >= g_ranges[i].lo &&
        pc < g_ranges[i].hi)
      return true;
  return false;
}
bool IsInternalPc(uintptr_t pc) { return InCodeRanges(pc, false); }
bool IsLLVMPc(uintptr_t pc) { return InCodeRanges(pc, true); }

} // namespace
//===----------------------------------------------------------------------===//
// Stacks and free events
//===----------------------------------------------------------------------===//

namespace {
// Stacks this thread stored, with their depot ids, by hash (128 entries:
// 32 sets of 4). A call site that runs in a loop (creating objects, or
// claiming a context that changed threads) finds its stack here: no depot
// lock, no hashing of vectors, no allocation. A binding copying a module
// cycles through a few dozen to a hundred call sites: direct-mapped, two of
// them met in one entry often enough (which ones depends on where the code
// is loaded) that each evicted the other on every pass. Exact: an entry is
// used only for the very same frames. The cache (26 KiB) is taken for a
// thread when it first captures a stack and given back when it exits, not
// kept in thread-local storage: glibc takes that from each thread's stack,
// and a thread created with a small stack must still start. Caches given
// back are reused by the next threads (a few are kept; their entries name
// process-wide depot ids, valid on any thread), so short threads cost no
// mapping each.
constexpr int kCachedFrames = 24; // the default malloc_context_size
constexpr unsigned kStackCacheSetBits = 5;
constexpr int kStackCacheWays = 4;
struct CachedStack {
  uint64_t hash;
  uint32_t n;
  StackId id; ///< 0: empty entry
  uintptr_t pcs[kCachedFrames];
};
struct StackCacheSet {
  CachedStack way[kStackCacheWays];
  uint32_t next_victim; ///< round robin
};
struct StackCache {
  StackCacheSet set[1u << kStackCacheSetBits];
};
__thread StackCache *tls_stack_cache OWNSAN_TLS_MODEL;

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

StackCacheSet &StackCacheSetOf(uint64_t hash) {
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
  return cache->set[hash >> (64 - kStackCacheSetBits)];
}

// (A loop, not std::equal: a cached stack is a few frames, and a call
// into the C library's memcmp costs more than comparing them.)
bool SameFrames(const uintptr_t *a, const uintptr_t *b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i])
      return false;
  return true;
}

uint64_t HashFrames(const uintptr_t *pcs, int n) {
  uint64_t h = 0x9E3779B97F4A7C15ull * (n + 1);
  for (int i = 0; i < n; ++i)
    h = (h ^ pcs[i]) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}
} // namespace

void Runtime::NotePythonTooOld() {
  static std::atomic<bool> said{false};
  if (said.exchange(true, std::memory_order_relaxed))
    return;
  std::string line = OwnsanLine(
      LineLevel::kInfo,
      absl::StrCat("note: Python frames need CPython 3.9 or later; this "
                   "process runs ",
                   PythonTooOldForFrames(), ", so stacks show native frames"));
  (void)!write(report_fd_, line.data(), line.size());
}

StackId Runtime::CaptureStack(bool from_inside_llvm, bool dwarf,
                              const void *call_frame) {
  // The stack and the depot allocate and free memory (the depot under its
  // lock): the allocation hooks must not come back into the runtime (freed
  // memory can hold filter bits, and recording a death captures a stack).
  RuntimeSection section;
  int depth = flags_.malloc_context_size;
  // Stacks off: nothing to unwind (the depot gives the empty stack an id).
  if (depth == 0)
    return empty_stack_;
  constexpr int kMaxRaw = 256;
  uintptr_t raw[kMaxRaw];
  int n = -1;
  // Case: a wrapped call's stack from inside LLVM: the program's frames
  // start at the wrapper's frame, one walk up its frame pointers.
  if (call_frame && flags_.fast_unwind && tls_call.fn != kNoFn) {
    n = CaptureNativeStackFrom(call_frame, raw, kMaxRaw, depth + 32);
    if (n > 0)
      from_inside_llvm = false;
  }
  if (n <= 0) {
    // Frames inside libLLVM have no frame pointers: unwind with DWARF
    // there.
    bool fast = flags_.fast_unwind && !from_inside_llvm && !dwarf;
    n = CaptureNativeStack(raw, kMaxRaw, 0, depth + 32, fast);
  }
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
  // Inside a wrapped call, the program's frames start where the wrapper
  // returns to: one compare per frame (not a look through the code ranges
  // for each of the runtime's own frames), and what finds them when LLVM
  // is linked into the program, where no range tells LLVM's frames apart.
  if (const void *caller = tls_call.caller_pc; caller && tls_call.fn != kNoFn)
    for (int j = i; j < n; ++j)
      if (raw[j] == reinterpret_cast<uintptr_t>(caller)) {
        i = j;
        break;
      }
  while (i < n && IsInternalPc(raw[i]))
    ++i;
  const uintptr_t *pcs = raw + i;
  int kept = std::min(n - i, depth);
  std::vector<uint32_t> py_frames;
  if (flags_.python_frames) {
    CapturePythonFrames(&py_frames, depth);
    if (py_frames.empty() && !PythonTooOldForFrames().empty())
      NotePythonTooOld();
  }
  // Only native-only stacks are cached (Python frames are part of a
  // stack's identity).
  bool cacheable = py_frames.empty() && kept <= kCachedFrames;
  uint64_t hash = 0;
  StackCacheSet *set = nullptr;
  if (cacheable) {
    hash = HashFrames(pcs, kept);
    set = &StackCacheSetOf(hash);
    for (const CachedStack &c : set->way)
      if (c.id && c.hash == hash && c.n == static_cast<uint32_t>(kept) &&
          SameFrames(pcs, c.pcs, kept))
        return c.id;
  }
  StackTrace st;
  st.pcs.assign(pcs, pcs + kept);
  st.py_frames = std::move(py_frames);
  StackId id = depot_.Put(std::move(st));
  if (set) {
    CachedStack &c = set->way[set->next_victim++ % kStackCacheWays];
    c.hash = hash;
    c.n = kept;
    c.id = id;
    std::copy(pcs, pcs + kept, c.pcs);
  }
  return id;
}

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
    // unless the call's stack was taken before it was forwarded (its
    // frames are found from the wrapper's, not unwound by DWARF).
    StackId stack = call.stack ? call.stack
                               : CaptureStack(target == nullptr,
                                              /*dwarf=*/false, call.frame);
    if (!call.stack && target)
      call.stack = stack;
    call.event = NewThreadFreeEvent(call.fn, target, stack, call.cause_text);
  }
  return call.event;
}

void LockCodeRangesForFork(bool lock) { LockForFork(g_ranges_mu, lock); }
void ResetCodeRangesLockInChild() { ResetInForkChild(g_ranges_mu); }

void LockStackCachesForFork(bool lock) {
  LockForFork(g_spare_stack_caches_mu, lock);
}
void ResetStackCachesLockInChild() {
  ResetInForkChild(g_spare_stack_caches_mu);
}

} // namespace ownsan
