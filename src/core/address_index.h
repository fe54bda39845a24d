//===- address_index.h - Live records by address ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The OwnershipGraph's "which live record is at this address?" index. A hash
// set scatters neighbouring objects over the whole table, so a module's
// teardown, which deletes its values one after the other, paid a cache miss
// for the table's control bytes and one for its slot on every value. Here
// the address space is cut into 16 KiB regions, each a sorted array of the
// 16-bit offsets of its objects with their records beside them: neighbours
// share cache lines, and a region holds at most a few hundred objects
// (LLVM objects are at least 24 bytes), so keeping it sorted costs a short
// move on insertion. A region is found through a two-level table indexed by
// its address (a leaf per GiB of address space the program uses): two
// loads, where a hash map took a hash, a probe of its control bytes and a
// compare on every look-up.
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
#include "absl/functional/function_ref.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ownsan {

class AddressIndex {
public:
  /// The tag of a freed record's entry (ShadowMap): an index shared by the
  /// OwnershipGraph and the ShadowMap holds live records untagged.
  static constexpr uintptr_t kFreedTag = 8;
  /// A live record's entry: no tag in its low bits (records are 64-byte
  /// aligned; the ShadowMap's entries all carry one).
  static bool IsUntagged(const ObjectRecord *e) {
    return !(reinterpret_cast<uintptr_t>(e) & 63);
  }

  AddressIndex() = default;
  AddressIndex(const AddressIndex &) = delete; // (owns its regions)
  AddressIndex &operator=(const AddressIndex &) = delete;
  ~AddressIndex();

  /// The record indexed at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    const Region *region = FindRegion(RegionOf(addr));
    size_t i;
    return region && Locate(*region, OffsetOf(addr), &i) ? region->records[i]
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
    Region *region = FindRegion(key);
    size_t i;
    if (!region || !Locate(*region, OffsetOf(r->addr), &i) ||
        region->records[i] != r)
      return false;
    EraseSlice(*region, i, i + 1);
    return true;
  }

  /// Put() of each of `rs`, sorted by address (one merge per region), each
  /// entry with `tag` in its low bits (records are 64-byte aligned; see
  /// kFreedTag); calls replaced(old) with what each replaced (nullptr if
  /// nothing).
  template <typename F>
  void PutSorted(ObjectRecord *const *rs, size_t n, uintptr_t tag, F replaced) {
    auto entry = [tag](ObjectRecord *r) {
      return reinterpret_cast<ObjectRecord *>(reinterpret_cast<uintptr_t>(r) |
                                              tag);
    };
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
          replaced(PutAt(rs[k]->addr, entry(rs[k])));
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
          records[out] = entry(rs[k]);
        } else {
          --out, --k;
          replaced(nullptr);
          offsets[out] = off;
          records[out] = entry(rs[k]);
        }
      }
      size_ += added;
    }
  }

  /// Removes whatever record is indexed at `addr`.
  void EraseAt(const void *addr) {
    uintptr_t key = RegionOf(addr);
    Region *region = FindRegion(key);
    size_t i;
    if (region && Locate(*region, OffsetOf(addr), &i))
      EraseSlice(*region, i, i + 1);
  }

  /// The entry indexed at `addr`, to overwrite in place (the index never
  /// reads it), or nullptr if there is none. Valid until the next change.
  /// (One look-up where Find() then PutAt() take two.)
  ObjectRecord **Slot(const void *addr) {
    Region *region = FindRegion(RegionOf(addr));
    size_t i;
    if (!region || !Locate(*region, OffsetOf(addr), &i))
      return nullptr;
    return &region->records[i];
  }

private:
  struct Region;

public:
  /// Where the last SlotAfter() left off.
  struct Cursor {
    Region *region = nullptr;
    uintptr_t key = 0;
    size_t next = 0; ///< the entries before it are below the last address
  };
  /// Slot(addr), searching from the cursor when `addr` lies past its last
  /// address in the same region (a walk up a region finds the next entry
  /// next). Any change but an entry's value needs a new Cursor.
  ObjectRecord **SlotAfter(const void *addr, Cursor *c);

  /// Slot() of each of `rs` (sorted by address, distinct): fn(k, slot)
  /// with the entry indexed at rs[k]->addr, or nullptr. One region look-up
  /// per run of records in a region, each search starting past the last
  /// (a batch of deaths is mostly neighbours). fn may change the entry,
  /// not the index.
  template <typename F>
  void ForEachSlotSorted(ObjectRecord *const *rs, size_t n, F fn) {
    for (size_t i = 0, end; i < n; i = end) {
      end = RunEnd(rs, i, n);
      Region *region = FindRegion(RegionOf(rs[i]->addr));
      size_t from = 0;
      for (size_t k = i; k < end; ++k) {
        ObjectRecord **slot = nullptr;
        if (region) {
          uint16_t off = OffsetOf(rs[k]->addr);
          size_t size = region->offsets.size();
          const uint16_t *offsets = region->offsets.data();
          // (Most often the next entry: a block's values die together.)
          if (from >= size || offsets[from] != off)
            from += LowerBound(offsets + from, size - from, off);
          if (from < size && offsets[from] == off)
            slot = &region->records[from++];
        }
        fn(k, slot);
      }
    }
  }

  /// A range of addresses [lo, lo + size).
  struct Range {
    const void *lo;
    size_t size;
  };
  /// ForEachInRange() of each of `ranges` (sorted, disjoint): fn(k, entry)
  /// for each entry indexed in ranges[k]. One region look-up per run of
  /// ranges in a region, each search starting past the last (the blocks a
  /// teardown frees are mostly neighbours). fn may change the entry (it
  /// gets a reference), not the index.
  template <typename F>
  void ForEachInSortedRanges(const Range *ranges, size_t n, F fn) {
    Region *region = nullptr;
    uintptr_t region_key = 0;
    size_t from = 0;
    for (size_t k = 0; k < n; ++k) {
      uintptr_t lo = reinterpret_cast<uintptr_t>(ranges[k].lo);
      uintptr_t last = lo + (ranges[k].size ? ranges[k].size - 1 : 0);
      uintptr_t key = lo >> kRegionBits;
      if (last >> kRegionBits != key) {
        // Case: a range across regions: the general walk.
        UpdateRange(ranges[k].lo, ranges[k].size,
                    [&](ObjectRecord *&e) { fn(k, e); });
        region = nullptr;
        continue;
      }
      if (!region || key != region_key) {
        region = FindRegion(key);
        region_key = key;
        from = 0;
        if (!region)
          continue;
      }
      const uint16_t *offsets = region->offsets.data();
      size_t size = region->offsets.size();
      uint16_t lo_off = OffsetOf(lo), hi_off = OffsetOf(last);
      if (from < size && offsets[from] < lo_off)
        from += LowerBound(offsets + from, size - from, lo_off);
      for (; from < size && offsets[from] <= hi_off; ++from)
        fn(k, region->records[from]);
    }
  }

  /// True if some record is indexed in [lo, lo + size).
  bool AnyInRange(const void *lo, size_t size) const {
    return AnyInRange(lo, size, [](const ObjectRecord *) { return true; });
  }
  /// True if pred(entry) holds for some entry indexed in [lo, lo + size).
  template <typename P>
  bool AnyInRange(const void *lo, size_t size, P pred) const {
    return VisitEntries(lo, size, pred);
  }

  /// Calls fn(entry) on each entry indexed in [lo, lo + size), in address
  /// order; fn may change the entry (a reference) but not the index.
  template <typename F> void UpdateRange(const void *lo, size_t size, F fn) {
    VisitEntries(lo, size, [&](ObjectRecord *&e) {
      fn(e);
      return false;
    });
  }

  /// UpdateRange(), and the entries for which fn returns true are removed.
  void UpdateOrEraseRange(const void *lo, size_t size,
                          absl::FunctionRef<bool(ObjectRecord *&)> fn);

  /// Calls fn(r) for each record indexed in [lo, lo + size), in address
  /// order. fn must not change the index.
  template <typename F>
  void ForEachInRange(const void *lo, size_t size, F fn) const {
    VisitEntries(lo, size, [&](ObjectRecord *r) {
      fn(r);
      return false;
    });
  }

  size_t size() const { return size_; }
  /// Whether the top-level table is mapped (for tests: see NewLeaf).
  bool MapsTopTable() const { return top_ != nullptr; }

  template <typename F> void ForEach(F fn) const {
    for (const Region *region : regions_)
      for (ObjectRecord *r : region->records)
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
    uintptr_t key;                     ///< its address >> kRegionBits
    size_t index;                      ///< in regions_
  };

  // The region table: a top level of kTopEntries leaves, each a leaf of
  // kLeafEntries regions (1 GiB of address space), mapped when first used
  // (a leaf's pages are only backed where the program has objects). It
  // covers addresses below 2^47, all a process gets on x86-64 and AArch64
  // unless it asks mmap for higher ones; regions above go to overflow_.
  static constexpr unsigned kLeafBits = 16;
  static constexpr unsigned kTopBits = 47 - kRegionBits - kLeafBits;
  static constexpr size_t kLeafEntries = size_t{1} << kLeafBits;
  static constexpr size_t kTopEntries = size_t{1} << kTopBits;

  /// The leaf of top-level entry `top` (< kTopEntries), or nullptr.
  [[gnu::always_inline]] Region **LeafOf(uintptr_t top) const {
    if (top == near_top_[0])
      return near_leaf_[0];
    if (top == near_top_[1])
      return near_leaf_[1];
    return top_ ? top_[top] : nullptr;
  }
  /// The region of `key`, or nullptr. (Lookups run under a shared lock,
  /// concurrently: this only reads.)
  [[gnu::always_inline]] Region *FindRegion(uintptr_t key) const {
    uintptr_t top = key >> kLeafBits;
    if (__builtin_expect(top < kTopEntries, 1)) {
      Region **leaf = LeafOf(top);
      return leaf ? leaf[key & (kLeafEntries - 1)] : nullptr;
    }
    auto it = overflow_.find(key);
    return it == overflow_.end() ? nullptr : it->second;
  }
  /// The table's slot for `key`'s region, its leaf mapped if need be.
  [[gnu::always_inline]] Region *&RegionSlot(uintptr_t key) {
    uintptr_t top = key >> kLeafBits;
    if (top >= kTopEntries)
      return overflow_[key];
    Region **leaf = LeafOf(top);
    if (!leaf)
      leaf = NewLeaf(top, key);
    return leaf[key & (kLeafEntries - 1)];
  }
  /// Maps the leaf of top-level entry `top`, first to use (to hold `key`).
  Region **NewLeaf(uintptr_t top, uintptr_t key);

  /// The region of `key`, created if need be.
  Region &MutableRegion(uintptr_t key) {
    Region *&slot = RegionSlot(key);
    if (!slot) {
      slot = new (InternalAllocate(sizeof(Region))) Region;
      slot->key = key;
      slot->index = regions_.size();
      regions_.push_back(slot);
    }
    if (slot == spare_)
      spare_ = nullptr; // (it gets an entry now)
    return *slot;
  }
  /// Unlinks and frees an empty region.
  void FreeRegion(Region *region);

  /// The index of the first offset >= `off`: a binary search whose steps
  /// are conditional moves, not branches (lookups come at random offsets, so
  /// branches would mispredict at every step).
  template <typename Offsets>
  static size_t LowerBound(const Offsets &offsets, uint16_t off) {
    return LowerBound(offsets.data(), offsets.size(), off);
  }
  static size_t LowerBound(const uint16_t *offsets, size_t len, uint16_t off) {
    if (len == 0)
      return 0;
    const uint16_t *base = offsets;
    while (len > 1) {
      size_t half = len / 2;
      size_t mask = -static_cast<size_t>(base[half - 1] < off);
      // Opaque to the optimizer, which would turn the select back into a
      // branch (x86's cmov conversion does in loops).
      asm("" : "+r"(mask));
      base += half & mask;
      len -= half;
    }
    return (base - offsets) + (*base < off);
  }
  /// Sets *i to where `off` is, or would go; true if it is there.
  static bool Locate(const Region &region, uint16_t off, size_t *i) {
    *i = LowerBound(region.offsets, off);
    return *i < region.offsets.size() && region.offsets[*i] == off;
  }
  void EraseSlice(Region &region, size_t from, size_t to) {
    EraseRange(region.offsets, from, to);
    EraseRange(region.records, from, to);
    size_ -= to - from;
    if (region.offsets.empty() && spare_ != &region) {
      // The emptied region is kept as the spare, and the previous spare
      // goes: objects LLVM hands out and takes back one at a time (a
      // builder, a metadata-entry array) make and empty a region each, at
      // addresses that move on slowly, so the next one is most often in the
      // same region, and freeing and making it again (with its vectors)
      // cost more than the entry itself.
      if (spare_)
        FreeRegion(spare_);
      spare_ = &region;
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
    // (Branch-free: which half holds `lo` is a coin toss the predictor
    // loses, at every step.)
    size_t first = LowerBound(region.offsets, lo);
    // A range holds few entries (an allocation: one or two objects): look
    // on from the first rather than search again.
    size_t end = first, size = region.offsets.size();
    while (end != size && region.offsets[end] <= hi)
      ++end;
    return {first, end};
  }

  /// Calls visit(region, from, to) for each region holding entries in
  /// [lo, lo + size), the slice [from, to) of its entries, until it returns
  /// true.
  template <typename V>
  void VisitRange(const void *lo, size_t size, V visit) const {
    Bounds b = BoundsOf(lo, size);
    uintptr_t first_top = b.first_key >> kLeafBits,
              last_top = b.last_key >> kLeafBits;
    if (first_top == last_top && first_top < kTopEntries) {
      // Case: the range lies in one leaf (every allocation under 1 GiB
      // but the few across a leaf's edge).
      VisitLeaf(b.first_key, b.last_key, b, visit);
      return;
    }
    // Case: a range across leaves: only those mapped, in order.
    for (auto [top, leaf] : leaves_) {
      if (top < first_top || top > last_top)
        continue;
      uintptr_t from = std::max(b.first_key, uintptr_t{top} << kLeafBits);
      uintptr_t to =
          std::min(b.last_key, ((uintptr_t{top} + 1) << kLeafBits) - 1);
      if (VisitLeaf(from, to, b, visit))
        return;
    }
    if (last_top >= kTopEntries)
      VisitOverflow(std::max(b.first_key, uintptr_t{kTopEntries} << kLeafBits),
                    b, visit);
  }
  /// VisitRange over keys [from, to] of one leaf; true if visit stopped it.
  template <typename V>
  [[gnu::always_inline]] bool VisitLeaf(uintptr_t from, uintptr_t to,
                                        const Bounds &b, V &visit) const {
    Region **leaf = LeafOf(from >> kLeafBits);
    if (!leaf)
      return false;
    for (uintptr_t key = from; key <= to; ++key) {
      Region *region = leaf[key & (kLeafEntries - 1)];
      if (!region)
        continue;
      auto [f, t] = Slice(*region, key, b);
      if (f < t && visit(region, f, t))
        return true;
    }
    return false;
  }
  /// VisitRange over the keys from `key` on above the table: those of
  /// overflow_ in the range, in order (the range may span most of them).
  void
  VisitOverflow(uintptr_t key, const Bounds &b,
                absl::FunctionRef<bool(Region *, size_t, size_t)> visit) const;

  /// Calls visit(entry) on each entry in [lo, lo + size), in address
  /// order, until it returns true; true if it did.
  template <typename V>
  bool VisitEntries(const void *lo, size_t size, V visit) const {
    bool stopped = false;
    VisitRange(lo, size, [&](Region *region, size_t from, size_t to) {
      for (size_t i = from; i < to && !stopped; ++i)
        stopped = visit(region->records[i]);
      return stopped;
    });
    return stopped;
  }

  /// The first two leaves mapped, looked up before the table (a program's
  /// objects are most often in one or two: its heap, and the mappings of
  /// its libraries and large blocks), so that a short program maps no
  /// table: each leaf's entry in it was a page of its own to fault in.
  static constexpr uint32_t kNoTop = UINT32_MAX;
  uint32_t near_top_[2] = {kNoTop, kNoTop};
  Region **near_leaf_[2] = {nullptr, nullptr};
  Region ***top_ = nullptr; ///< the other leaves, mapped on first use
  /// The leaves mapped, by their index in the top level (ranges across
  /// leaves visit these, the destructor unmaps them).
  std::vector<std::pair<uint32_t, Region **>,
              InternalAllocator<std::pair<uint32_t, Region **>>>
      leaves_;
  /// Regions above the table (keys >= kTopEntries << kLeafBits).
  absl::flat_hash_map<uintptr_t, Region *,
                      absl::container_internal::hash_default_hash<uintptr_t>,
                      absl::container_internal::hash_default_eq<uintptr_t>,
                      InternalAllocator<std::pair<const uintptr_t, Region *>>>
      overflow_;
  /// Every region, each at its Region::index (ForEach, the destructor).
  std::vector<Region *, InternalAllocator<Region *>> regions_;
  size_t size_ = 0;
  /// The one region kept while empty (see EraseSlice); every other region
  /// in the table has entries.
  Region *spare_ = nullptr;
};

} // namespace ownsan

#endif // OWNSAN_CORE_ADDRESS_INDEX_H
