//===- shadow_map.h - Freed objects, still matched by address ---*- C++ -*-===//
//
// When an object dies its record moves here, keyed by its old address, so a
// later use of the dangling handle is recognized and reported with the
// object's history. An entry stays matched until memory is allocated over
// its address: from then on the same bits may name a new object the runtime
// never saw being created (C++ code inside a binding, or LLVM itself), and
// reporting would risk a false positive. Such entries expire: they stay in
// the index, tagged, so that a new object LLVM later hands out at that
// address can name its predecessor (TakeExpired), until a newer death or a
// new object takes the address. Expiring does not touch the record: the
// allocation hook that does it runs on every operator new over memory
// where objects died, and the dead records are cold.
//
// Not thread-safe: the Runtime serializes all access. The AddressFilter
// members are read lock-free by the hot paths.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_SHADOW_MAP_H
#define OWNSAN_CORE_SHADOW_MAP_H

#include "core/address_filter.h"
#include "core/address_index.h"
#include "core/object_record.h"

namespace ownsan {

class ShadowMap {
public:
  // 16-byte granules rather than exact addresses: the addresses of objects
  // that die one after the other share cache lines of the filter.
  ShadowMap() : exact_(24, 4) {}

  /// Records that `r` (already marked Freed) died at its address. A newer
  /// death at the same address replaces the older one (matched or expired).
  void Insert(ObjectRecord *r) { InsertSorted(&r, 1); }

  /// Insert() of each of `rs` (sorted by address, one per address).
  void InsertSorted(ObjectRecord *const *rs, size_t n) {
    for (size_t i = 0; i < n; ++i)
      exact_.Add(rs[i]->addr);
    by_addr_.PutSorted(rs, n, [&](ObjectRecord *old) {
      if (!old || IsExpired(old))
        ++matched_;
    });
  }

  /// The freed record still matched at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    if (!exact_.MaybeContains(addr))
      return nullptr; // (every entry, matched or expired, set its bit)
    ObjectRecord *e = by_addr_.Find(addr);
    return e && !IsExpired(e) ? e : nullptr;
  }

  /// Lock-free pre-check for Find.
  bool MaybeContains(const void *addr) const {
    return exact_.MaybeContains(addr);
  }

  /// Removes the matched entry at `addr`, which the caller has just found
  /// with Find() (LLVM handed the address out again, to a new object).
  void Forget(const void *addr) {
    by_addr_.EraseAt(addr);
    --matched_;
  }

  /// Expires every matched entry in [lo, lo + size): new memory now lives
  /// there. Returns how many.
  size_t DropRange(const void *lo, size_t size) {
    size_t n = 0;
    by_addr_.UpdateRange(lo, size, [&](ObjectRecord *&e) {
      if (!IsExpired(e)) {
        e = Tagged(e);
        ++n;
      }
    });
    matched_ -= n;
    return n;
  }

  /// The record that expired at exactly `addr` (and forgets it), or nullptr.
  ObjectRecord *TakeExpired(const void *addr) {
    if (!exact_.MaybeContains(addr))
      return nullptr;
    ObjectRecord *e = by_addr_.Find(addr);
    if (!e || !IsExpired(e))
      return nullptr;
    by_addr_.EraseAt(addr);
    return Untagged(e);
  }

  /// True if some matched entry lies in [lo, lo + size).
  bool AnyInRange(const void *lo, size_t size) const {
    return by_addr_.AnyInRange(lo, size,
                               [](ObjectRecord *e) { return !IsExpired(e); });
  }

  /// Matched entries.
  size_t size() const { return matched_; }

private:
  // An expired entry is its record's address with the low bit set (records
  // are 64-byte aligned).
  static bool IsExpired(const ObjectRecord *e) {
    return reinterpret_cast<uintptr_t>(e) & 1;
  }
  static ObjectRecord *Tagged(ObjectRecord *r) {
    return reinterpret_cast<ObjectRecord *>(reinterpret_cast<uintptr_t>(r) | 1);
  }
  static ObjectRecord *Untagged(ObjectRecord *e) {
    return reinterpret_cast<ObjectRecord *>(reinterpret_cast<uintptr_t>(e) &
                                            ~uintptr_t{1});
  }

  AddressFilter exact_;
  AddressIndex by_addr_; ///< records by their old address, matched or expired
  size_t matched_ = 0;
};

} // namespace ownsan

#endif // OWNSAN_CORE_SHADOW_MAP_H
