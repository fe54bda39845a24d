//===- quarantine_test.cpp -----------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/quarantine.h"

#include "gtest/gtest.h"

#include <cstdint>

namespace ownsan {
namespace {

// Thread numbers: who freed a chunk, and who released it.
constexpr uint32_t kT0 = 0, kT1 = 1;

Quarantine::Chunk ChunkAt(uintptr_t p, size_t size) {
  return {reinterpret_cast<void *>(p), size, Quarantine::Chunk::kFree};
}

TEST(Quarantine, ReleasesOldestFirstToStayWithinTheLimit) {
  Quarantine q(100);
  Quarantine::ReleaseList out;
  q.Put(ChunkAt(0x1000, 40), kT0, &out);
  q.Put(ChunkAt(0x2000, 40), kT0, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(q.bytes(), 80u);
  q.Put(ChunkAt(0x3000, 50), kT0, &out); // 130 > 100: the oldest goes
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].p, reinterpret_cast<void *>(0x1000));
  EXPECT_EQ(q.bytes(), 90u);
  EXPECT_EQ(q.count(), 2u);
  out.clear();
  q.Put(ChunkAt(0x4000, 100), kT0, &out); // everything older goes
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].p, reinterpret_cast<void *>(0x2000));
  EXPECT_EQ(out[1].p, reinterpret_cast<void *>(0x3000));
  EXPECT_EQ(q.bytes(), 100u);
  EXPECT_EQ(q.peak_bytes(), 100u);
  EXPECT_EQ(q.total_taken(), 4u);
}

TEST(Quarantine, ChunkLargerThanTheLimitIsReleasedAtOnce) {
  Quarantine q(100);
  Quarantine::ReleaseList out;
  q.Put(ChunkAt(0x1000, 10), kT0, &out);
  q.Put(ChunkAt(0x2000, 101), kT0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].p, reinterpret_cast<void *>(0x2000));
  EXPECT_EQ(q.bytes(), 10u) << "what it held stays";
  Quarantine off(0); // quarantine_size_mb=0: nothing is held
  out.clear();
  off.Put(ChunkAt(0x3000, 1), kT0, &out);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(off.count(), 0u);
}

TEST(Quarantine, ManyChunksThroughASmallLimit) {
  Quarantine q(1000);
  Quarantine::ReleaseList out;
  size_t released = 0;
  uintptr_t next_expected = 0x10000;
  for (uintptr_t i = 0; i < 100000; ++i) {
    out.clear();
    q.Put(ChunkAt(0x10000 + i * 16, 16), kT0, &out);
    for (const Quarantine::Chunk &c : out) {
      ASSERT_EQ(c.p, reinterpret_cast<void *>(next_expected)) << "FIFO";
      next_expected += 16;
      ++released;
    }
    ASSERT_LE(q.bytes(), 1000u);
  }
  EXPECT_EQ(released + q.count(), 100000u);
}

TEST(Quarantine, TrimIsDueOncePerSixtyFourthOfTheLimitReleased) {
  Quarantine q(64 * 100); // trims per 100 bytes released
  Quarantine::ReleaseList out;
  auto clock = [] { return uint64_t(1000); };
  EXPECT_FALSE(q.TakeTrimDue(clock)); // nothing released yet
  for (int i = 0; i < 64; ++i)
    q.Put(ChunkAt(0x1000 + i * 0x100, 100), kT0, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(q.TakeTrimDue(clock));
  // Another thread's free releases the first 100 bytes, which T0 freed.
  q.Put(ChunkAt(0x9000, 60), kT1, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(q.TakeTrimDue(clock));
  EXPECT_FALSE(q.TakeTrimDue(clock)); // counted from zero again
}

TEST(Quarantine, ReleasesByTheThreadThatFreedNeverMakeATrimDue) {
  // A single-threaded program: what it frees goes back to its own arena,
  // which it allocates from again.
  Quarantine q(64 * 100);
  Quarantine::ReleaseList out;
  auto clock = [] { return uint64_t(1000); };
  for (int i = 0; i < 64 * 10; ++i)
    q.Put(ChunkAt(0x1000 + i * 0x100, 100), kT0, &out);
  EXPECT_EQ(out.size(), 64u * 9) << "nine limits' worth released";
  EXPECT_FALSE(q.TakeTrimDue(clock));
  // The chunks T0 freed last are released by T1: those count.
  out.clear();
  q.Put(ChunkAt(0x100000, 100), kT1, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].freed_by, kT0);
  EXPECT_TRUE(q.TakeTrimDue(clock));
}

TEST(Quarantine, TrimsTakeAtMostTwoPercentOfTheTime) {
  Quarantine q(64 * 100);
  Quarantine::ReleaseList out;
  for (int i = 0; i < 64; ++i)
    q.Put(ChunkAt(0x1000 + i * 0x100, 100), kT0, &out);
  uint64_t now = 0;
  auto clock = [&] { return now; };
  q.Put(ChunkAt(0x9000, 100), kT1, &out);
  ASSERT_TRUE(q.TakeTrimDue(clock));
  q.TrimDone(0, 1000); // the trim took 1 us
  q.Put(ChunkAt(0xa000, 100), kT1, &out);
  now = 1000 + 49 * 1000; // 49 us later: too soon
  EXPECT_FALSE(q.TakeTrimDue(clock));
  now = 1000 + 50 * 1000; // 50 us later: due (the bytes were kept)
  EXPECT_TRUE(q.TakeTrimDue(clock));
}

} // namespace
} // namespace ownsan
