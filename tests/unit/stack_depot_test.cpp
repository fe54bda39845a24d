//===- stack_depot_test.cpp ----------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/stack_depot.h"

#include "gtest/gtest.h"

namespace ownsan {
namespace {

TEST(StackDepot, DeduplicatesEqualTraces) {
  StackDepot d;
  StackTrace a{{1, 2, 3}, {}};
  StackTrace b{{1, 2, 4}, {}};
  StackId ia = d.Put(a), ib = d.Put(b), ia2 = d.Put(a);
  EXPECT_NE(ia, 0u);
  EXPECT_EQ(ia, ia2);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(d.Get(ib).pcs, b.pcs);
  EXPECT_TRUE(d.Get(0).pcs.empty());
  EXPECT_TRUE(d.Get(999).pcs.empty());
}

TEST(StackDepot, PythonFramesAreTheIdentityToo) {
  StackDepot d;
  EXPECT_NE(d.Put({{1}, {7}}), d.Put({{1}, {8}}));
}

TEST(StackDepot, ManyEventsFromFewSitesStayFew) {
  StackDepot d;
  for (int i = 0; i < 100000; ++i)
    d.Put({{static_cast<uintptr_t>(i % 300), 42}, {}});
  EXPECT_EQ(d.size(), 300u);
}

__attribute__((noinline)) void CaptureHere(StackTrace *st) {
  CaptureNativeStack(st, 0, 8, /*fast=*/true);
}

TEST(StackDepot, CapturesTheCaller) {
  StackTrace fast, slow;
  CaptureHere(&fast);
  ASSERT_FALSE(fast.pcs.empty());
  CaptureNativeStack(&slow, 0, 8, /*fast=*/false);
  EXPECT_FALSE(slow.pcs.empty());
  EXPECT_LE(fast.pcs.size(), 8u);
}

} // namespace
} // namespace ownsan
