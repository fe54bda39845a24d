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

// ForgetUnheld clears exactly the granules of its range the predicate does
// not hold (asked once a set granule, never outside the range), across
// words, regions and the boundary of two chunks; regions it empties answer
// no again, and the counts stay right for later Adds and Removes.
TEST(GranuleBitmap, ForgetUnheldClearsExactlyTheUnheldGranulesOfItsRange) {
  GranuleBitmap<3> b;
  std::set<uintptr_t> model, held;
  Random next;
  const uintptr_t base = 0x7f3fffe00000; // 2 MiB below a chunk boundary
  for (int i = 0; i < 20000; ++i) {
    uintptr_t a = base + (next() % 0x400000 & ~7ull);
    b.Add(Addr(a));
    model.insert(a);
    if (next() % 16 == 0) // (a region of ~20 addresses often holds none)
      held.insert(a);
  }
  const uintptr_t lo = base + 0x1000 + 5, size = 0x300000;
  std::set<uintptr_t> asked;
  b.ForgetUnheld(Addr(lo), size, [&](uintptr_t g) {
    EXPECT_TRUE(model.count(g)) << "asked of a granule without a bit: " << g;
    EXPECT_TRUE(g + 7 >= lo && g < lo + size) << "outside the range: " << g;
    EXPECT_TRUE(asked.insert(g).second) << "asked twice: " << g;
    return held.count(g) == 1;
  });
  for (uintptr_t a : model) {
    bool in_range = a + 7 >= lo && a < lo + size;
    ASSERT_EQ(b.MaybeContains(Addr(a)), !in_range || held.count(a)) << a;
    if (in_range)
      ASSERT_TRUE(asked.count(a)) << a;
  }
  // A region emptied by the call: no summary bit, and a range over it says
  // no; Add and Remove still keep its count.
  uintptr_t emptied = 0;
  for (uintptr_t r = (lo + 0xfff) & ~uintptr_t{0xfff}; r + 0x1000 <= lo + size;
       r += 0x1000) {
    auto it = model.lower_bound(r);
    bool any_held = false, any = false;
    for (; it != model.end() && *it < r + 0x1000; ++it) {
      any = true;
      any_held |= held.count(*it) == 1;
    }
    if (any && !any_held) {
      emptied = r;
      break;
    }
  }
  ASSERT_NE(emptied, 0u) << "the random set left no region to empty";
  EXPECT_FALSE(b.RegionMarked(Addr(emptied)));
  EXPECT_FALSE(b.MaybeOverlaps(Addr(emptied), 0x1000));
  b.Add(Addr(emptied + 8));
  EXPECT_TRUE(b.MaybeOverlaps(Addr(emptied), 0x1000));
  b.Remove(Addr(emptied + 8));
  EXPECT_FALSE(b.RegionMarked(Addr(emptied)));
  // And one whose held addresses are removed one by one empties too.
  uintptr_t kept = *held.lower_bound(lo + 0x1000);
  uintptr_t region = kept & ~uintptr_t{0xfff};
  for (auto it = model.lower_bound(region);
       it != model.end() && *it < region + 0x1000; ++it)
    if (b.MaybeContains(Addr(*it)))
      b.Remove(Addr(*it));
  EXPECT_FALSE(b.RegionMarked(Addr(kept)));
}

// ForgetEmptied clears every granule its range covers whole without asking
// (the caller emptied them), and asks only of the two it covers in part:
// those stay exactly when a neighbour holds them. Across a word boundary.
TEST(GranuleBitmap, ForgetEmptiedAsksOnlyOfTheGranulesItSharesAtItsEdges) {
  GranuleBitmap<3> b;
  const uintptr_t base = 0x7f1000000000 + 0x1f0; // two words' boundary: 0x200
  std::set<uintptr_t> model;
  for (uintptr_t a = base - 0x40; a < base + 0x100; a += 8) {
    b.Add(Addr(a));
    model.insert(a);
  }
  // [lo, lo + size): from the middle of one granule to the middle of
  // another, so its first and last granules are shared.
  const uintptr_t lo = base + 3, size = 0x82; // (to base + 0x84)
  const uintptr_t first_granule = base, last_granule = (lo + size - 1) & ~7ull;
  for (bool neighbour_holds : {false, true}) {
    GranuleBitmap<3> c;
    for (uintptr_t a : model)
      c.Add(Addr(a));
    std::set<uintptr_t> asked;
    c.ForgetEmptied(Addr(lo), size, [&](uintptr_t g) {
      EXPECT_TRUE(asked.insert(g).second) << "asked twice: " << g;
      return neighbour_holds;
    });
    EXPECT_EQ(asked, (std::set<uintptr_t>{first_granule, last_granule}));
    for (uintptr_t a : model) {
      bool edge = a == first_granule || a == last_granule;
      bool covered = a > first_granule && a < last_granule;
      bool expect = covered ? false : edge ? neighbour_holds : true;
      ASSERT_EQ(c.MaybeContains(Addr(a)), expect)
          << a << " " << neighbour_holds;
    }
    // The counts stay right: the words it cleared say no as a range.
    EXPECT_FALSE(c.MaybeOverlaps(Addr(first_granule + 8),
                                 last_granule - first_granule - 8));
  }
  // And a range of whole granules asks nothing.
  bool asked_any = false;
  b.ForgetEmptied(Addr(base), 0x40,
                  [&](uintptr_t) { return asked_any = true; });
  EXPECT_FALSE(asked_any);
  EXPECT_FALSE(b.MaybeOverlaps(Addr(base), 0x40));
  EXPECT_TRUE(b.MaybeContains(Addr(base + 0x40)));
  EXPECT_TRUE(b.MaybeContains(Addr(base - 8)));
}

// Readers never miss a held granule while ForgetUnheld clears its
// neighbours in the same words.
TEST(GranuleBitmap, ReadersNeverMissAGranuleForgetUnheldKeeps) {
  GranuleBitmap<3> b;
  const uintptr_t base = 0x7e0000000000;
  std::vector<uintptr_t> stays;
  for (uintptr_t a = base; a < base + 0x100000; a += 0x40)
    stays.push_back(a);
  std::atomic<bool> done{false};
  std::atomic<int> missed{0};
  for (uintptr_t a : stays)
    b.Add(Addr(a));
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&] {
      while (!done.load(std::memory_order_relaxed))
        for (uintptr_t a : stays)
          if (!b.MaybeContains(Addr(a)))
            missed.fetch_add(1, std::memory_order_relaxed);
    });
  for (int round = 0; round < 20; ++round) {
    for (uintptr_t a = base; a < base + 0x100000; a += 8)
      b.Add(Addr(a));
    b.ForgetUnheld(Addr(base), 0x100000,
                   [&](uintptr_t g) { return (g - base) % 0x40 == 0; });
  }
  done.store(true);
  for (auto &t : readers)
    t.join();
  EXPECT_EQ(missed.load(), 0);
  for (uintptr_t a = base; a < base + 0x100000; a += 8)
    ASSERT_EQ(b.MaybeContains(Addr(a)), (a - base) % 0x40 == 0) << a;
}

// Two sets in one bitmap (the runtime's kLiveValues and kReuseWatched):
// against a model of each, under random adds, removes and ForgetUnheld of
// one set, OverlappingSets names for a range exactly the sets that hold an
// address in it (within a word, across words, regions and the boundary of
// two chunks), MaybeContains answers per set, and a region's summary bit
// stays while either set holds an address in it. Above 47 bits, each set
// answers "maybe" once something was added to it.
TEST(GranuleBitmap, TwoSetsAnswerEachForItself) {
  GranuleBitmap<3, 2> b;
  std::set<uintptr_t> model[2];
  Random next;
  const uintptr_t base = 0x7f3fffe00000; // 2 MiB below a chunk boundary
  auto random_addr = [&] { return base + (next() % 0x400000 & ~7ull); };
  auto expected = [&](uintptr_t lo, size_t size, unsigned wanted) {
    unsigned found = 0;
    for (unsigned set = 0; set < 2; ++set) {
      auto it = model[set].lower_bound(lo);
      if ((wanted >> set) & 1 && it != model[set].end() && *it <= lo + size - 1)
        found |= 1u << set;
    }
    return found;
  };
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 4000; ++i) {
      uintptr_t a = random_addr();
      unsigned set = next() % 2;
      if (model[set].count(a) || next() % 4 == 0) {
        b.Remove(Addr(a), set);
        model[set].erase(a);
      } else {
        b.Add(Addr(a), set);
        model[set].insert(a);
      }
    }
    if (round % 2) {
      // One set forgets a range, keeping a third of its granules; the
      // other keeps everything.
      unsigned set = round / 2 % 2;
      uintptr_t lo = random_addr();
      size_t size = 1 + next() % 0x80000;
      b.ForgetUnheld(
          Addr(lo), size,
          [&](uintptr_t g) {
            EXPECT_TRUE(model[set].count(g)) << "asked of another set: " << g;
            return g % 3 == 0;
          },
          set);
      for (auto it = model[set].lower_bound(lo & ~7ull);
           it != model[set].end() && *it <= lo + size - 1;)
        it = *it % 3 == 0 ? std::next(it) : model[set].erase(it);
    }
    for (int i = 0; i < 5000; ++i) {
      uintptr_t a = random_addr();
      for (unsigned set = 0; set < 2; ++set)
        ASSERT_EQ(b.MaybeContains(Addr(a), set), model[set].count(a) == 1)
            << "set " << set << " addr " << a;
      size_t size = 1 + next() % (i % 3 == 0 ? 64 : i % 3 == 1 ? 5000 : 300000);
      unsigned wanted = 1 + next() % 3;
      ASSERT_EQ(b.OverlappingSets(Addr(a), size, wanted),
                expected(a, size, wanted))
          << "round " << round << " lo " << a << " size " << size << " wanted "
          << wanted;
      ASSERT_EQ(b.MaybeOverlaps(Addr(a), size, 1), expected(a, size, 2) != 0);
    }
  }
  // A region that holds only the second set's addresses stays marked;
  // removing them unmarks it.
  const uintptr_t region = 0x7e0000400000;
  b.Add(Addr(region + 0x100), 1);
  EXPECT_TRUE(b.RegionMarked(Addr(region)));
  EXPECT_EQ(b.OverlappingSets(Addr(region), 0x1000, 3), 2u);
  EXPECT_EQ(b.OverlappingSets(Addr(region), 0x1000, 1), 0u);
  b.Remove(Addr(region + 0x100), 1);
  EXPECT_FALSE(b.RegionMarked(Addr(region)));
  // High addresses: per set.
  const uintptr_t high = uintptr_t{1} << 50;
  b.Add(Addr(high + 0x40), 1);
  EXPECT_FALSE(b.MaybeContains(Addr(high + 0x40), 0));
  EXPECT_TRUE(b.MaybeContains(Addr(high + 0x900), 1)) << "not kept: maybe";
  EXPECT_EQ(b.OverlappingSets(Addr((uintptr_t{1} << 47) - 8), 64, 3), 2u);
}

} // namespace
} // namespace ownsan
