//===- shadow_map.h - Freed objects, still matched by address ---*- C++ -*-===//
//
// When an object dies its record moves here, keyed by its old address, so a
// later use of the dangling handle is recognized and reported with the
// object's history. An entry stays matched until memory is allocated over
// its address: from then on the same bits may name a new object the runtime
// never saw being created (C++ code inside a binding, or LLVM itself), and
// reporting would risk a false positive. Such entries are dropped from the
// address index and their records marked `address_reused`.
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

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"

namespace ownsan {

class ShadowMap {
public:
  // 16-byte granules rather than exact addresses: the addresses of objects
  // that die one after the other share cache lines of the filter.
  ShadowMap() : exact_(24, 4) {}

  /// Records that `r` (already marked Freed) died at its address. A newer
  /// death at the same address replaces the older one.
  void Insert(ObjectRecord *r);

  /// The freed record still matched at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    if (!exact_.MaybeContains(addr))
      return nullptr; // (every entry, matched or expired, set its bit)
    return by_addr_.Find(addr);
  }

  /// Lock-free pre-check for Find.
  bool MaybeContains(const void *addr) const {
    return exact_.MaybeContains(addr);
  }

  /// Removes the entry for `r`'s address if it is `r` (the object's address
  /// was handed out again by LLVM to a new object).
  void Forget(const void *addr);

  /// Drops every entry in [lo, lo + size): new memory now lives there. The
  /// dropped records are remembered as "expired" at their address, so a new
  /// object LLVM later returns there can name its predecessor.
  void DropRange(const void *lo, size_t size,
                 absl::FunctionRef<void(ObjectRecord *)> on_drop);

  /// The last record dropped at exactly `addr` (and forgets it), or nullptr.
  ObjectRecord *TakeExpired(const void *addr) {
    if (!exact_.MaybeContains(addr))
      return nullptr;
    auto it = expired_.find(reinterpret_cast<uintptr_t>(addr));
    if (it == expired_.end())
      return nullptr;
    ObjectRecord *r = it->second;
    expired_.erase(it);
    return r;
  }

  /// True if some matched entry lies in [lo, lo + size).
  bool AnyInRange(const void *lo, size_t size) const {
    return by_addr_.AnyInRange(lo, size);
  }

  size_t size() const { return by_addr_.size(); }

private:
  AddressFilter exact_;
  AddressIndex by_addr_; ///< records by their old address
  /// Bounded: only used to name predecessors in reports.
  absl::flat_hash_map<uintptr_t, ObjectRecord *> expired_;
  static constexpr size_t kMaxExpired = 1 << 20;
};

} // namespace ownsan

#endif // OWNSAN_CORE_SHADOW_MAP_H
