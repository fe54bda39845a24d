//===- ownership_graph_test.cpp ------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/ownership_graph.h"
#include "core/shadow_map.h"

#include "test_records.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ownsan {
namespace {

using testing_records::Addr;
using testing_records::Records;

bool Contains(const std::vector<ObjectRecord *> &v, const ObjectRecord *r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

TEST(OwnershipGraph, AddFindAndParents) {
  OwnershipGraph g;
  ObjectRecord *ctx = g.Add(Addr(0x1000), ObjectKind::Context, nullptr);
  ObjectRecord *mod = g.Add(Addr(0x2000), ObjectKind::Module, ctx);
  EXPECT_EQ(g.Find(Addr(0x1000)), ctx);
  EXPECT_EQ(g.Find(Addr(0x2000)), mod);
  EXPECT_EQ(g.Find(Addr(0x3000)), nullptr);
  EXPECT_EQ(mod->parent, ctx);
  EXPECT_EQ(mod->context(), ctx) << "a module is in its parent's context";
  EXPECT_EQ(ctx->context(), ctx);
  EXPECT_EQ(g.LiveCount(), 2u);
}

TEST(OwnershipGraph, RemovingAContextTakesItsUnwatchedChildren) {
  OwnershipGraph g;
  ObjectRecord *ctx = g.Add(Addr(0x1000), ObjectKind::Context, nullptr);
  ObjectRecord *m1 = g.Add(Addr(0x2000), ObjectKind::Module, ctx);
  ObjectRecord *m2 = g.Add(Addr(0x2100), ObjectKind::Module, ctx);
  ObjectRecord *ty = g.Add(Addr(0x2200), ObjectKind::Type, ctx);
  // Values are watched (their deletion is seen): not cascaded here.
  ObjectRecord *fn = g.Add(Addr(0x3000), ObjectKind::Function, m1);
  ObjectRecord *other = g.Add(Addr(0x9000), ObjectKind::Context, nullptr);

  std::vector<ObjectRecord *> dead = g.Remove(ctx);
  EXPECT_EQ(dead.front(), ctx) << "the root comes first";
  EXPECT_TRUE(Contains(dead, m1));
  EXPECT_TRUE(Contains(dead, m2));
  EXPECT_TRUE(Contains(dead, ty));
  EXPECT_FALSE(Contains(dead, fn));
  EXPECT_FALSE(Contains(dead, other));
  EXPECT_EQ(g.Find(Addr(0x2000)), nullptr);
  EXPECT_EQ(g.Find(Addr(0x3000)), fn);
  EXPECT_EQ(g.Find(Addr(0x9000)), other);
}

TEST(OwnershipGraph, DetachedModuleDoesNotDieWithItsOldParent) {
  OwnershipGraph g;
  ObjectRecord *ctx = g.Add(Addr(0x1000), ObjectKind::Context, nullptr);
  ObjectRecord *m = g.Add(Addr(0x2000), ObjectKind::Module, ctx);
  g.SetParent(m, nullptr);
  std::vector<ObjectRecord *> dead = g.Remove(ctx);
  EXPECT_FALSE(Contains(dead, m));
  EXPECT_EQ(g.Find(Addr(0x2000)), m);
}

TEST(OwnershipGraph, UnwatchedRangeQuery) {
  OwnershipGraph g;
  g.Add(Addr(0x1000), ObjectKind::Module, nullptr);
  g.Add(Addr(0x1800), ObjectKind::Builder, nullptr);
  g.Add(Addr(0x1900), ObjectKind::Instruction, nullptr); // watched
  g.Add(Addr(0x2000), ObjectKind::MemoryBuffer, nullptr);
  std::vector<const void *> seen;
  g.ForEachUnwatchedIn(Addr(0x1000), 0x1000,
                       [&](ObjectRecord *r) { seen.push_back(r->addr); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], Addr(0x1000));
  EXPECT_EQ(seen[1], Addr(0x1800));
}

TEST(OwnershipGraph, AddressCanBeLiveAgainAfterRemoval) {
  OwnershipGraph g;
  ObjectRecord *a = g.Add(Addr(0x1000), ObjectKind::Module, nullptr);
  g.Remove(a);
  ObjectRecord *b = g.Add(Addr(0x1000), ObjectKind::Module, nullptr);
  EXPECT_NE(a, b) << "a new record, not the old one revived";
  EXPECT_EQ(g.Find(Addr(0x1000)), b);
}

// HasUnwatchedChildren answers from a count per slot of records before it
// looks in the map: parents that share a slot (records 1024 apart), with
// unwatched children given, moved away, removed and dying with their
// parent, in random order against a model. It fails if a count misses a
// parent (a child unseen: its death would not take the child with it).
TEST(OwnershipGraph, UnwatchedChildrenSeenThroughSharedSlots) {
  OwnershipGraph g;
  std::vector<ObjectRecord *> parents;
  for (uintptr_t i = 0; i < 3000; ++i) // (three records in every slot)
    parents.push_back(
        g.Add(Addr(0x10000000 + 64 * i), ObjectKind::Function, nullptr));
  std::vector<std::pair<ObjectRecord *, ObjectRecord *>> children;
  std::map<ObjectRecord *, int> model;
  uint64_t x = 42;
  auto next = [&x] { return (x = x * 6364136223846793005ull + 1) >> 33; };
  uintptr_t addr = 0x20000000;
  for (int step = 0; step < 20000; ++step) {
    uint64_t what = next() % 4;
    if (what <= 1 || children.empty()) {
      ObjectRecord *p = parents[next() % parents.size()];
      children.push_back({g.Add(Addr(addr += 64), ObjectKind::Opaque, p), p});
      ++model[p];
    } else {
      size_t k = next() % children.size();
      auto [child, p] = children[k];
      if (what == 2)
        g.SetParent(child, nullptr); // (detached: the caller's now)
      else
        g.RemoveWithoutList(child);
      --model[p];
      children[k] = children.back();
      children.pop_back();
      ASSERT_EQ(g.HasUnwatchedChildren(p), model[p] > 0) << "step " << step;
      continue;
    }
    ObjectRecord *p = children.back().second;
    ASSERT_TRUE(g.HasUnwatchedChildren(p)) << "step " << step;
  }
  // A parent dies with its children (Remove), and so stops counting.
  ObjectRecord *dying = nullptr;
  for (auto [p, n] : model)
    if (n > 0 && !dying)
      dying = p;
  ASSERT_NE(dying, nullptr);
  g.Remove(dying);
  model.erase(dying);
  for (ObjectRecord *p : parents)
    if (p != dying)
      ASSERT_EQ(g.HasUnwatchedChildren(p), model[p] > 0)
          << "parent " << p->addr;
}

// Records never move: across the arena's blocks (a first small one, then
// 2 MiB ones) every record stays where Add() put it, holds what it was
// given, and is visited once, in the order it was made.
TEST(OwnershipGraph, RecordsStayPutAcrossArenaBlocks) {
  OwnershipGraph g;
  constexpr size_t kRecords = 70000; // the two small blocks and three more
  std::vector<ObjectRecord *> made;
  for (size_t i = 0; i < kRecords; ++i) {
    ObjectRecord *r =
        g.Add(Addr(0x100000 + 64 * i), ObjectKind::Instruction, nullptr);
    r->create_stack = static_cast<StackId>(i + 1);
    made.push_back(r);
  }
  EXPECT_EQ(g.SlotCount(), kRecords);
  size_t k = 0;
  bool in_order = true;
  g.ForEachRecord([&](ObjectRecord *r) {
    in_order &= k < kRecords && r == made[k];
    ++k;
  });
  EXPECT_EQ(k, kRecords);
  EXPECT_TRUE(in_order);
  for (size_t i = 0; i < kRecords; ++i) {
    ASSERT_EQ(made[i]->addr, Addr(0x100000 + 64 * i)) << i;
    ASSERT_EQ(made[i]->create_stack, static_cast<StackId>(i + 1)) << i;
    ASSERT_EQ(g.Find(Addr(0x100000 + 64 * i)), made[i]) << i;
  }
}

// Records whose only rare field is their type share one extra per type;
// writing any other rare field gives the record its own copy.
// The graph and the shadow map share one address index: each sees only its
// own entries, a death passes an entry from one to the other in place, and
// a new object displaces the freed entry at its address.
// A batch of deaths spread over several 16 KiB regions, with neighbours
// left alive between them and, mixed in, records the graph never indexed
// (a bug elsewhere: indexed as Insert() would): each dead entry is retagged
// where it is, each stranger indexed, the living untouched.
TEST(OwnershipGraph, DeathsRetaggedInPlaceAcrossRegions) {
  OwnershipGraph g;
  ShadowMap m(g.Index());
  Records strangers;
  std::vector<ObjectRecord *> all, dead, alive;
  for (uintptr_t a = 0x100000; a < 0x100000 + 3 * 0x4000; a += 0x60)
    all.push_back(g.Add(Addr(a), ObjectKind::Instruction, nullptr));
  for (size_t i = 0; i < all.size(); ++i)
    (i % 3 == 1 ? alive : dead).push_back(all[i]);
  for (ObjectRecord *r : dead)
    r->state = ObjectState::Freed;
  g.ForgetWatched(dead.size());
  std::vector<ObjectRecord *> batch = dead;
  for (uintptr_t a : {0x100010, 0x104018, 0x10c000})
    batch.push_back(strangers.Freed(a));
  std::sort(batch.begin(), batch.end(),
            [](ObjectRecord *a, ObjectRecord *b) { return a->addr < b->addr; });
  m.InsertSortedInPlace(batch.data(), batch.size());
  for (ObjectRecord *r : batch)
    EXPECT_EQ(m.Find(r->addr), r) << r->addr;
  for (ObjectRecord *r : alive) {
    EXPECT_EQ(g.Find(r->addr), r) << r->addr;
    EXPECT_EQ(m.Find(r->addr), nullptr) << r->addr;
  }
  EXPECT_EQ(m.size(), batch.size());
  EXPECT_EQ(g.LiveCount(), alive.size());
}

// An object freed explicitly, with no unwatched children (a builder, a
// function): the graph forgets it (its parent's children, the unwatched
// index, the live count) and leaves its entry for the shadow map to retag
// where it is; its neighbours stay live.
TEST(OwnershipGraph, ForgetInPlaceLeavesTheEntryToRetag) {
  OwnershipGraph g;
  ShadowMap m(g.Index());
  ObjectRecord *ctx = g.Add(Addr(0x1000), ObjectKind::Context, nullptr);
  ObjectRecord *mod = g.Add(Addr(0x1040), ObjectKind::Module, ctx);
  ObjectRecord *builder = g.Add(Addr(0x1080), ObjectKind::Builder, ctx);
  ObjectRecord *fn = g.Add(Addr(0x10c0), ObjectKind::Function, mod);
  for (ObjectRecord *r : {builder, fn}) {
    r->state = ObjectState::Freed;
    g.ForgetInPlace(r);
    m.InsertSortedInPlace(&r, 1);
  }
  EXPECT_EQ(g.LiveCount(), 2u);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(g.Find(Addr(0x1080)), nullptr);
  EXPECT_EQ(g.Find(Addr(0x10c0)), nullptr);
  EXPECT_EQ(m.Find(Addr(0x1080)), builder);
  EXPECT_EQ(m.Find(Addr(0x10c0)), fn);
  EXPECT_EQ(g.Find(Addr(0x1040)), mod);
  std::vector<ObjectRecord *> unwatched;
  g.ForEachUnwatchedIn(Addr(0x1000), 0x100,
                       [&](ObjectRecord *r) { unwatched.push_back(r); });
  EXPECT_EQ(unwatched, (std::vector<ObjectRecord *>{ctx, mod}));
  // The context's removal no longer finds the builder among its children.
  std::vector<ObjectRecord *> gone = g.Remove(ctx);
  EXPECT_FALSE(Contains(gone, builder));
  EXPECT_TRUE(Contains(gone, mod));
}

TEST(OwnershipGraph, SharesItsIndexWithTheShadowMap) {
  OwnershipGraph g;
  ShadowMap m(g.Index());
  ObjectRecord *fn = g.Add(Addr(0x1000), ObjectKind::Function, nullptr);
  ObjectRecord *a = g.Add(Addr(0x1040), ObjectKind::Instruction, fn);
  ObjectRecord *b = g.Add(Addr(0x1080), ObjectKind::Instruction, fn);
  // Live entries are the graph's only.
  EXPECT_EQ(m.Find(Addr(0x1040)), nullptr);
  EXPECT_FALSE(m.AnyInRange(Addr(0x1000), 0x100));
  EXPECT_EQ(m.DropRange(Addr(0x1000), 0x100), 0u);
  bool matched = true;
  EXPECT_EQ(m.TakeOver(Addr(0x1040), &matched), nullptr);
  EXPECT_FALSE(matched);
  EXPECT_EQ(g.Find(Addr(0x1040)), a) << "TakeOver left the live entry";
  // a and b die: their entries pass to the shadow map where they are.
  ObjectRecord *dead[] = {a, b};
  for (ObjectRecord *r : dead)
    r->state = ObjectState::Freed;
  g.ForgetWatched(2);
  m.InsertSortedInPlace(dead, 2);
  EXPECT_EQ(g.LiveCount(), 1u);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(g.Find(Addr(0x1040)), nullptr);
  EXPECT_EQ(m.Find(Addr(0x1040)), a);
  EXPECT_EQ(m.Find(Addr(0x1080)), b);
  std::vector<ObjectRecord *> live;
  g.ForEachLiveIn(Addr(0x1000), 0x100,
                  [&](ObjectRecord *r) { live.push_back(r); });
  EXPECT_EQ(live, std::vector<ObjectRecord *>{fn});
  live.clear();
  g.ForEachLive([&](ObjectRecord *r) { live.push_back(r); });
  EXPECT_EQ(live, std::vector<ObjectRecord *>{fn});
  // New memory over b: expired; a new object at a's address displaces a
  // matched entry, one at b's an expired one.
  EXPECT_EQ(m.DropRange(Addr(0x1080), 8), 1u);
  EXPECT_TRUE(m.AnyInRange(Addr(0x1000), 0x100)) << "a still matched";
  ObjectRecord *displaced = nullptr;
  ObjectRecord *a2 =
      g.Add(Addr(0x1040), ObjectKind::Instruction, fn, &displaced);
  EXPECT_EQ(m.Displaced(displaced, &matched), a);
  EXPECT_TRUE(matched);
  ObjectRecord *b2 =
      g.Add(Addr(0x1080), ObjectKind::Instruction, fn, &displaced);
  EXPECT_EQ(m.Displaced(displaced, &matched), b);
  EXPECT_FALSE(matched);
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(g.LiveCount(), 3u);
  EXPECT_EQ(g.Find(Addr(0x1040)), a2);
  EXPECT_EQ(g.Find(Addr(0x1080)), b2);
  EXPECT_EQ(g.Index().size(), 3u) << "one entry per address";
}

TEST(ObjectRecord, TypeNamesAreSharedUntilWritten) {
  OwnershipGraph g;
  static const char kEngine[] = "LLVMExecutionEngineRef";
  static const char kBinary[] = "LLVMBinaryRef";
  ObjectRecord *a = g.Add(Addr(0x1000), ObjectKind::Opaque, nullptr);
  ObjectRecord *b = g.Add(Addr(0x2000), ObjectKind::Opaque, nullptr);
  ObjectRecord *c = g.Add(Addr(0x3000), ObjectKind::Opaque, nullptr);
  a->SetTypeName(kEngine);
  b->SetTypeName(kEngine);
  c->SetTypeName(kBinary);
  EXPECT_EQ(&a->rare(), &b->rare()) << "one extra for the type";
  EXPECT_NE(&a->rare(), &c->rare());
  EXPECT_EQ(c->rare().type_name, kBinary);
  b->MutableRare().disposed_late = true;
  EXPECT_NE(&a->rare(), &b->rare()) << "b has its own copy now";
  EXPECT_TRUE(b->rare().disposed_late);
  EXPECT_EQ(b->rare().type_name, kEngine) << "copied";
  EXPECT_FALSE(a->rare().disposed_late) << "the shared one is untouched";
  // A record with rare fields already keeps them and takes the type.
  ObjectRecord *d = g.Add(Addr(0x4000), ObjectKind::Opaque, nullptr);
  d->MutableRare().owned_via = 7;
  d->SetTypeName(kBinary);
  EXPECT_EQ(d->rare().owned_via, 7);
  EXPECT_EQ(d->rare().type_name, kBinary);
  EXPECT_NE(&d->rare(), &c->rare());
}

// The generation of an address is counted along the predecessor chain.
TEST(ObjectRecord, GenerationCountsPredecessors) {
  OwnershipGraph g;
  ObjectRecord *first = g.Add(Addr(0x1000), ObjectKind::Opaque, nullptr);
  EXPECT_EQ(first->generation(), 1u);
  ObjectRecord *second = g.Add(Addr(0x2000), ObjectKind::Opaque, nullptr);
  second->MutableRare().previous = first;
  ObjectRecord *third = g.Add(Addr(0x3000), ObjectKind::Opaque, nullptr);
  third->SetTypeName("LLVMBinaryRef"); // (a shared extra, then its own)
  third->MutableRare().previous = second;
  EXPECT_EQ(second->generation(), 2u);
  EXPECT_EQ(third->generation(), 3u);
  EXPECT_EQ(third->rare().type_name, std::string("LLVMBinaryRef"));
}

} // namespace
} // namespace ownsan
