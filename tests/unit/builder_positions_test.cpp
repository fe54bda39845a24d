//===- builder_positions_test.cpp -----------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/builder_positions.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ownsan {
namespace {

using Builders = std::vector<ObjectRecord *>;

Builders Take(BuilderPositions &p, ObjectRecord *at) {
  BuilderPositions::Builders taken = p.Take(at);
  return Builders(taken.begin(), taken.end());
}

TEST(BuilderPositions, TakeHandsOutEachBuilderOnceThenNone) {
  std::vector<ObjectRecord> r(4);
  BuilderPositions p;
  p.Add(&r[0], &r[1]);
  p.Add(&r[0], &r[2]);
  p.Add(&r[0], &r[1]); // (positioned there again: listed once)
  EXPECT_EQ(Take(p, &r[0]), (Builders{&r[1], &r[2]}));
  EXPECT_EQ(Take(p, &r[0]), Builders{}) << "taken: no builder is there now";
  EXPECT_EQ(Take(p, &r[3]), Builders{}) << "never a position";
}

TEST(BuilderPositions, RemoveLeavesTheOtherBuilders) {
  std::vector<ObjectRecord> r(4);
  BuilderPositions p;
  p.Add(&r[0], &r[1]);
  p.Add(&r[0], &r[2]);
  p.Remove(&r[0], &r[1]);
  p.Remove(&r[3], &r[1]); // (not a position: nothing happens)
  EXPECT_EQ(Take(p, &r[0]), Builders{&r[2]});
  p.Add(&r[0], &r[1]);
  p.Remove(&r[0], &r[1]);
  EXPECT_EQ(Take(p, &r[0]), Builders{}) << "its last builder moved away";
}

// Against a model (std::map), under random moves of 16 builders among
// 4,096 records: records 1,024 apart share a slot of the counting filter,
// so a slot counts keys of several records and every answer must still
// come from the map.
TEST(BuilderPositions, MatchesAModelWhereRecordsShareSlots) {
  std::vector<ObjectRecord> r(4096 + 16);
  ObjectRecord *builders = &r[4096];
  BuilderPositions p;
  std::map<ObjectRecord *, Builders> model;
  uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  size_t taken = 0;
  for (int step = 0; step < 200000; ++step) {
    // Positions cluster on records whose slots collide (i, i + 1024, ...).
    ObjectRecord *at = &r[(next() % 4) * 1024 + next() % 8];
    ObjectRecord *b = &builders[next() % 16];
    switch (next() % 3) {
    case 0: {
      p.Add(at, b);
      Builders &m = model[at];
      if (std::find(m.begin(), m.end(), b) == m.end())
        m.push_back(b);
      break;
    }
    case 1: {
      p.Remove(at, b);
      auto it = model.find(at);
      if (it != model.end()) {
        it->second.erase(std::remove(it->second.begin(), it->second.end(), b),
                         it->second.end());
        if (it->second.empty())
          model.erase(it);
      }
      break;
    }
    case 2: {
      auto it = model.find(at);
      Builders want = it == model.end() ? Builders{} : it->second;
      if (it != model.end())
        model.erase(it);
      ASSERT_EQ(Take(p, at), want) << "step " << step;
      taken += !want.empty();
      break;
    }
    }
  }
  EXPECT_GT(taken, 1000u) << "the walk took builders from positions";
  for (auto &[at, want] : model)
    ASSERT_EQ(Take(p, at), want);
}

} // namespace
} // namespace ownsan
