//===- record_cache_test.cpp - The per-thread cache of live records -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The record cache (src/runtime/record_cache.h) over records made here: a
// dead record's entry for a handle must never hide the live record of the
// same handle, wherever the two entries sit in the handle's set. Built into
// state_machine_test, which links the runtime (the cache's thread-local
// storage is defined there).
//
//===----------------------------------------------------------------------===//

#include "runtime/record_cache.h"

#include "gtest/gtest.h"

#include <cstdint>

namespace ownsan {
namespace {

// A handle no object of the test program lives at (the cache never
// dereferences it). Each test uses handles of its own.
const void *TestHandle(uintptr_t k) {
  return reinterpret_cast<const void *>(0x7e0000000000ull + 64 * k);
}

// Records outlive the tests: the cache is the thread's and keeps its
// entries from one test to the next.
ObjectRecord g_records[7];

// A live object registered at the address of one that died: the
// registration caches the new record in the first way, and the dead one's
// entry goes on to another way of the set.
TEST(RecordCache, LiveRecordFoundBehindADeadOnesEntry) {
  const void *h = TestHandle(1);
  ObjectRecord &dead = g_records[0], &live = g_records[1];
  dead.addr = h;
  live.addr = h;
  CacheNewRecord(h, &dead); // (cached while it lived)
  dead.state.store(ObjectState::Freed);
  CacheNewRecord(h, &live);
  EXPECT_EQ(CachedLive(h), &live);
}

// The other order: the dead record's entry is the first way and the live
// record's sits behind it (a registration's entry moved on by a later one,
// then the dead record cached again by a look-up of the old object).
TEST(RecordCache, DeadEntryInTheFirstWayDoesNotHideTheLiveRecord) {
  const void *h = TestHandle(2);
  ObjectRecord &dead = g_records[2], &live = g_records[3];
  dead.addr = h;
  live.addr = h;
  CacheNewRecord(h, &live);
  CacheNewRecord(h, &dead); // (its object still live then)
  dead.state.store(ObjectState::Freed);
  EXPECT_EQ(CachedLive(h), &live)
      << "the dead record's entry ended the search of the set";
}

// A registration keeps the entry it displaces from the first way: the
// handle used before it is still found.
TEST(RecordCache, NewRecordKeepsTheDisplacedEntry) {
  const void *a = TestHandle(3);
  ObjectRecord &first = g_records[4];
  first.addr = a;
  CacheNewRecord(a, &first);
  // Handles of the same set as `a` (its set index is the hash's top bits).
  auto set_of = [](const void *h) { return &RecordCacheSlotOf(h).set; };
  ObjectRecord &second = g_records[5];
  for (uintptr_t k = 1000; k < 100000; ++k)
    if (set_of(TestHandle(k)) == set_of(a)) {
      second.addr = TestHandle(k);
      break;
    }
  ASSERT_NE(second.addr, nullptr);
  CacheNewRecord(second.addr, &second);
  EXPECT_EQ(CachedLive(second.addr), &second);
  EXPECT_EQ(CachedLive(a), &first);
}

// A dead record is never returned, though its entry is the only one.
TEST(RecordCache, DeadRecordIsNotLive) {
  const void *h = TestHandle(5);
  ObjectRecord &dead = g_records[6];
  dead.addr = h;
  CacheNewRecord(h, &dead);
  dead.state.store(ObjectState::Freed);
  EXPECT_EQ(CachedLive(h), nullptr);
}

} // namespace
} // namespace ownsan
