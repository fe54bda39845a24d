//===- native_reuse.cpp - Where glibc would have put what ownsan holds ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The quarantine keeps a freed block out of use, so a stale handle keeps
// naming the dead object and is reported. Without ownsan, glibc hands a
// freed block of up to 1,032 bytes to the next request of its size on the
// same thread (its per-thread cache, tcache, is last in, first out), and a
// stale handle then names that newer object: the bug shows as a wrong
// answer, not a crash (MLIR's Python bindings, liveOperations). So a
// report can say what the address would hold natively, the malloc observer
// (interpose/malloc_observer.cpp) replays each thread's tcache for the
// sizes it caches: a block the quarantine took is a marked entry, a real
// free a plain one, and the malloc that would have popped a marked entry
// is that block's native successor (NoteNativeSuccessor).
//
// Approximate by design: the real cache's fill before the first marked
// entry is unknown (a full bin of 7 sends a free elsewhere), and calloc
// skips the cache. The report says "would", and names the successor only
// if the runtime knows an object there.
//
// Cost: one thread-local load per malloc and free while this thread has
// no marked entry in its replay (almost always); a marked entry that no
// request of its size takes within kReplayBudget mallocs is dropped.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include <malloc.h>

#include <cstring>

namespace ownsan {

namespace {

// glibc's tcache: 64 bins of usable sizes 24, 40, ..., 1032, at most 7
// blocks each (tcache_count).
constexpr size_t kBins = 64;
constexpr uint8_t kBinDepth = 7;
constexpr uint32_t kReplayBudget = 4096;

struct ReplayBin {
  const void *entries[kBinDepth]; // nullptr: a block freed for real
  uint8_t n;
};

struct TcacheReplay {
  ReplayBin bins[kBins];
  uint32_t marked;       // marked entries in all bins
  uint32_t mallocs_left; // until the replay is dropped
};

TcacheReplay &CurrentReplay() {
  static thread_local TcacheReplay replay OWNSAN_TLS_MODEL;
  return replay;
}

// The bin of a block, or kBins for a size tcache does not cache.
size_t BinOf(const void *p) {
  size_t usable = malloc_usable_size(const_cast<void *>(p));
  if (usable < 24 || usable > 1032 || (usable - 24) % 16 != 0)
    return kBins;
  return (usable - 24) / 16;
}

void Push(TcacheReplay &replay, size_t bin, const void *marked) {
  ReplayBin &b = replay.bins[bin];
  if (b.n == kBinDepth)
    return; // (glibc would put it elsewhere: no request of this size takes it)
  b.entries[b.n++] = marked;
  if (marked) {
    ++replay.marked;
    replay.mallocs_left = kReplayBudget;
  }
}

bool Replaying() {
  return g_runtime_ready.load(std::memory_order_relaxed) &&
         CurrentReplay().marked != 0 && !CurrentThreadCallState().in_runtime;
}

// A block leaves the program: a marked entry (`held`: the quarantine took
// it) or a plain one (glibc has it back), in its size's bin.
void PushFreed(const void *p, bool held) {
  size_t bin = BinOf(p);
  if (bin < kBins)
    Push(CurrentReplay(), bin, held ? p : nullptr);
}

} // namespace

} // namespace ownsan

using ownsan::CurrentReplay;

// The malloc observer: `p` was taken into the quarantine.
void OwnsanNativeReuseHeld(const void *p) {
  if (!ownsan::g_runtime_ready.load(std::memory_order_relaxed) ||
      ownsan::CurrentThreadCallState().in_runtime)
    return;
  ownsan::PushFreed(p, /*held=*/true);
}

// The malloc observer: `p` goes back to glibc now. (Only while a marked
// entry waits: plain entries matter only above one.)
void OwnsanNativeReuseFreed(const void *p) {
  if (ownsan::Replaying())
    ownsan::PushFreed(p, /*held=*/false);
}

// The malloc observer: malloc returned `p`.
void OwnsanNativeReuseMalloc(const void *p) {
  if (!ownsan::Replaying())
    return;
  ownsan::TcacheReplay &replay = CurrentReplay();
  if (--replay.mallocs_left == 0) {
    memset(&replay, 0, sizeof replay);
    return;
  }
  size_t bin = ownsan::BinOf(p);
  if (bin >= ownsan::kBins || replay.bins[bin].n == 0)
    return;
  ownsan::ReplayBin &b = replay.bins[bin];
  const void *held = b.entries[--b.n];
  if (!held)
    return;
  --replay.marked;
  ownsan::Runtime::Get().NoteNativeSuccessor(held, 24 + 16 * bin, p);
}

namespace ownsan {

void Runtime::NoteNativeSuccessor(const void *held, size_t size,
                                  const void *successor) {
  RuntimeSection section;
  MutexLock lock(&native_reuse_mu_);
  native_successors_[native_successors_next_++ % kNativeSuccessors] = {
      held, size, successor};
}

const ObjectRecord *Runtime::NativeSuccessorOf(const void *addr) {
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  const void *candidate = nullptr;
  {
    MutexLock lock(&native_reuse_mu_);
    // (Newest first: a block held, released and held again.)
    for (size_t i = 0; i < kNativeSuccessors && !candidate; ++i) {
      const NativeSuccessor &s =
          native_successors_[(native_successors_next_ - 1 - i) %
                             kNativeSuccessors];
      uintptr_t lo = reinterpret_cast<uintptr_t>(s.held);
      if (s.held && a - lo < s.size)
        candidate = static_cast<const char *>(s.successor) + (a - lo);
    }
  }
  // The object at the same offset in the successor's block (the same
  // layout: an operation after its results).
  return candidate ? LookupLive(candidate) : nullptr;
}

} // namespace ownsan
