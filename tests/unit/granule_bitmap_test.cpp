//===- granule_bitmap_test.cpp --------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/granule_bitmap.h"

#include "test_records.h"

#include "gtest/gtest.h"

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace ownsan {
namespace {

using testing_records::Addr;

// xorshift: the same sequence every run.
struct Random {
  uint64_t x = 88172645463325252ull;
  uint64_t operator()() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

TEST(GranuleBitmap, RemoveForgetsExactlyTheAddress) {
  GranuleBitmap<3> b;
  EXPECT_FALSE(b.MaybeContains(Addr(0x5000))) << "empty set";
  // Neighbours 8 bytes apart share a word of the bitmap.
  for (uintptr_t a = 0x5000; a < 0x5400; a += 8)
    b.Add(Addr(a));
  for (uintptr_t a = 0x5000; a < 0x5400; a += 16)
    b.Remove(Addr(a));
  for (uintptr_t a = 0x5000; a < 0x5400; a += 8)
    ASSERT_EQ(b.MaybeContains(Addr(a)), a % 16 != 0) << a;
  // Removing what was never added (or twice) changes nothing.
  b.Remove(Addr(0x5000));
  b.Remove(Addr(0x9000));
  for (uintptr_t a = 0x5008; a < 0x5400; a += 16)
    ASSERT_TRUE(b.MaybeContains(Addr(a))) << a;
  EXPECT_TRUE(b.MaybeOverlaps(Addr(0x5000), 0x10));
  EXPECT_FALSE(b.MaybeOverlaps(Addr(0x5000), 8));
}

// Once every address of a region is removed its summary bit clears: a range
// over it answers no (the words agree), and adding again sets it again.
TEST(GranuleBitmap, EmptiedRegionsAnswerNo) {
  GranuleBitmap<3> b;
  std::vector<uintptr_t> added;
  for (uintptr_t a = 0x7f0000000000; a < 0x7f0000000000 + (1 << 22);
       a += 0x1230)
    added.push_back(a & ~uintptr_t{7});
  for (uintptr_t a : added)
    b.Add(Addr(a));
  EXPECT_TRUE(b.MaybeOverlaps(Addr(0x7f0000000000), 1 << 22));
  EXPECT_TRUE(b.RegionMarked(Addr(added[100])));
  for (uintptr_t a : added)
    b.Remove(Addr(a));
  for (uintptr_t a : added)
    ASSERT_FALSE(b.RegionMarked(Addr(a))) << a;
  EXPECT_FALSE(b.MaybeOverlaps(Addr(0x7f0000000000), 1 << 22));
  for (uintptr_t a : added)
    ASSERT_FALSE(b.MaybeOverlaps(Addr(a - 0x40), 0x80)) << a;
  b.Add(Addr(added[100]));
  EXPECT_TRUE(b.RegionMarked(Addr(added[100])));
  EXPECT_TRUE(b.MaybeOverlaps(Addr(0x7f0000000000), 1 << 22));
  EXPECT_TRUE(b.MaybeOverlaps(Addr(added[100] - 0x40), 0x80));
}

// Against a model (std::set), under random adds and removes: MaybeContains
// is exact, and MaybeOverlaps answers for a range what its granules answer
// one by one, for ranges within a word, across words, regions (64 KiB) and
// the 1 GiB boundary of two chunks.
TEST(GranuleBitmap, MatchesAModelOfItsAddresses) {
  GranuleBitmap<3> b;
  std::set<uintptr_t> model;
  Random next;
  const uintptr_t base = 0x7f3fffe00000; // 2 MiB below a chunk boundary
  auto random_addr = [&] { return base + (next() % 0x400000 & ~7ull); };
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 3000; ++i) {
      uintptr_t a = random_addr();
      if (model.count(a) || next() % 4 == 0) {
        b.Remove(Addr(a));
        model.erase(a);
      } else {
        b.Add(Addr(a));
        model.insert(a);
      }
    }
    for (int i = 0; i < 5000; ++i) {
      uintptr_t a = random_addr();
      ASSERT_EQ(b.MaybeContains(Addr(a)), model.count(a) == 1) << a;
      size_t size = 1 + next() % (i % 3 == 0 ? 64 : i % 3 == 1 ? 5000 : 200000);
      auto it = model.lower_bound(a);
      bool any = it != model.end() && *it <= a + size - 1;
      ASSERT_EQ(b.MaybeOverlaps(Addr(a), size), any)
          << "round " << round << " lo " << a << " size " << size;
    }
  }
}

// Addresses above 47 bits are not kept: once one is added, queries there
// answer "maybe" (the caller looks them up), and nothing else changes.
TEST(GranuleBitmap, HighAddressesAnswerMaybe) {
  GranuleBitmap<3> b;
  const uintptr_t high = uintptr_t{1} << 50;
  EXPECT_FALSE(b.MaybeContains(Addr(high)));
  b.Add(Addr(high + 0x100));
  EXPECT_TRUE(b.MaybeContains(Addr(high + 0x100)));
  EXPECT_TRUE(b.MaybeContains(Addr(high + 0x900))) << "not kept: maybe";
  EXPECT_TRUE(b.MaybeOverlaps(Addr((uintptr_t{1} << 47) - 8), 64));
  b.Remove(Addr(high + 0x100));
  EXPECT_TRUE(b.MaybeContains(Addr(high + 0x100))) << "still maybe";
  EXPECT_FALSE(b.MaybeContains(Addr(0x5000)));
  EXPECT_FALSE(b.MaybeOverlaps(Addr(0x5000), 0x1000));
}

// Readers take no lock: while one thread adds and removes addresses that
// share words and regions with others, readers never miss an address that
// stays in the set.
TEST(GranuleBitmap, ReadersNeverMissAnAddressThatStays) {
  GranuleBitmap<3> b;
  const uintptr_t base = 0x7e0000000000;
  std::vector<uintptr_t> stays, churns;
  for (uintptr_t a = base; a < base + 0x200000; a += 0x40) {
    stays.push_back(a);
    churns.push_back(a + 8);
  }
  for (uintptr_t a : stays)
    b.Add(Addr(a));
  std::atomic<bool> done{false};
  std::atomic<int> missed{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&] {
      while (!done.load(std::memory_order_relaxed))
        for (uintptr_t a : stays)
          if (!b.MaybeContains(Addr(a)) || !b.MaybeOverlaps(Addr(a), 1))
            missed.fetch_add(1, std::memory_order_relaxed);
    });
  for (int round = 0; round < 20; ++round) {
    for (uintptr_t a : churns)
      b.Add(Addr(a));
    for (uintptr_t a : churns)
      b.Remove(Addr(a));
  }
  done.store(true);
  for (auto &t : readers)
    t.join();
  EXPECT_EQ(missed.load(), 0);
  for (uintptr_t a : churns)
    ASSERT_FALSE(b.MaybeContains(Addr(a))) << a;
}

} // namespace
} // namespace ownsan
