//===- record_cache.h - Per-thread cache of live records -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The lookup every checked call starts with (check.cpp) and registration
// (tracker_registration.cpp) fills. Inline: it is most of a checked call.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_RECORD_CACHE_H
#define OWNSAN_RUNTIME_RECORD_CACHE_H

#include "core/object_record.h"
#include "core/tls_model.h"

#include <atomic>
#include <cstdint>

namespace ownsan {
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
extern __thread RecordCacheSet
    tls_record_cache[1u << kRecordCacheBits] OWNSAN_TLS_MODEL;

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
      // An evicted slot reused for another object since this entry was
      // made says Live only after its new address was written.
      if (__atomic_load_n(&r->addr, __ATOMIC_RELAXED) == h &&
          r->state.load(std::memory_order_acquire) == ObjectState::Live &&
          __atomic_load_n(&r->addr, __ATOMIC_RELAXED) == h)
        return r;
      // (a tag shared with another handle, or a dead record of this one
      // that CacheNewRecord left: look on)
    }
  return nullptr;
}

// Remembers the live record `r` of `h` (nothing when r is nullptr: a miss
// costs the same) in the first way: a handle just looked up or handed out
// is the likeliest to be used next. The entry it displaces takes the place
// of `h`'s old entry, an empty way or a random older one. (Always evicting
// the oldest would make nine handles used in turn that share a set miss on
// every call.)
extern __thread uint32_t tls_record_cache_rng OWNSAN_TLS_MODEL;
inline int RandomOlderWay() {
  uint32_t x = tls_record_cache_rng + 0x9E3779B9u; // (a Weyl sequence,
  tls_record_cache_rng = x;                        // scrambled below)
  x ^= x >> 16;
  x *= 0x7feb352du;
  return 1 + static_cast<int>((x >> 24) % (kRecordCacheWays - 1));
}
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
  if (victim < 0)
    victim = RandomOlderWay();
  if (victim > 0)
    set.way[victim] = set.way[0];
  set.way[0] = (static_cast<uint64_t>(bits) << 16) | tag;
}

// CacheRecord for the record just registered at `h`, the only live one
// there: no way is searched for an entry of `h`'s (any is a dead record's,
// which CachedLive looks past and the next CacheRecord of `h` replaces).
inline void CacheNewRecord(const void *h, ObjectRecord *r) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(r);
  if (bits >> 48)
    return; // (see CacheRecord)
  auto [set, tag] = RecordCacheSlotOf(h);
  set.way[RandomOlderWay()] = set.way[0];
  set.way[0] = (static_cast<uint64_t>(bits) << 16) | tag;
}

} // namespace ownsan

#endif // OWNSAN_RUNTIME_RECORD_CACHE_H
