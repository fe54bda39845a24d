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

} // namespace ownsan
