//===- object_record_test.cpp --------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/internal_allocator.h"
#include "core/object_record.h"
#include "core/ownership_graph.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ownsan {
namespace {

const void *Addr(uintptr_t a) { return reinterpret_cast<const void *>(a); }

TEST(RecordName, StoredAtItsSize) {
  // A name of 17 characters (with its 4-byte length, 21 bytes) takes 24
  // bytes, not the 32 of the next power of two: names carved one after
  // the other from a slab lie 24 bytes apart.
  std::deque<RecordName> names(200);
  for (RecordName &n : names)
    n = std::string(17, 'x');
  int apart_24 = 0;
  for (size_t i = 1; i < names.size(); ++i)
    apart_24 += reinterpret_cast<uintptr_t>(names[i].view().data()) -
                    reinterpret_cast<uintptr_t>(names[i - 1].view().data()) ==
                24;
  EXPECT_GE(apart_24, 150);
  EXPECT_EQ(InternalBlockSize(RecordName::Footprint(17)), 24u);
  EXPECT_EQ(names[0].view(), std::string(17, 'x'));
}

// Names of up to 7 bytes live in the record (no allocation, nothing for the
// history bound to count); longer ones in the internal allocator. Each
// length reads back the same, and a name can change between the two.
TEST(RecordName, ShortNamesInTheRecord) {
  RecordName n;
  EXPECT_TRUE(n.empty());
  EXPECT_EQ(n.view(), "");
  for (size_t len = 1; len <= 12; ++len) {
    std::string text;
    for (size_t i = 0; i < len; ++i)
      text += static_cast<char>(i == 3 ? '\0' : 'a' + i); // (NULs kept)
    n = text;
    EXPECT_FALSE(n.empty());
    EXPECT_EQ(std::string(n.view()), text) << len;
    bool in_record = n.view().data() >= reinterpret_cast<const char *>(&n) &&
                     n.view().data() < reinterpret_cast<const char *>(&n + 1);
    EXPECT_EQ(in_record, len <= RecordName::kInline) << len;
    EXPECT_EQ(n.footprint(), len <= 7 ? 0u : 4 + len) << len;
  }
  n = "entry";
  EXPECT_EQ(n.view(), "entry");
  n = n.view(); // (assigned its own bytes)
  EXPECT_EQ(n.view(), "entry");
  n = std::string_view();
  EXPECT_TRUE(n.empty());
  EXPECT_EQ(n.footprint(), 0u);
}

TEST(OwnershipGraph, EvictedContextLeavesNothingBehind) {
  // A context created and disposed over and over, each record evicted in
  // between: one record slot and one context use slot, reused each time.
  OwnershipGraph g;
  ObjectRecord *first = nullptr;
  ContextUse *first_use = nullptr;
  for (int i = 0; i < 1000; ++i) {
    ObjectRecord *ctx =
        g.Add(Addr(0x10000 + 64 * i), ObjectKind::Context, nullptr);
    ctx->name = "ctx";
    if (!first) {
      first = ctx;
      first_use = ctx->context_use;
    }
    EXPECT_EQ(ctx, first);
    EXPECT_EQ(ctx->context_use, first_use);
    EXPECT_EQ(ctx->context(), ctx);
    EXPECT_EQ(ctx->state.load(), ObjectState::Live);
    EXPECT_EQ(ctx->addr, Addr(0x10000 + 64 * i));
    EXPECT_TRUE(ctx->name.empty() || i == 0 || ctx->name.view() == "ctx");
    g.Remove(ctx);
    ctx->state = ObjectState::Evicted;
    ctx->ReleaseHistory();
    g.Recycle(ctx);
  }
  EXPECT_EQ(g.SlotCount(), 1u);
  EXPECT_EQ(g.RecordCount(), 1000u);
  EXPECT_EQ(g.LiveCount(), 0u);
}

TEST(ObjectRecord, ReusedSlotStartsClean) {
  OwnershipGraph g;
  ObjectRecord *b = g.Add(Addr(0x2000), ObjectKind::Builder, nullptr);
  b->MutableRare().insert_point_freed = b;
  b->created_by = 7;
  b->name = "old";
  g.Remove(b);
  b->state = ObjectState::Evicted;
  b->ReleaseHistory();
  g.Recycle(b);
  ObjectRecord *m = g.Add(Addr(0x3000), ObjectKind::Module, nullptr);
  ASSERT_EQ(m, b);
  EXPECT_EQ(m->kind, ObjectKind::Module);
  EXPECT_EQ(m->created_by, kNoFn);
  EXPECT_TRUE(m->name.empty());
  EXPECT_EQ(m->rare().insert_point_freed, nullptr);
  EXPECT_EQ(m->parent, nullptr);
  EXPECT_EQ(g.Find(Addr(0x3000)), m);
  EXPECT_EQ(g.Find(Addr(0x2000)), nullptr);
}

// The events' arena takes a small first block from the internal allocator,
// maps four blocks of 2,048 events, then 2 MiB huge pages: every event made
// is visited exactly once by
// ForEachFreeEvent (eviction clears their targets), across the change of
// block size and in the block being filled.
TEST(FreeEvents, EachIsVisitedOnceAcrossBlockSizes) {
  constexpr size_t kEvents = 80000; // the first, 4 x 2,048, a huge block, more
  constexpr uintptr_t kFirst = uintptr_t{1} << 44;
  auto target = [](size_t i) {
    return reinterpret_cast<ObjectRecord *>(kFirst + 64 * i);
  };
  std::vector<FreeEvent *> made;
  for (size_t i = 0; i < kEvents; ++i)
    made.push_back(NewFreeEvent(kNoFn, target(i), 0, 0, "",
                                /*release_unused=*/false, nullptr, 0));
  std::vector<int> seen(kEvents);
  ForEachFreeEvent([&](FreeEvent *ev) {
    uintptr_t t = reinterpret_cast<uintptr_t>(ev->target);
    if (t >= kFirst && t < kFirst + 64 * kEvents)
      ++seen[(t - kFirst) / 64];
  });
  for (size_t i = 0; i < kEvents; ++i) {
    ASSERT_EQ(seen[i], 1) << i;
    ASSERT_EQ(made[i]->target, target(i)) << i;
  }
  for (FreeEvent *ev : made)
    ev->target = nullptr; // (made here; never recorded with)
  ReleaseThreadFreeEvents();
}

} // namespace
} // namespace ownsan
