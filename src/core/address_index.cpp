//===- address_index.cpp - Live records by address -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The AddressIndex's members that are off the hot paths.
//
//===----------------------------------------------------------------------===//

#include "core/address_index.h"

namespace ownsan {

AddressIndex::~AddressIndex() {
  for (Region *region : regions_) {
    region->~Region();
    InternalDeallocate(region, sizeof(Region));
  }
  for (auto [top, leaf] : leaves_)
    InternalUnmapBlock(leaf, kLeafEntries * sizeof(Region *));
  if (top_)
    InternalUnmapBlock(top_, kTopEntries * sizeof(Region **));
}

// In a near slot while one is free, in the table after that.
AddressIndex::Region **AddressIndex::NewLeaf(uintptr_t top, uintptr_t key) {
  auto **leaf = static_cast<Region **>(
      InternalMapBlock(kLeafEntries * sizeof(Region *), false));
  // (Written before anything reads it: a read of the untouched page would
  // map the zero page, and the write a moment later fault again.)
  leaf[key & (kLeafEntries - 1)] = nullptr;
  if (near_top_[0] == kNoTop) {
    near_leaf_[0] = leaf;
    near_top_[0] = static_cast<uint32_t>(top);
  } else if (near_top_[1] == kNoTop) {
    near_leaf_[1] = leaf;
    near_top_[1] = static_cast<uint32_t>(top);
  } else {
    if (!top_)
      top_ = static_cast<Region ***>(
          InternalMapBlock(kTopEntries * sizeof(Region **), false));
    top_[top] = leaf;
  }
  std::pair<uint32_t, Region **> entry{static_cast<uint32_t>(top), leaf};
  leaves_.insert(std::upper_bound(leaves_.begin(), leaves_.end(), entry),
                 entry);
  return leaf;
}

void AddressIndex::FreeRegion(Region *region) {
  uintptr_t key = region->key;
  if ((key >> kLeafBits) < kTopEntries)
    RegionSlot(key) = nullptr;
  else
    overflow_.erase(key);
  Region *last = regions_.back();
  last->index = region->index;
  regions_[region->index] = last;
  regions_.pop_back();
  region->~Region();
  InternalDeallocate(region, sizeof(Region));
}

ObjectRecord **AddressIndex::SlotAfter(const void *addr, Cursor *c) {
  uintptr_t key = RegionOf(addr);
  uint16_t off = OffsetOf(addr);
  size_t from = 0;
  if (c->region && c->key == key && c->next > 0 &&
      c->next <= c->region->offsets.size() &&
      c->region->offsets[c->next - 1] < off) {
    from = c->next;
  } else {
    c->region = FindRegion(key);
    c->key = key;
    c->next = 0;
    if (!c->region)
      return nullptr;
  }
  const uint16_t *offsets = c->region->offsets.data();
  size_t size = c->region->offsets.size();
  size_t i = from;
  if (i < size && offsets[i] < off)
    i += LowerBound(offsets + i, size - i, off);
  if (i < size && offsets[i] == off) {
    c->next = i + 1;
    return &c->region->records[i];
  }
  c->next = i;
  return nullptr;
}

void AddressIndex::UpdateOrEraseRange(
    const void *lo, size_t size, absl::FunctionRef<bool(ObjectRecord *&)> fn) {
  VisitRange(lo, size, [&](Region *region, size_t from, size_t to) {
    // (Kept entries close up in place; the slice left at its end goes.
    // That may free another region, the spare, never this one.)
    size_t kept = from;
    for (size_t i = from; i < to; ++i) {
      if (fn(region->records[i]))
        continue;
      region->offsets[kept] = region->offsets[i];
      region->records[kept] = region->records[i];
      ++kept;
    }
    if (kept < to)
      EraseSlice(*region, kept, to);
    return false;
  });
}

void AddressIndex::VisitOverflow(
    uintptr_t key, const Bounds &b,
    absl::FunctionRef<bool(Region *, size_t, size_t)> visit) const {
  std::vector<uintptr_t> keys;
  for (const auto &[k, region] : overflow_)
    if (k >= key && k <= b.last_key)
      keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (uintptr_t k : keys) {
    auto it = overflow_.find(k);
    if (it == overflow_.end())
      continue; // (freed meanwhile: UpdateOrEraseRange's spare)
    auto [from, to] = Slice(*it->second, k, b);
    if (from < to && visit(it->second, from, to))
      return;
  }
}

} // namespace ownsan
