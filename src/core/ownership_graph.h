//===- ownership_graph.h - Live LLVM objects and who owns them --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The OwnershipGraph holds the record of every live object the program has a
// handle to, keyed by address, with its last known parent. Values (functions,
// blocks, instructions, ...) are watched: the runtime sees LLVM release
// their memory (Runtime::ValuesDied), so the graph needs no child lists for
// them. Objects whose death ownsan cannot see that way (contexts, modules,
// types, builders, memory buffers) are "unwatched": the graph keeps their
// child lists so a dispose can cascade, and an ordered index so memory that
// is reallocated under them can be detected (see Runtime::OnAllocation).
// Its address index holds the ShadowMap's entries too (tagged; the graph
// skips them): a value that dies keeps its entry, retagged in place.
//
// Not thread-safe: the Runtime serializes all access.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_OWNERSHIP_GRAPH_H
#define OWNSAN_CORE_OWNERSHIP_GRAPH_H

#include "core/address_index.h"
#include "core/internal_allocator.h"
#include "core/object_record.h"
#include "core/record_slot_counts.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

namespace ownsan {

class OwnershipGraph {
public:
  /// Creates a live record. The address must not be live already. The
  /// index entry it displaces there (a ShadowMap entry sharing the index:
  /// see Index()) goes to *displaced.
  ObjectRecord *Add(const void *addr, ObjectKind kind, ObjectRecord *parent,
                    ObjectRecord **displaced = nullptr);

  /// The live record at `addr`, or nullptr.
  ObjectRecord *Find(const void *addr) const {
    ObjectRecord *e = index_.Find(addr);
    return e && AddressIndex::IsUntagged(e) ? e : nullptr;
  }

  /// The address index of the live records, which a ShadowMap may share
  /// (its entries are tagged; the graph sees only its own).
  AddressIndex &Index() { return index_; }

  /// Moves `r` under `new_parent` (nullptr: detached, owned by the caller).
  void SetParent(ObjectRecord *r, ObjectRecord *new_parent);

  /// Removes `r` from the graph (it is being freed); returns it and every
  /// unwatched descendant, which die with it, parents first.
  std::vector<ObjectRecord *> Remove(ObjectRecord *r);
  /// Remove() without the list: the caller does not use it (a value that
  /// LLVM deleted, which usually has no unwatched children).
  void RemoveWithoutList(ObjectRecord *r);
  /// RemoveWithoutList() of `n` watched records without unwatched children
  /// (a batch of values LLVM deleted), except that their entries stay in the
  /// index for the ShadowMap sharing it to retag in place
  /// (InsertSortedInPlace): the graph only stops counting them live.
  void ForgetWatched(size_t n) { live_count_ -= n; }
  /// The same for one record without unwatched children, watched or not
  /// (an object freed explicitly: a builder, a message, a function).
  void ForgetInPlace(ObjectRecord *r);
  /// Does `r` own unwatched objects (which Remove() would take with it)?
  /// (Every death asks, and nearly every answer is "no": the parents'
  /// counts per slot say so without hashing.)
  bool HasUnwatchedChildren(ObjectRecord *r) const {
    return parents_.MayHold(r) && HasChildrenEntry(r);
  }

  /// Live records whose address lies in [lo, lo + size), in address order.
  template <typename F>
  void ForEachLiveIn(const void *lo, size_t size, F fn) const {
    index_.ForEachInRange(lo, size, [&](ObjectRecord *e) {
      if (AddressIndex::IsUntagged(e))
        fn(e);
    });
  }

  /// ForEachLiveIn() of each of `ranges` (sorted, disjoint): fn(k, slot),
  /// `slot` the live record's entry in the index, which the shadow map may
  /// retag in place (ShadowMap::RetagInPlace) until the index next changes.
  template <typename F>
  void ForEachLiveSlotInSorted(const AddressIndex::Range *ranges, size_t n,
                               F fn) {
    index_.ForEachInSortedRanges(ranges, n, [&](size_t k, ObjectRecord *&e) {
      if (AddressIndex::IsUntagged(e))
        fn(k, &e);
    });
  }

  /// Unwatched live records whose address lies in [lo, lo + size).
  void ForEachUnwatchedIn(const void *lo, size_t size,
                          absl::FunctionRef<void(ObjectRecord *)> fn) const;
  /// Whether there is one.
  bool AnyUnwatchedIn(const void *lo, size_t size) const {
    return unwatched_by_addr_.AnyInRange(lo, size);
  }

  size_t LiveCount() const { return live_count_; }
  template <typename F> void ForEachLive(F fn) const {
    index_.ForEach([&](ObjectRecord *e) {
      if (AddressIndex::IsUntagged(e))
        fn(e);
    });
  }
  /// Objects registered since the start (records made, new or reused).
  size_t RecordCount() const { return registered_; }
  /// Record slots mapped (live, freed, or evicted and awaiting reuse).
  size_t SlotCount() const { return arena_.size(); }

  /// Calls fn(r) on every record slot (live, freed or evicted), in memory
  /// order: eviction clears the references to the records it evicts.
  template <typename F> void ForEachRecord(F fn) { arena_.ForEach(fn); }
  /// ForEachRecord(fn), calling ahead(r) a few records before fn(r).
  template <typename F, typename A> void ForEachRecord(F fn, A ahead) {
    arena_.ForEach(fn, ahead);
  }
  /// `r` was evicted (ObjectRecord::ReleaseHistory done, nothing refers to
  /// it any more): its slot, and a context's use slot, are reused by Add().
  void Recycle(ObjectRecord *r);

  /// Unwatched objects are those whose deletion LLVM does not report.
  static bool IsWatched(ObjectKind k) { return IsWatchedKind(k); }

private:
  void Unlink(ObjectRecord *r);
  bool HasChildrenEntry(ObjectRecord *r) const; // (out of line: rare)
  /// Each record's unwatched children (only records that have some).
  using ChildrenMap =
      absl::flat_hash_map<ObjectRecord *, absl::flat_hash_set<ObjectRecord *>>;
  /// children_ loses the entry at `it` (and parents_ its key).
  void EraseChildren(ChildrenMap::iterator it) {
    parents_.Remove(it->first);
    children_.erase(it);
  }

  /// Records never move or die: blocks of records, filled in order (a
  /// std::deque would give each block of two or three records its own
  /// malloc chunk), none from the program's heap. The first holds 16
  /// records, an internal allocation (on pages every process touches
  /// anyway: a program that makes a few objects faults in no page for
  /// them); the second, mapped, 1024 (a short program's); every later one
  /// 32768 (2 MiB: with huge_pages_for_metadata a huge page, so that a
  /// large module's records cost a few page faults, not one per 64).
  class Arena {
  public:
    Arena() = default;
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;
    ~Arena() {
      for (auto [block, n] : blocks_) {
        size_t constructed = block == next_ ? used_ : n;
        for (size_t i = 0; i < constructed; ++i)
          block[i].~ObjectRecord();
        InternalRemoveLeakRoots(block, n * sizeof(ObjectRecord));
        if (n == kFirstBlock)
          InternalDeallocate(block, n * sizeof(ObjectRecord));
        else
          InternalUnmapBlock(block, n * sizeof(ObjectRecord));
      }
    }
    ObjectRecord &emplace_back() {
      if (!free_.empty()) {
        ObjectRecord *r = free_.back();
        free_.pop_back();
        // The next slot to reuse was evicted long ago: fetch its line now,
        // not when its object is registered (a miss the stores of Reuse
        // would wait on).
        if (!free_.empty())
          __builtin_prefetch(free_.back(), /*rw=*/1);
        return *r;
      }
      if (used_ == capacity_) {
        if (capacity_ == 0) {
          capacity_ = kFirstBlock;
          next_ = static_cast<ObjectRecord *>(
              InternalAllocate(kFirstBlock * sizeof(ObjectRecord)));
          // (Records are 64-byte aligned: the address index's tags live in
          // the low bits of their addresses.)
          if (reinterpret_cast<uintptr_t>(next_) % alignof(ObjectRecord))
            __builtin_trap();
        } else {
          capacity_ = capacity_ == kFirstBlock ? kMinBlock : kMaxBlock;
          next_ = static_cast<ObjectRecord *>(InternalMapBlock(
              capacity_ * sizeof(ObjectRecord), /*huge_pages=*/true));
        }
        InternalAddLeakRoots(next_, capacity_ * sizeof(ObjectRecord));
        blocks_.emplace_back(next_, capacity_);
        used_ = 0;
      }
      ++size_;
      return *new (&next_[used_++]) ObjectRecord;
    }
    size_t size() const { return size_; }
    /// Will emplace_back() reuse an evicted slot?
    bool HasFree() const { return !free_.empty(); }
    void Free(ObjectRecord *r) { free_.push_back(r); }
    template <typename F> void ForEach(F fn) {
      ForEach(fn, [](ObjectRecord *) {});
    }
    /// As ForEach, calling ahead(r) a few records before fn(r): to fetch
    /// what fn will read (the slots stream in, what they point to does not).
    template <typename F, typename A> void ForEach(F fn, A ahead) {
      constexpr size_t kAhead = 16;
      for (auto [block, n] : blocks_) {
        size_t constructed = block == next_ ? used_ : n;
        for (size_t i = 0; i < constructed; ++i) {
          if (i + kAhead < constructed)
            ahead(&block[i + kAhead]);
          fn(&block[i]);
        }
      }
    }

  private:
    static constexpr size_t kFirstBlock = 16;
    static constexpr size_t kMinBlock = 1024;
    static constexpr size_t kMaxBlock = 32768;
    std::vector<std::pair<ObjectRecord *, size_t>,
                InternalAllocator<std::pair<ObjectRecord *, size_t>>>
        blocks_;
    /// Evicted slots, reused first (the newest evicted on top).
    std::vector<ObjectRecord *, InternalAllocator<ObjectRecord *>> free_;
    ObjectRecord *next_ = nullptr; ///< the block being filled
    size_t capacity_ = 0;
    size_t used_ = 0;
    size_t size_ = 0;
  };
  Arena arena_;
  size_t registered_ = 0;
  std::deque<ContextUse> context_uses_; ///< one per context record
  /// Use slots of evicted contexts, reused first.
  std::vector<ContextUse *, InternalAllocator<ContextUse *>> free_uses_;
  /// Live records by address (and, shared, the ShadowMap's entries).
  AddressIndex index_;
  size_t live_count_ = 0;
  AddressIndex unwatched_by_addr_; ///< unwatched live records
  ChildrenMap children_;           ///< unwatched children only
  RecordSlotCounts parents_;       ///< the keys of children_
};

} // namespace ownsan

#endif // OWNSAN_CORE_OWNERSHIP_GRAPH_H
