//===- builder_positions.h - The builders at each position ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Which builders are positioned at each block (their insertion block) or
// instruction (the one they insert before): when either dies, those
// builders dangle. Every death asks, and nearly every answer is "none": a
// count per slot of records (a counting filter over the map's keys) says
// so without hashing; only a record whose slot counts a key is looked up.
//
// Not thread-safe: the runtime serializes all access (its lock).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_BUILDER_POSITIONS_H
#define OWNSAN_CORE_BUILDER_POSITIONS_H

#include "core/object_record.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

#include <algorithm>
#include <cstdint>

namespace ownsan {

class BuilderPositions {
public:
  /// The builders at one block or instruction (one, mostly; a list, not a
  /// set: a set cost an allocation per move).
  using Builders = absl::InlinedVector<ObjectRecord *, 1>;

  /// `builder` is now positioned at `at` (once, however often it is told).
  void Add(ObjectRecord *at, ObjectRecord *builder) {
    auto [it, inserted] = by_target_.try_emplace(at);
    if (inserted)
      ++keys_in_slot_[Slot(at)];
    if (std::find(it->second.begin(), it->second.end(), builder) ==
        it->second.end())
      it->second.push_back(builder);
  }

  /// `builder` is no longer positioned at `at`.
  void Remove(ObjectRecord *at, ObjectRecord *builder) {
    if (!keys_in_slot_[Slot(at)])
      return;
    auto it = by_target_.find(at);
    if (it == by_target_.end())
      return;
    Builders &builders = it->second;
    builders.erase(std::remove(builders.begin(), builders.end(), builder),
                   builders.end());
    if (builders.empty())
      Erase(it);
  }

  /// The builders positioned at `at`, which no longer are (it died).
  Builders Take(ObjectRecord *at) {
    if (!keys_in_slot_[Slot(at)])
      return {};
    auto it = by_target_.find(at);
    if (it == by_target_.end())
      return {};
    Builders builders = std::move(it->second);
    Erase(it);
    return builders;
  }

private:
  using Map = absl::flat_hash_map<ObjectRecord *, Builders>;

  // Records are 64-byte aligned and made in order: neighbours take
  // neighbouring slots.
  static constexpr size_t kSlots = 1024;
  static size_t Slot(const ObjectRecord *r) {
    return (reinterpret_cast<uintptr_t>(r) / alignof(ObjectRecord)) &
           (kSlots - 1);
  }

  void Erase(Map::iterator it) {
    --keys_in_slot_[Slot(it->first)];
    by_target_.erase(it);
  }

  Map by_target_;
  uint32_t keys_in_slot_[kSlots] = {}; ///< the map's keys in each slot
};

} // namespace ownsan

#endif // OWNSAN_CORE_BUILDER_POSITIONS_H
