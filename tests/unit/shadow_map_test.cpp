//===- shadow_map_test.cpp -----------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/address_filter.h"
#include "core/shadow_map.h"

#include "test_records.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace ownsan {
namespace {

using testing_records::Addr;
using testing_records::HugePagesAllowed;
using testing_records::Records;

TEST(ShadowMap, FindsFreedAddresses) {
  Records rs;
  ShadowMap m;
  ObjectRecord *r = rs.Freed(0x5000);
  EXPECT_FALSE(m.MaybeContains(Addr(0x5000)));
  m.Insert(r);
  EXPECT_TRUE(m.MaybeContains(Addr(0x5000)));
  EXPECT_EQ(m.Find(Addr(0x5000)), r);
  EXPECT_EQ(m.Find(Addr(0x5008)), nullptr);
}

// Retagging in place expects the graph's live entry; without it (a bug
// elsewhere) the record is indexed as Insert() would, not a trap.
TEST(ShadowMap, InPlaceWithoutTheLiveEntryStillIndexes) {
  Records rs;
  ShadowMap m;
  ObjectRecord *r = rs.Freed(0x5000);
  m.InsertSortedInPlace(&r, 1);
  EXPECT_EQ(m.Find(Addr(0x5000)), r);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.AnyInRange(Addr(0x5000), 8));
}

TEST(ShadowMap, NewerDeathReplacesOlder) {
  Records rs;
  ShadowMap m;
  ObjectRecord *a = rs.Freed(0x5000), *b = rs.Freed(0x5000);
  m.Insert(a);
  m.Insert(b);
  EXPECT_EQ(m.Find(Addr(0x5000)), b);
  EXPECT_EQ(m.size(), 1u);
}

TEST(ShadowMap, EvictedRecordStaysMatchedByItsKind) {
  Records rs;
  ShadowMap m;
  ObjectRecord *r = rs.Freed(0x5000);
  r->kind = ObjectKind::Function;
  m.Insert(r);
  m.Evict(r, /*consumed=*/false);
  ShadowMap::EvictedObject what;
  EXPECT_EQ(m.Find(Addr(0x5000)), nullptr) << "the record is gone";
  ASSERT_TRUE(m.FindEvicted(Addr(0x5000), &what));
  EXPECT_EQ(what.kind, ObjectKind::Function);
  EXPECT_FALSE(what.consumed);
  EXPECT_EQ(m.size(), 1u) << "still matched";
  EXPECT_TRUE(m.AnyInRange(Addr(0x5000), 16)) << "the quarantine keeps it";
  // New memory over the address: it stops matching, names no predecessor.
  EXPECT_EQ(m.DropRange(Addr(0x5000), 16), 1u);
  EXPECT_FALSE(m.FindEvicted(Addr(0x5000), &what));
  bool matched = true;
  EXPECT_EQ(m.TakeOver(Addr(0x5000), &matched), nullptr);
  EXPECT_FALSE(matched);
  EXPECT_EQ(m.size(), 0u);
}

TEST(ShadowMap, TakingOverAnEvictedMatchNamesNothing) {
  Records rs;
  ShadowMap m;
  ObjectRecord *r = rs.Freed(0x5000);
  m.Insert(r);
  m.Evict(r, /*consumed=*/false);
  bool matched = false;
  EXPECT_EQ(m.TakeOver(Addr(0x5000), &matched), nullptr) << "record gone";
  EXPECT_TRUE(matched);
  EXPECT_EQ(m.size(), 0u);
  ShadowMap::EvictedObject what;
  EXPECT_FALSE(m.FindEvicted(Addr(0x5000), &what)) << "taken";
}

TEST(ShadowMap, EvictingAnExpiredRecordForgetsIt) {
  Records rs;
  ShadowMap m;
  ObjectRecord *r = rs.Freed(0x5000);
  r->kind = ObjectKind::Module;
  m.Insert(r);
  m.DropRange(Addr(0x5000), 16);
  m.Evict(r, /*consumed=*/true);
  ShadowMap::EvictedObject what;
  EXPECT_FALSE(m.FindEvicted(Addr(0x5000), &what));
  bool matched = true;
  EXPECT_EQ(m.TakeOver(Addr(0x5000), &matched), nullptr) << "nothing to name";
  EXPECT_FALSE(matched);
}

TEST(ShadowMap, EvictingAReplacedRecordLeavesTheNewerDeath) {
  Records rs;
  ShadowMap m;
  ObjectRecord *a = rs.Freed(0x5000), *b = rs.Freed(0x5000);
  m.Insert(a);
  m.Insert(b);
  m.Evict(a, /*consumed=*/false);
  EXPECT_EQ(m.Find(Addr(0x5000)), b);
}

TEST(ShadowMap, AllocationOverAnAddressDropsExactlyThatRange) {
  Records rs;
  ShadowMap m;
  for (uintptr_t a : {0x1000, 0x1040, 0x10c0, 0x2000})
    m.Insert(rs.Freed(a));
  EXPECT_EQ(m.DropRange(Addr(0x1040), 0x80), 1u);
  EXPECT_NE(m.Find(Addr(0x1000)), nullptr);
  EXPECT_EQ(m.Find(Addr(0x1040)), nullptr);
  EXPECT_NE(m.Find(Addr(0x10c0)), nullptr) << "one past the range stays";
  EXPECT_NE(m.Find(Addr(0x2000)), nullptr);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.DropRange(Addr(0x1040), 0x80), 0u) << "expired already";
}

// An evicted entry names no predecessor: new memory over its address
// removes it from the index, where a record's entry stays expired. (Kept
// expired, the entries of every address a long-running program's heap
// ever lent an evicted object grew the index as long as the heap spread:
// the JIT server's peak RSS, 10,000 -> 100,000 iterations.)
TEST(ShadowMap, AllocationOverEvictedEntriesRemovesThem) {
  Records rs;
  AddressIndex index;
  ShadowMap m(index);
  // Evicted entries on both sides of a 16 KiB region's edge (0x14000),
  // between them a freed record's entry and a live one (the graph's).
  for (uintptr_t a = 0x13f00; a < 0x14100; a += 0x40) {
    ObjectRecord *r = rs.Freed(a);
    m.Insert(r);
    m.Evict(r, /*consumed=*/false);
  }
  ObjectRecord *freed = rs.Freed(0x13f20);
  m.Insert(freed);
  ObjectRecord *live = rs.At(0x14020);
  index.Put(live);
  ASSERT_EQ(index.size(), 10u);
  ASSERT_EQ(m.size(), 9u);

  EXPECT_EQ(m.DropRange(Addr(0x13f00), 0x200), 9u) << "all matched before";
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(index.size(), 2u) << "the eight evicted entries are gone";
  ShadowMap::EvictedObject what;
  for (uintptr_t a = 0x13f00; a < 0x14100; a += 0x40)
    EXPECT_FALSE(m.FindEvicted(Addr(a), &what)) << a;
  EXPECT_EQ(index.Find(Addr(0x14020)), live) << "a live entry stays";
  bool matched = true;
  EXPECT_EQ(m.TakeOver(Addr(0x13f20), &matched), freed)
      << "the record's expired entry still names its predecessor";
  EXPECT_FALSE(matched);
  EXPECT_EQ(index.size(), 1u);

  // A region left empty stays usable (the index keeps one spare).
  ObjectRecord *r = rs.Freed(0x20000);
  m.Insert(r);
  m.Evict(r, /*consumed=*/true);
  EXPECT_EQ(m.DropRange(Addr(0x20000), 8), 1u);
  EXPECT_EQ(index.size(), 1u);
  ObjectRecord *again = rs.Freed(0x20008);
  m.Insert(again);
  EXPECT_EQ(m.Find(Addr(0x20008)), again);
}

TEST(ShadowMap, ExpiredEntriesNameThePredecessorOnce) {
  Records rs;
  ShadowMap m;
  ObjectRecord *a = rs.Freed(0x1000), *b = rs.Freed(0x1040);
  m.Insert(a);
  m.Insert(b);
  m.DropRange(Addr(0x1000), 0x100);
  EXPECT_FALSE(m.AnyInRange(Addr(0x1000), 0x100)) << "expired: not matched";
  EXPECT_EQ(m.size(), 0u);
  bool matched = true;
  EXPECT_EQ(m.TakeOver(Addr(0x1000), &matched), a);
  EXPECT_FALSE(matched);
  EXPECT_EQ(m.TakeOver(Addr(0x1000), &matched), nullptr) << "taken";
  // A newer death replaces an expired entry and is matched again.
  ObjectRecord *c = rs.Freed(0x1040);
  m.Insert(c);
  EXPECT_EQ(m.Find(Addr(0x1040)), c);
  EXPECT_TRUE(m.AnyInRange(Addr(0x1000), 0x100));
  EXPECT_EQ(m.size(), 1u);
}

// A new object at a still-matched address takes the entry: the record is
// named (its address was reused) and no longer matched.
TEST(ShadowMap, TakingOverAMatchedAddressNamesItsRecord) {
  Records rs;
  ShadowMap m;
  ObjectRecord *a = rs.Freed(0x3000), *b = rs.Freed(0x3040);
  m.Insert(a);
  m.Insert(b);
  bool matched = false;
  EXPECT_EQ(m.TakeOver(Addr(0x3000), &matched), a);
  EXPECT_TRUE(matched);
  EXPECT_EQ(m.Find(Addr(0x3000)), nullptr);
  EXPECT_EQ(m.Find(Addr(0x3040)), b) << "its neighbour stays";
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.TakeOver(Addr(0x3008), &matched), nullptr) << "no entry there";
  EXPECT_FALSE(matched);
  EXPECT_EQ(m.size(), 1u);
}

TEST(AddressFilter, NoFalseNegatives) {
  AddressFilter f(16, 0);
  for (uintptr_t a = 0x10000; a < 0x20000; a += 48)
    f.Add(Addr(a));
  for (uintptr_t a = 0x10000; a < 0x20000; a += 48)
    EXPECT_TRUE(f.MaybeContains(Addr(a))) << a;
}

TEST(AddressFilter, EmptyFilterAnswersNo) {
  AddressFilter f(16, 0);
  int hits = 0;
  for (uintptr_t a = 0x10000; a < 0x90000; a += 16)
    hits += f.MaybeContains(Addr(a));
  EXPECT_EQ(hits, 0);
}

TEST(AddressFilter, PageFilterSeesRangesThatCrossPages) {
  AddressFilter pages(16, 12);
  pages.Add(Addr(0x7000 + 0x10));
  EXPECT_TRUE(pages.MaybeOverlaps(Addr(0x6ff0), 0x20)) << "crosses into page";
  EXPECT_TRUE(pages.MaybeOverlaps(Addr(0x7800), 8));
  int hits = 0;
  for (uintptr_t p = 0x100000; p < 0x200000; p += 0x1000)
    hits += pages.MaybeOverlaps(Addr(p), 64);
  EXPECT_LT(hits, 8) << "unrelated pages should almost never hit";
}

// The summary that lets MaybeOverlaps skip pages of the set with no bit
// must never hide a bit: every granule added to a full-size granule filter
// (2^24 bits, the runtime's) is seen through MaybeOverlaps, whichever page of
// the set it hashes to, for ranges that start before it and end after it.
TEST(AddressFilter, SummaryHidesNoGranule) {
  AddressFilter f(24, 4);
  std::vector<uintptr_t> added;
  for (uintptr_t a = 0x5500000000; added.size() < 20000; a += 0x1230)
    added.push_back(a);
  for (uintptr_t a : added)
    f.Add(Addr(a));
  for (uintptr_t a : added) {
    ASSERT_TRUE(f.MaybeOverlaps(Addr(a), 1)) << a;
    ASSERT_TRUE(f.MaybeOverlaps(Addr(a - 0x400), 0x800)) << a;
  }
  // A sparse set answers no for the rest (the summary and the words agree).
  AddressFilter sparse(24, 4);
  sparse.Add(Addr(0x5500000000));
  int hits = 0;
  for (uintptr_t a = 0x6600000000; a < 0x6600000000 + 0x100000; a += 0x100)
    hits += sparse.MaybeOverlaps(Addr(a), 0x40);
  EXPECT_EQ(hits, 0);
}

// MaybeOverlaps answers for a range exactly what its granules answer one by
// one (MaybeContains), whether the range lies in one word of the set (the
// inline case), spans several, or several groups of eight words hashed
// together; in sets of every size (the smallest has fewer than eight words).
TEST(AddressFilter, OverlapsIsTheOrOfItsGranules) {
  for (auto [log2_bits, shift] :
       {std::pair{16u, 3u}, {16u, 4u}, {16u, 12u}, {7u, 4u}, {24u, 4u}}) {
    AddressFilter f(log2_bits, shift);
    uint64_t x = 88172645463325252ull; // xorshift: the same ranges every run
    auto next = [&x] {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    const uintptr_t base = 0x7f0000000000;
    for (int i = 0; i < 300; ++i)
      f.Add(Addr(base + next() % 0x100000));
    for (int i = 0; i < 20000; ++i) {
      uintptr_t lo = base + next() % 0x100000;
      size_t size = 1 + next() % (i % 3 == 0 ? 64 : i % 3 == 1 ? 5000 : 40000);
      bool any = false;
      for (uintptr_t g = lo >> shift; g <= (lo + size - 1) >> shift; ++g)
        any = any || f.MaybeContains(Addr(g << shift));
      ASSERT_EQ(f.MaybeOverlaps(Addr(lo), size), any)
          << "bits 2^" << log2_bits << " shift " << shift << " lo " << lo
          << " size " << size;
    }
  }
}

// Where huge pages are not allowed (the default), a set touched all over
// stays in small pages, and keeps every bit.
TEST(AddressFilter, StaysInSmallPagesWhereHugePagesAreNotAllowed) {
  ASSERT_FALSE(InternalHugePagesAllowed()) << "the default";
  AddressFilter f(24, 4);
  std::vector<uintptr_t> added;
  for (uintptr_t a = 0x5500000000; a < 0x5500000000 + 1000 * 0x100000;
       a += 0x100000) {
    added.push_back(a);
    f.Add(Addr(a));
  }
  EXPECT_FALSE(f.InHugePage()) << "moved where huge pages are not allowed";
  for (uintptr_t a : added)
    ASSERT_TRUE(f.MaybeContains(Addr(a))) << a;
}

// A full-size set moves to a huge page once it has touched enough pages of
// its words, and keeps every bit it had and every bit added after; a short
// program's set (few pages) and a small set never move.
TEST(AddressFilter, MovesToAHugePageKeepingEveryBit) {
  HugePagesAllowed allowed;
  AddressFilter f(24, 4);
  std::vector<uintptr_t> added;
  // Addresses 1 MiB apart: each lands in a group of words of its own, so
  // nearly each touches another page of the set.
  for (uintptr_t a = 0x5500000000; !f.InHugePage(); a += 0x100000) {
    ASSERT_LT(added.size(), 10000u) << "never moved";
    added.push_back(a);
    f.Add(Addr(a));
  }
  EXPECT_GE(added.size(), 64u) << "moved before touching 64 pages";
  for (uintptr_t a : added) {
    ASSERT_TRUE(f.MaybeContains(Addr(a))) << a;
    ASSERT_TRUE(f.MaybeOverlaps(Addr(a - 0x20), 0x40)) << a;
  }
  for (uintptr_t a = 0x6600000000; a < 0x6600000000 + 500 * 0x100000;
       a += 0x100000) {
    f.Add(Addr(a));
    ASSERT_TRUE(f.MaybeContains(Addr(a))) << a;
  }
  for (uintptr_t a : added)
    ASSERT_TRUE(f.MaybeContains(Addr(a))) << a;
  int hits = 0;
  for (uintptr_t a = 0x7700000000; a < 0x7700000000 + 0x100000; a += 0x100)
    hits += f.MaybeOverlaps(Addr(a), 0x40);
  EXPECT_LT(hits, 64) << "the moved set answers no where nothing was added";

  AddressFilter sparse(24, 4);
  for (uintptr_t a = 0x5500000000; a < 0x5500000000 + 10 * 0x100000;
       a += 0x100000)
    sparse.Add(Addr(a));
  EXPECT_FALSE(sparse.InHugePage()) << "a few pages stay in small pages";
  AddressFilter small(16, 0);
  for (uintptr_t a = 0x10000; a < 0x10000 + 100000 * 48; a += 48)
    small.Add(Addr(a));
  EXPECT_FALSE(small.InHugePage()) << "a set smaller than a huge page";
}

// Readers on other threads never miss a bit added before they looked,
// while the set moves under them (run under ThreadSanitizer too).
TEST(AddressFilter, ReadersSeeEveryBitAcrossTheMove) {
  HugePagesAllowed allowed;
  AddressFilter f(24, 4);
  constexpr size_t kAddresses = 3000;
  auto address = [](size_t i) {
    return uintptr_t{0x5500000000} + i * 0x100000;
  };
  std::atomic<size_t> published{0};
  std::atomic<bool> missed{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&, t] {
      size_t seen = 0;
      while (seen < kAddresses) {
        seen = published.load(std::memory_order_acquire);
        // The newest few, and one older one in turn.
        for (size_t i = seen > 8 ? seen - 8 : 0; i < seen; ++i)
          if (!f.MaybeContains(Addr(address(i))))
            missed = true;
        if (seen && !f.MaybeOverlaps(Addr(address((seen * 7 + t) % seen)), 16))
          missed = true;
      }
    });
  for (size_t i = 0; i < kAddresses; ++i) {
    f.Add(Addr(address(i)));
    published.store(i + 1, std::memory_order_release);
  }
  for (std::thread &r : readers)
    r.join();
  EXPECT_TRUE(f.InHugePage());
  EXPECT_FALSE(missed.load()) << "a reader missed a bit added before it looked";
}

} // namespace
} // namespace ownsan
