//===- shadow_map.h - Freed objects, still matched by address ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// When an object dies its record moves here, keyed by its old address, so a
// later use of the dangling handle is recognized and reported with the
// object's history. An entry stays matched until memory is allocated over
// its address: from then on the same bits may name a new object the runtime
// never saw being created (C++ code inside a binding, or LLVM itself), and
// reporting would risk a false positive. Such entries expire: they stay in
// the index, tagged, so that a new object LLVM later hands out at that
// address can name its predecessor (TakeOver), until a newer death or a
// new object takes the address. Expiring does not touch the record: the
// allocation hook that does it runs on every operator new over memory
// where objects died, and the dead records are cold.
//
// The history is bounded (history_size_mb): when the oldest records are
// evicted, an entry still matched becomes an evicted entry, which keeps
// only the object's kind and whether it was consumed, not its record. It
// matches like a record's entry (a use of the address is still known to be
// stale), but names no predecessor: when it would expire, it goes.
//
// The map keeps its entries in the OwnershipGraph's address index, beside
// the live records (an address holds at most one entry: a live record, or
// a freed one, matched or expired, or an evicted one): a value that dies
// has its entry retagged in place (InsertSortedInPlace), and a new object
// displaces the entry at its address in the same look-up that indexes it
// (Displaced). Live entries are untagged record pointers; the map's own
// carry tags in their low bits (see the end of the class) and every walk
// here skips the others. Standalone (tests), it owns an index of its own.
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

#include <optional>

namespace ownsan {

class ShadowMap {
public:
  // 16-byte granules rather than exact addresses: the addresses of objects
  // that die one after the other share cache lines of the filter.
  ShadowMap() : ShadowMap(own_index_) {}
  /// Entries kept in `index`, shared with the OwnershipGraph's live ones.
  explicit ShadowMap(AddressIndex &index)
      : filter_(own_filter_.emplace(24, 4)), by_addr_(index) {}
  /// Entries kept in `index`; their bits set in `filter`, shared with the
  /// runtime (which sets the bits of other objects there too, so Find
  /// looks up a few addresses in vain, where two filters set a bit each
  /// per death). The filter need not be constructed yet, only stored.
  ShadowMap(AddressIndex &index, AddressFilter &filter)
      : filter_(filter), by_addr_(index) {}
  ShadowMap(const ShadowMap &) = delete;
  ShadowMap &operator=(const ShadowMap &) = delete;

  /// Records that `r` (already marked Freed) died at its address. A newer
  /// death at the same address replaces the older one (matched or expired).
  void Insert(ObjectRecord *r) { InsertSorted(&r, 1); }

  /// Where a batch of freed records' entries are (Runtime::MarkFreedSorted).
  enum class Placement : uint8_t {
    kNotIndexed,  ///< not in the index: InsertSorted()
    kLiveEntries, ///< their live entries are: InsertSortedInPlace()
    kRetagged,    ///< retagged already (RetagInPlace): nothing to do
  };

  /// The live entry at `slot` (a slot of the shared index: see
  /// OwnershipGraph::ForEachLiveSlotInSorted) becomes its record's freed
  /// entry, matched: InsertSortedInPlace() of a record whose entry the
  /// caller has already found.
  void RetagInPlace(ObjectRecord **slot) {
    filter_.Add((*slot)->addr);
    *slot = Freed(*slot);
    ++matched_;
  }

  /// Insert() of each of `rs` (sorted by address, one per address).
  void InsertSorted(ObjectRecord *const *rs, size_t n) {
    for (size_t i = 0; i < n; ++i)
      filter_.Add(rs[i]->addr);
    by_addr_.PutSorted(rs, n, kFreedBit, [&](ObjectRecord *old) {
      if (!old || IsExpired(old))
        ++matched_;
    });
  }

  /// Insert() of each of `rs` (sorted by address), whose live entries the
  /// OwnershipGraph left in the shared index (ForgetWatched): each
  /// entry is retagged where it is, nothing moves.
  void InsertSortedInPlace(ObjectRecord *const *rs, size_t n) {
    bool all_in_place = true;
    by_addr_.ForEachSlotSorted(rs, n, [&](size_t k, ObjectRecord **slot) {
      if (slot && *slot == rs[k]) {
        RetagInPlace(slot);
      } else {
        filter_.Add(rs[k]->addr);
        all_in_place = false;
      }
    });
    if (all_in_place)
      return;
    // (Rare: not the graph's entry. Indexed as Insert() would, never a
    // trap; after the walk, since indexing moves the entries it walked.)
    for (size_t k = 0; k < n; ++k) {
      ObjectRecord **slot = by_addr_.Slot(rs[k]->addr);
      if (slot && *slot == Freed(rs[k]))
        continue;
      ObjectRecord *old = by_addr_.PutAt(rs[k]->addr, Freed(rs[k]));
      if (!old || IsExpired(old) || IsLive(old))
        ++matched_;
    }
  }

  /// The freed record still matched at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    if (!filter_.MaybeContains(addr))
      return nullptr; // (every entry, matched or expired, set its bit)
    ObjectRecord *e = by_addr_.Find(addr);
    return IsMatchedRecord(e) ? Untagged(e) : nullptr;
  }

  /// What is left of an object whose record was evicted.
  struct EvictedObject {
    ObjectKind kind;
    bool consumed;
  };
  /// True if an evicted object is still matched at `addr` (fills *out).
  bool FindEvicted(const void *addr, EvictedObject *out) const {
    if (!filter_.MaybeContains(addr))
      return false;
    ObjectRecord *e = by_addr_.Find(addr);
    if (!e || !IsEvicted(e))
      return false; // (an evicted entry is matched while it is indexed)
    uintptr_t bits = reinterpret_cast<uintptr_t>(e);
    *out = {static_cast<ObjectKind>(bits >> 8), (bits & kConsumedBit) != 0};
    return true;
  }

  /// The record `r` is evicted: if it is still matched at its address, an
  /// evicted entry takes its place; if it expired there, the entry goes.
  void Evict(const ObjectRecord *r, bool consumed) {
    AddressIndex::Cursor cursor;
    Evict(r, consumed, &cursor);
  }
  /// Evict() of records in the history's order, which is address order
  /// within each batch of deaths: each look-up starts where the last one
  /// left off when it can (`cursor`, the same one for the whole walk).
  void Evict(const ObjectRecord *r, bool consumed,
             AddressIndex::Cursor *cursor) {
    ObjectRecord **slot = by_addr_.SlotAfter(r->addr, cursor);
    if (!slot)
      return;
    ObjectRecord *freed = Freed(const_cast<ObjectRecord *>(r));
    if (*slot == freed) {
      *slot = EvictedEntry(r->kind, consumed);
    } else if (*slot == Tagged(freed)) {
      by_addr_.EraseAt(r->addr);
      *cursor = AddressIndex::Cursor(); // (the region changed)
    }
  }

  /// Lock-free pre-check for Find.
  bool MaybeContains(const void *addr) const {
    return filter_.MaybeContains(addr);
  }

  /// Expires every matched entry in [lo, lo + size): new memory now lives
  /// there. Returns how many. An evicted entry goes instead: it names no
  /// predecessor, so expired it would only take room (a long-running
  /// program's index grew with every address its heap ever lent one).
  size_t DropRange(const void *lo, size_t size) {
    size_t n = 0;
    by_addr_.UpdateOrEraseRange(lo, size, [&](ObjectRecord *&e) {
      bool matched = IsMatched(e);
      n += matched;
      if (IsEvicted(e))
        return true;
      if (matched)
        e = Tagged(e); // (a record's: names its predecessor until it goes)
      return false;
    });
    matched_ -= n;
    return n;
  }

  /// A new object takes `addr`: the entry there goes, matched, expired or
  /// evicted (one look-up). Returns the record it named, if any (an evicted
  /// entry names none); *matched tells whether it was still matched.
  ObjectRecord *TakeOver(const void *addr, bool *matched) {
    *matched = false;
    if (!filter_.MaybeContains(addr))
      return nullptr;
    ObjectRecord **slot = by_addr_.Slot(addr);
    if (!slot || IsLive(*slot))
      return nullptr; // (a live entry is the graph's)
    ObjectRecord *e = *slot;
    by_addr_.EraseAt(addr);
    return Displaced(e, matched);
  }

  /// A new live object took the address of entry `e` in the shared index
  /// (nullptr: there was none): as TakeOver, for the entry already
  /// replaced.
  ObjectRecord *Displaced(ObjectRecord *e, bool *matched) {
    *matched = false;
    if (!e)
      return nullptr;
    if (IsLive(e))
      return nullptr; // (a live address is never registered again)
    if (IsMatched(e)) {
      *matched = true;
      --matched_;
    }
    return IsEvicted(e) ? nullptr : Untagged(e);
  }

  /// True if some matched entry lies in [lo, lo + size).
  bool AnyInRange(const void *lo, size_t size) const {
    return by_addr_.AnyInRange(lo, size,
                               [](ObjectRecord *e) { return IsMatched(e); });
  }

  /// Matched entries.
  size_t size() const { return matched_; }

private:
  // Entries (records are 64-byte aligned): a live record is its address,
  // untagged (the graph's). A freed record's is its address with
  // kFreedBit; expired, bit 0 as well. An evicted entry is no address:
  // bit 1 set, the kind in bits 8-15 and kConsumedBit; it is matched while
  // it is indexed (DropRange removes it where a record's would expire).
  static constexpr uintptr_t kEvictedBit = 2, kConsumedBit = 4,
                             kFreedBit = AddressIndex::kFreedTag;
  static uintptr_t Bits(const ObjectRecord *e) {
    return reinterpret_cast<uintptr_t>(e);
  }
  static bool IsLive(const ObjectRecord *e) {
    return AddressIndex::IsUntagged(e);
  }
  static bool IsEvicted(const ObjectRecord *e) { return Bits(e) & kEvictedBit; }
  static ObjectRecord *EvictedEntry(ObjectKind kind, bool consumed) {
    return reinterpret_cast<ObjectRecord *>(
        uintptr_t{static_cast<uint8_t>(kind)} << 8 | kEvictedBit |
        (consumed ? kConsumedBit : 0));
  }
  static bool IsExpired(const ObjectRecord *e) { return Bits(e) & 1; }
  /// A freed or evicted entry still matched at its address.
  static bool IsMatched(const ObjectRecord *e) {
    return (Bits(e) & (kFreedBit | kEvictedBit)) && !IsExpired(e);
  }
  /// A freed record's entry, still matched.
  static bool IsMatchedRecord(const ObjectRecord *e) {
    return (Bits(e) & (kFreedBit | kEvictedBit | 1)) == kFreedBit;
  }
  static ObjectRecord *Freed(ObjectRecord *r) {
    return reinterpret_cast<ObjectRecord *>(Bits(r) | kFreedBit);
  }
  static ObjectRecord *Tagged(ObjectRecord *r) {
    return reinterpret_cast<ObjectRecord *>(Bits(r) | 1);
  }
  static ObjectRecord *Untagged(ObjectRecord *e) {
    return reinterpret_cast<ObjectRecord *>(Bits(e) & ~(kFreedBit | 1));
  }

  AddressIndex own_index_; ///< standalone only (empty otherwise: no memory)
  std::optional<AddressFilter> own_filter_; ///< unless given one
  /// Every entry's address (matched or expired) has its bit set here.
  AddressFilter &filter_;
  /// Records by their old address, matched or expired, among the graph's.
  AddressIndex &by_addr_;
  size_t matched_ = 0;
};

} // namespace ownsan

#endif // OWNSAN_CORE_SHADOW_MAP_H
