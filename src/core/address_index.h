//===- address_index.h - Live records by address ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The OwnershipGraph's "which live record is at this address?" index. A hash
// set scatters neighbouring objects over the whole table, so a module's
// teardown, which deletes its values one after the other, paid a cache miss
// for the table's control bytes and one for its slot on every value. Here
// the address space is cut into 16 KiB regions (found in a small hash map:
// a few thousand regions cover a large module), each a sorted array of the
// 16-bit offsets of its objects with their records beside them: neighbours
// share cache lines, and a region holds at most a few hundred objects
// (LLVM objects are at least 24 bytes), so keeping it sorted costs a short
// move on insertion.
//
// Not thread-safe: the OwnershipGraph's owner serializes access.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_ADDRESS_INDEX_H
#define OWNSAN_CORE_ADDRESS_INDEX_H

#include "core/internal_allocator.h"
#include "core/object_record.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ownsan {

class AddressIndex {
public:
  AddressIndex() = default;
  AddressIndex(const AddressIndex &) = delete; // (last_region_ points inside)
  AddressIndex &operator=(const AddressIndex &) = delete;

  /// The record indexed at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    auto it = regions_.find(RegionOf(addr));
    if (it == regions_.end())
      return nullptr;
    size_t i;
    return Locate(it->second, OffsetOf(addr), &i) ? it->second.records[i]
                                                  : nullptr;
  }

  /// Indexes `r` at `r->addr`, replacing the record indexed there, if any
  /// (returned).
  ObjectRecord *Put(ObjectRecord *r) { return PutAt(r->addr, r); }

  /// Indexes `r` at `addr` (the index never reads `r`: a user may store
  /// tagged pointers), replacing the entry there, if any (returned).
  ObjectRecord *PutAt(const void *addr, ObjectRecord *r) {
    Region &region = MutableRegion(RegionOf(addr));
    uint16_t off = OffsetOf(addr);
    // Fast path: LLVM allocates upwards, so most objects go at the end.
    if (region.offsets.empty() || region.offsets.back() < off) {
      region.offsets.push_back(off);
      region.records.push_back(r);
      ++size_;
      return nullptr;
    }
    size_t i;
    if (Locate(region, off, &i)) {
      ObjectRecord *old = region.records[i];
      region.records[i] = r;
      return old;
    }
    InsertAt(region.offsets, i, off);
    InsertAt(region.records, i, r);
    ++size_;
    return nullptr;
  }

  /// Removes the entry at `r->addr` if it is `r`; true if it was.
  bool Erase(const ObjectRecord *r) {
    uintptr_t key = RegionOf(r->addr);
    Region *region = ExistingRegion(key);
    size_t i;
    if (!region || !Locate(*region, OffsetOf(r->addr), &i) ||
        region->records[i] != r)
      return false;
    EraseSlice(key, *region, i, i + 1);
    return true;
  }

  /// Erase() of each of `rs`, sorted by address: one pass over each region
  /// they are in, not a search and a shift per record (a module's values die
  /// in runs, front to back, and removing each from the front of its region
  /// moved the whole region every time).
  void EraseSorted(ObjectRecord *const *rs, size_t n) {
    for (size_t i = 0, end; i < n; i = end) {
      uintptr_t key = RegionOf(rs[i]->addr);
      end = RunEnd(rs, i, n);
      if (Region *region = ExistingRegion(key)) {
        // Keep the entries that are not one of rs[i, end) (both sorted).
        size_t kept = 0, next = i, size = region->offsets.size();
        uint16_t *offsets = region->offsets.data();
        ObjectRecord **records = region->records.data();
        for (size_t e = 0; e < size; ++e) {
          while (next < end && OffsetOf(rs[next]->addr) < offsets[e])
            ++next;
          if (next < end && OffsetOf(rs[next]->addr) == offsets[e] &&
              rs[next] == records[e])
            continue; // (erased)
          offsets[kept] = offsets[e];
          records[kept++] = records[e];
        }
        if (kept < size)
          EraseSlice(key, *region, kept, size);
      }
    }
  }

  /// Put() of each of `rs`, sorted by address (one merge per region);
  /// calls replaced(old) with what each replaced (nullptr if nothing).
  template <typename F>
  void PutSorted(ObjectRecord *const *rs, size_t n, F replaced) {
    for (size_t i = 0, end; i < n; i = end) {
      uintptr_t key = RegionOf(rs[i]->addr);
      end = RunEnd(rs, i, n);
      Region &region = MutableRegion(key);
      size_t size = region.offsets.size();
      if (end - i < 4 || size == 0 ||
          region.offsets.back() < OffsetOf(rs[i]->addr)) {
        // Case: a few, or all after the region's last entry: one by one
        // (Put appends without a search).
        for (size_t k = i; k < end; ++k)
          replaced(PutAt(rs[k]->addr, rs[k]));
        continue;
      }
      // Case: a run among existing entries: merge from the back, in place.
      size_t added = 0;
      for (size_t k = i, e = 0; k < end; ++k) {
        uint16_t off = OffsetOf(rs[k]->addr);
        while (e < size && region.offsets[e] < off)
          ++e;
        if (!(e < size && region.offsets[e] == off))
          ++added;
      }
      region.offsets.resize(size + added);
      region.records.resize(size + added);
      uint16_t *offsets = region.offsets.data();
      ObjectRecord **records = region.records.data();
      size_t out = size + added, e = size, k = end;
      while (k > i) {
        uint16_t off = OffsetOf(rs[k - 1]->addr);
        if (e > 0 && offsets[e - 1] > off) {
          --e, --out;
          offsets[out] = offsets[e];
          records[out] = records[e];
        } else if (e > 0 && offsets[e - 1] == off) {
          --e, --out, --k;
          replaced(records[e]);
          offsets[out] = off;
          records[out] = rs[k];
        } else {
          --out, --k;
          replaced(nullptr);
          offsets[out] = off;
          records[out] = rs[k];
        }
      }
      size_ += added;
    }
  }

  /// Removes whatever record is indexed at `addr`.
  void EraseAt(const void *addr) {
    uintptr_t key = RegionOf(addr);
    Region *region = ExistingRegion(key);
    size_t i;
    if (region && Locate(*region, OffsetOf(addr), &i))
      EraseSlice(key, *region, i, i + 1);
  }

  /// Removes the entry indexed at `addr` and returns it, or nullptr if there
  /// is none (Find() and EraseAt() in one look-up).
  ObjectRecord *Take(const void *addr) {
    uintptr_t key = RegionOf(addr);
    Region *region = ExistingRegion(key);
    size_t i;
    if (!region || !Locate(*region, OffsetOf(addr), &i))
      return nullptr;
    ObjectRecord *e = region->records[i];
    EraseSlice(key, *region, i, i + 1);
    return e;
  }

  /// The entry indexed at `addr`, to overwrite in place (the index never
  /// reads it), or nullptr if there is none. Valid until the next change.
  /// (One look-up where Find() then PutAt() take two: the region is
  /// remembered as for a mutation.)
  ObjectRecord **Slot(const void *addr) {
    Region *region = ExistingRegion(RegionOf(addr));
    size_t i;
    if (!region || !Locate(*region, OffsetOf(addr), &i))
      return nullptr;
    return &region->records[i];
  }

  /// True if some record is indexed in [lo, lo + size).
  bool AnyInRange(const void *lo, size_t size) const {
    return AnyInRange(lo, size, [](const ObjectRecord *) { return true; });
  }
  /// True if pred(entry) holds for some entry indexed in [lo, lo + size).
  template <typename P>
  bool AnyInRange(const void *lo, size_t size, P pred) const {
    return VisitEntries(regions_, lo, size, pred);
  }

  /// Calls fn(entry) on each entry indexed in [lo, lo + size), in address
  /// order; fn may change the entry (a reference) but not the index.
  template <typename F> void UpdateRange(const void *lo, size_t size, F fn) {
    VisitEntries(regions_, lo, size, [&](ObjectRecord *&e) {
      fn(e);
      return false;
    });
  }

  /// Calls fn(r) for each record indexed in [lo, lo + size), in address
  /// order. fn must not change the index.
  template <typename F>
  void ForEachInRange(const void *lo, size_t size, F fn) const {
    VisitEntries(regions_, lo, size, [&](ObjectRecord *r) {
      fn(r);
      return false;
    });
  }

  size_t size() const { return size_; }

  template <typename F> void ForEach(F fn) const {
    for (const auto &entry : regions_)
      for (ObjectRecord *r : entry.second.records)
        fn(r);
  }

private:
  static constexpr unsigned kRegionBits = 14; // 16 KiB
  static uintptr_t RegionOf(const void *addr) {
    return reinterpret_cast<uintptr_t>(addr) >> kRegionBits;
  }
  static uint16_t OffsetOf(uintptr_t addr) {
    return static_cast<uint16_t>(addr & ((uintptr_t{1} << kRegionBits) - 1));
  }
  static uint16_t OffsetOf(const void *addr) {
    return OffsetOf(reinterpret_cast<uintptr_t>(addr));
  }

  // Off the program's heap (see internal_allocator.h). The first few
  // entries are kept in the region itself: most regions of the unwatched
  // index and the shadow map hold one or two objects (a builder, a malloc'ed
  // array LLVM hands out per call), and a region made and emptied per object
  // would otherwise allocate and free two vectors each time.
  template <typename T, size_t N>
  using Vector = absl::InlinedVector<T, N, InternalAllocator<T>>;
  struct Region {
    Vector<uint16_t, 8> offsets;       ///< sorted
    Vector<ObjectRecord *, 4> records; ///< records[i] is at offsets[i]
  };
  using Regions = absl::flat_hash_map<
      uintptr_t, Region, absl::container_internal::hash_default_hash<uintptr_t>,
      absl::container_internal::hash_default_eq<uintptr_t>,
      InternalAllocator<std::pair<const uintptr_t, Region>>>;

  /// The region of `key`, created if need be. The last one used by a
  /// mutation is remembered: a module's values are added and removed in
  /// runs within one region. (Not for lookups: they run under a shared
  /// lock, concurrently.)
  Region &MutableRegion(uintptr_t key) {
    if (key == spare_key_)
      spare_key_ = kNoKey; // (it gets an entry now)
    if (key != last_key_) {
      last_region_ = &regions_[key]; // (may rehash: the old pointer is gone)
      last_key_ = key;
    }
    return *last_region_;
  }
  /// The region of `key` if it has entries (remembered as above).
  Region *ExistingRegion(uintptr_t key) {
    if (key != last_key_) {
      auto it = regions_.find(key);
      if (it == regions_.end())
        return nullptr;
      last_region_ = &it->second;
      last_key_ = key;
    }
    return last_region_;
  }

  /// The index of the first offset >= `off`: a binary search whose steps
  /// are conditional moves, not branches (lookups come at random offsets, so
  /// branches would mispredict at every step).
  template <typename Offsets>
  static size_t LowerBound(const Offsets &offsets, uint16_t off) {
    size_t len = offsets.size();
    if (len == 0)
      return 0;
    const uint16_t *base = offsets.data();
    while (len > 1) {
      size_t half = len / 2;
      size_t mask = -static_cast<size_t>(base[half - 1] < off);
      // Opaque to the optimizer, which would turn the select back into a
      // branch (x86's cmov conversion does in loops).
      asm("" : "+r"(mask));
      base += half & mask;
      len -= half;
    }
    return (base - offsets.data()) + (*base < off);
  }
  /// Sets *i to where `off` is, or would go; true if it is there.
  static bool Locate(const Region &region, uint16_t off, size_t *i) {
    *i = LowerBound(region.offsets, off);
    return *i < region.offsets.size() && region.offsets[*i] == off;
  }
  void EraseSlice(uintptr_t key, Region &region, size_t from, size_t to) {
    EraseRange(region.offsets, from, to);
    EraseRange(region.records, from, to);
    size_ -= to - from;
    if (region.offsets.empty()) {
      // The emptied region is kept as the spare, and the previous spare
      // goes: objects LLVM hands out and takes back one at a time (a
      // builder, a metadata-entry array) make and empty a region each, at
      // addresses that move on slowly, so the next one is most often in the
      // same region, and making and erasing it in the hash map cost more
      // than the entry itself.
      if (spare_key_ != kNoKey && spare_key_ != key) {
        regions_.erase(spare_key_);
        if (spare_key_ == last_key_)
          last_key_ = kNoKey; // (its pointer is gone)
      }
      spare_key_ = key;
    }
  }

  /// The end of the run of sorted records rs[i, ...) in rs[i]'s region.
  static size_t RunEnd(ObjectRecord *const *rs, size_t i, size_t n) {
    uintptr_t key = RegionOf(rs[i]->addr);
    size_t end = i + 1;
    while (end < n && RegionOf(rs[end]->addr) == key)
      ++end;
    return end;
  }

  /// vec.insert(vec.begin() + i, v) for trivially copyable elements, with
  /// one memmove (InlinedVector's insert moves element by element).
  template <typename V, typename T>
  static void InsertAt(V &vec, size_t i, T v) {
    size_t n = vec.size();
    vec.push_back(v);
    if (i < n) {
      T *d = vec.data();
      std::memmove(d + i + 1, d + i, (n - i) * sizeof(T));
      d[i] = v;
    }
  }

  /// vec.erase(vec.begin() + from, vec.begin() + to) for trivially copyable
  /// elements, with one memmove (InlinedVector's erase moves element by
  /// element; the shadow map's regions lose their oldest entries, at the
  /// front, as the quarantine releases their memory).
  template <typename V> static void EraseRange(V &vec, size_t from, size_t to) {
    size_t n = vec.size();
    auto *d = vec.data();
    std::memmove(d + from, d + to, (n - to) * sizeof(*d));
    vec.resize(n - (to - from));
  }

  /// An address range [begin, last] and the regions it spans.
  struct Bounds {
    uintptr_t begin, last, first_key, last_key;
  };
  static Bounds BoundsOf(const void *lo, size_t size) {
    uintptr_t begin = reinterpret_cast<uintptr_t>(lo);
    uintptr_t last = begin + (size ? size : 1) - 1;
    if (last < begin)
      last = UINTPTR_MAX; // (a range that wraps: up to the top)
    return {begin, last, begin >> kRegionBits, last >> kRegionBits};
  }
  /// The entries [from, to) of region `key` that lie in the range.
  static std::pair<size_t, size_t> Slice(const Region &region, uintptr_t key,
                                         const Bounds &b) {
    uintptr_t base = key << kRegionBits;
    uintptr_t top = base + ((uintptr_t{1} << kRegionBits) - 1);
    uint16_t lo = OffsetOf(b.begin > base ? b.begin : base);
    uint16_t hi = OffsetOf(b.last < top ? b.last : top);
    auto first =
        std::lower_bound(region.offsets.begin(), region.offsets.end(), lo);
    // A range holds few entries (an allocation: one or two objects): look
    // on from the first rather than search again.
    auto end = first;
    while (end != region.offsets.end() && *end <= hi)
      ++end;
    return {static_cast<size_t>(first - region.offsets.begin()),
            static_cast<size_t>(end - region.offsets.begin())};
  }

  /// Calls visit(it, from, to) for each region `it` holding entries in
  /// [lo, lo + size), the slice [from, to) of its entries, until it returns
  /// true. (A template over the map, for the const and mutable users.)
  template <typename Map, typename V>
  static void VisitRange(Map &regions, const void *lo, size_t size, V visit) {
    Bounds b = BoundsOf(lo, size);
    for (uintptr_t key = b.first_key; key <= b.last_key; ++key) {
      auto it = regions.find(key);
      if (it == regions.end())
        continue;
      auto [from, to] = Slice(it->second, key, b);
      if (from < to && visit(it, from, to))
        return;
    }
  }

  /// Calls visit(entry) on each entry in [lo, lo + size), in address
  /// order, until it returns true; true if it did.
  template <typename Map, typename V>
  static bool VisitEntries(Map &regions, const void *lo, size_t size, V visit) {
    bool stopped = false;
    VisitRange(regions, lo, size, [&](auto it, size_t from, size_t to) {
      for (size_t i = from; i < to && !stopped; ++i)
        stopped = visit(it->second.records[i]);
      return stopped;
    });
    return stopped;
  }

  static constexpr uintptr_t kNoKey = ~uintptr_t{0};
  Regions regions_;
  size_t size_ = 0;
  uintptr_t last_key_ = kNoKey; ///< see MutableRegion
  /// The one region kept while empty (see EraseSlice); every other region
  /// in the map has entries.
  uintptr_t spare_key_ = kNoKey;
  Region *last_region_ = nullptr;
};

} // namespace ownsan

#endif // OWNSAN_CORE_ADDRESS_INDEX_H
