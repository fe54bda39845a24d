//===- internal_allocator.cpp - Memory of ownsan's own, off the heap -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/internal_allocator.h"

#include "core/mutex.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace ownsan {
namespace {

// Size classes: every multiple of 8 bytes up to 256 (names, kept at their
// size: a 21-byte name takes 24 bytes, not 32), then powers of two up to
// 64 KiB (the address indexes' vectors, which double anyway).
constexpr size_t kStep = 8;
constexpr size_t kSmallMax = 256;
constexpr unsigned kSmallClasses = kSmallMax / kStep; // 8 .. 256
constexpr unsigned kMinShift = 9;                     // 512 bytes
constexpr unsigned kMaxShift = 16;                    // 64 KiB
constexpr unsigned kClasses = kSmallClasses + (kMaxShift - kMinShift + 1);
constexpr size_t kSlabBytes = size_t{1} << 18;
// A class that has filled this many slabs is growing with the program
// (index vectors, names, children lists, the quarantine's queue): its next
// slabs are 2 MiB (with huge_pages_for_metadata, huge pages: one fault
// where 512 small pages took one each; docs/performance.md has the
// machines where that pays and where it does not). A short program never
// gets there, so its resident memory stays as small as before. (Four small
// slabs first cost IR building 600 faults more, and --echo 700.)
constexpr unsigned kSmallSlabsPerClass = 1;
constexpr size_t kHugeSlabBytes = size_t{2} << 20;
// Large blocks (a vector that doubles past 64 KiB, an eviction's batch) are
// kept when freed, up to kLargeCacheBytes in all, for the next request of
// the same size: mapping and faulting them in again on every use cost
// thousands of page faults per eviction of the history.
constexpr unsigned kLargeCacheSlots = 16;
constexpr size_t kLargeCacheBytes = size_t{32} << 20;

// The first blocks of every class come from one region they share: a short
// program's few blocks of each of a dozen classes sit on a few pages, where
// each class's own first slab was a page fault of its own at every start.
// A class that takes kStarterPerClass from it moves on to slabs.
constexpr size_t kStarterBytes = size_t{1} << 18;
constexpr size_t kStarterPerClass = size_t{16} << 10;

struct FreeBlock {
  FreeBlock *next;
};

Mutex g_pool_mu(absl::kConstInit);
FreeBlock *g_free[kClasses] ABSL_GUARDED_BY(g_pool_mu);
// Each class's newest slab: blocks never handed out yet, taken in address
// order. (Carving a whole slab into the free list at once wrote to each of
// its 64 pages: a page fault each for memory a short program never used.)
char *g_fresh[kClasses] ABSL_GUARDED_BY(g_pool_mu);
char *g_fresh_end[kClasses] ABSL_GUARDED_BY(g_pool_mu);
unsigned g_slabs[kClasses] ABSL_GUARDED_BY(g_pool_mu);
char *g_starter ABSL_GUARDED_BY(g_pool_mu);
char *g_starter_end ABSL_GUARDED_BY(g_pool_mu);
size_t g_starter_taken[kClasses] ABSL_GUARDED_BY(g_pool_mu);

struct LargeBlock {
  void *p;
  size_t bytes;
};
LargeBlock g_large[kLargeCacheSlots] ABSL_GUARDED_BY(g_pool_mu);
size_t g_large_bytes ABSL_GUARDED_BY(g_pool_mu);

// The runtime's huge_pages_for_metadata (InternalSetHugePagesAllowed), read
// wherever a thread maps a block.
std::atomic<bool> g_huge_pages_allowed{false};

unsigned ClassOf(size_t bytes) {
  if (bytes <= kSmallMax)
    return static_cast<unsigned>((bytes + kStep - 1) / kStep) - 1;
  unsigned shift = kMinShift;
  while ((size_t{1} << shift) < bytes)
    ++shift;
  return kSmallClasses + (shift - kMinShift);
}

size_t BlockBytes(unsigned c) {
  return c < kSmallClasses ? (c + 1) * kStep
                           : size_t{1} << (c - kSmallClasses + kMinShift);
}

void *Map(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc();
  return p;
}

size_t PageRound(size_t bytes) { return (bytes + 4095) & ~size_t{4095}; }

void *TakeLarge(size_t bytes) {
  {
    MutexLock lock(&g_pool_mu);
    for (LargeBlock &b : g_large)
      if (b.bytes == bytes) {
        void *p = b.p;
        b = {};
        g_large_bytes -= bytes;
        return p;
      }
  }
  return Map(bytes);
}

void GiveBackLarge(void *p, size_t bytes) {
  {
    MutexLock lock(&g_pool_mu);
    if (g_large_bytes + bytes <= kLargeCacheBytes)
      for (LargeBlock &b : g_large)
        if (!b.p) {
          b = {p, bytes};
          g_large_bytes += bytes;
          return;
        }
  }
  munmap(p, bytes);
}

} // namespace

size_t InternalBlockSize(size_t bytes) {
  if (bytes == 0)
    bytes = 1;
  if (bytes > (size_t{1} << kMaxShift))
    return PageRound(bytes);
  return BlockBytes(ClassOf(bytes));
}

void *InternalAllocate(size_t bytes) {
  if (bytes == 0)
    bytes = 1;
  if (bytes > (size_t{1} << kMaxShift))
    return TakeLarge(PageRound(bytes));
  unsigned c = ClassOf(bytes);
  size_t block = BlockBytes(c);
  MutexLock lock(&g_pool_mu);
  if (FreeBlock *b = g_free[c]) {
    g_free[c] = b->next;
    return b;
  }
  if (static_cast<size_t>(g_fresh_end[c] - g_fresh[c]) < block &&
      g_starter_taken[c] + block <= kStarterPerClass) {
    if (!g_starter) {
      g_starter = static_cast<char *>(Map(kStarterBytes));
      g_starter_end = g_starter + kStarterBytes;
    }
    // (Aligned as in a slab: the multiples of 8 to 8 bytes, the powers of
    // two to a cache line at least.)
    size_t align = c < kSmallClasses ? kStep : 64;
    char *p = reinterpret_cast<char *>(
        (reinterpret_cast<uintptr_t>(g_starter) + align - 1) & ~(align - 1));
    if (static_cast<size_t>(g_starter_end - p) >= block) {
      g_starter = p + block;
      g_starter_taken[c] += block;
      return p;
    }
    g_starter_taken[c] = kStarterPerClass; // (full: slabs from now on)
  }
  if (static_cast<size_t>(g_fresh_end[c] - g_fresh[c]) < block) {
    // A new slab (a small class wastes the last few bytes of the old one).
    size_t slab = kSlabBytes;
    if (g_slabs[c]++ < kSmallSlabsPerClass) {
      g_fresh[c] = static_cast<char *>(Map(slab));
    } else {
      slab = kHugeSlabBytes;
      g_fresh[c] = static_cast<char *>(InternalMapBlock(slab, true));
    }
    g_fresh_end[c] = g_fresh[c] + slab;
  }
  void *p = g_fresh[c];
  g_fresh[c] += block;
  return p;
}

void InternalDeallocate(void *p, size_t bytes) {
  if (!p)
    return;
  if (bytes == 0)
    bytes = 1;
  if (bytes > (size_t{1} << kMaxShift)) {
    GiveBackLarge(p, PageRound(bytes));
    return;
  }
  unsigned c = ClassOf(bytes);
  MutexLock lock(&g_pool_mu);
  auto *b = static_cast<FreeBlock *>(p);
  b->next = g_free[c];
  g_free[c] = b;
}

void InternalSetHugePagesAllowed(bool allowed) {
  g_huge_pages_allowed.store(allowed, std::memory_order_relaxed);
}

bool InternalHugePagesAllowed() {
  return g_huge_pages_allowed.load(std::memory_order_relaxed);
}

void *InternalMapBlock(size_t bytes, bool huge_pages) {
  constexpr size_t kHuge = size_t{2} << 20;
  bytes = PageRound(bytes);
  if (!huge_pages || !InternalHugePagesAllowed() || bytes % kHuge != 0)
    return Map(bytes);
  // Map one huge page more and trim to an aligned block.
  auto *p = static_cast<char *>(Map(bytes + kHuge));
  uintptr_t start = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (start + kHuge - 1) & ~(kHuge - 1);
  if (aligned > start)
    munmap(p, aligned - start);
  if (size_t tail = kHuge - (aligned - start))
    munmap(reinterpret_cast<char *>(aligned) + bytes, tail);
  madvise(reinterpret_cast<void *>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void *>(aligned);
}

void InternalUnmapBlock(void *p, size_t bytes) { munmap(p, PageRound(bytes)); }

} // namespace ownsan

// LeakSanitizer's interface, when a sanitizer runtime is loaded.
extern "C" {
__attribute__((weak)) void __lsan_register_root_region(const void *p,
                                                       size_t size);
__attribute__((weak)) void __lsan_unregister_root_region(const void *p,
                                                         size_t size);
}

namespace ownsan {

void InternalAddLeakRoots(const void *p, size_t bytes) {
  if (__lsan_register_root_region)
    __lsan_register_root_region(p, bytes);
}

void InternalRemoveLeakRoots(const void *p, size_t bytes) {
  if (__lsan_unregister_root_region)
    __lsan_unregister_root_region(p, bytes);
}

} // namespace ownsan
