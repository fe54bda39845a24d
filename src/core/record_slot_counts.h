//===- record_slot_counts.h - A counting filter over records ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Which records may be keys of a map that nearly every death asks about
// (the builders positioned at a record, a record's unwatched children): a
// count per slot of records says "not a key" without hashing; only a
// record whose slot counts a key is looked up in the map. Records are
// 64-byte aligned and made in order, so neighbours take neighbouring slots.
//
// Not thread-safe: the map's owner serializes all access.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_RECORD_SLOT_COUNTS_H
#define OWNSAN_CORE_RECORD_SLOT_COUNTS_H

#include "core/object_record.h"

#include <cstddef>
#include <cstdint>

namespace ownsan {

class RecordSlotCounts {
public:
  /// `r` became a key of the map.
  void Add(const ObjectRecord *r) { ++counts_[Slot(r)]; }
  /// `r` is a key of the map no more.
  void Remove(const ObjectRecord *r) { --counts_[Slot(r)]; }
  /// False if `r` is certainly not a key.
  bool MayHold(const ObjectRecord *r) const { return counts_[Slot(r)] != 0; }

private:
  static constexpr size_t kSlots = 1024;
  static size_t Slot(const ObjectRecord *r) {
    return (reinterpret_cast<uintptr_t>(r) / alignof(ObjectRecord)) &
           (kSlots - 1);
  }
  uint32_t counts_[kSlots] = {};
};

} // namespace ownsan

#endif // OWNSAN_CORE_RECORD_SLOT_COUNTS_H
