//===- builder_positions.h - The builders at each position ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Which builders are positioned at each block (their insertion block) or
// instruction (the one they insert before): when either dies, those
// builders dangle. Every death asks, and nearly every answer is "none":
// the map's keys are counted per slot of records (RecordSlotCounts), which
// says so without hashing.
//
// Not thread-safe: the runtime serializes all access (its lock).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_BUILDER_POSITIONS_H
#define OWNSAN_CORE_BUILDER_POSITIONS_H

#include "core/object_record.h"
#include "core/record_slot_counts.h"

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
      keys_.Add(at);
    if (std::find(it->second.begin(), it->second.end(), builder) ==
        it->second.end())
      it->second.push_back(builder);
  }

  /// `builder` is no longer positioned at `at`.
  void Remove(ObjectRecord *at, ObjectRecord *builder) {
    if (!keys_.MayHold(at))
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
    if (!keys_.MayHold(at))
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

  void Erase(Map::iterator it) {
    keys_.Remove(it->first);
    by_target_.erase(it);
  }

  Map by_target_;
  RecordSlotCounts keys_; ///< the map's keys
};

} // namespace ownsan

#endif // OWNSAN_CORE_BUILDER_POSITIONS_H
