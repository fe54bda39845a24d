//===- object_record_test.cpp --------------------------------------------===//

#include "core/object_record.h"
#include "core/ownership_graph.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <deque>
#include <string>

namespace ownsan {
namespace {

const void *Addr(uintptr_t a) { return reinterpret_cast<const void *>(a); }

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

} // namespace
} // namespace ownsan
