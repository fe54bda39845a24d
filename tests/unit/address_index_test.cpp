//===- address_index_test.cpp --------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/address_index.h"
#include "core/internal_allocator.h"

#include "test_records.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>

namespace ownsan {
namespace {

using testing_records::Addr;
using testing_records::HugePagesAllowed;
using testing_records::Records;

TEST(AddressIndex, FindsExactAddressesOnly) {
  Records rs;
  AddressIndex ix;
  ObjectRecord *a = rs.At(0x10000), *b = rs.At(0x10008);
  ix.Put(b);
  ix.Put(a);
  EXPECT_EQ(ix.Find(Addr(0x10000)), a);
  EXPECT_EQ(ix.Find(Addr(0x10008)), b);
  EXPECT_EQ(ix.Find(Addr(0x10004)), nullptr);
  EXPECT_EQ(ix.Find(Addr(0x10000 + (1 << 14))), nullptr)
      << "same offset, next region";
  EXPECT_EQ(ix.size(), 2u);
}

TEST(AddressIndex, PutReplacesAndEraseChecksTheRecord) {
  Records rs;
  AddressIndex ix;
  ObjectRecord *old = rs.At(0x5000), *now = rs.At(0x5000);
  EXPECT_EQ(ix.Put(old), nullptr);
  EXPECT_EQ(ix.Put(now), old);
  EXPECT_EQ(ix.size(), 1u);
  EXPECT_FALSE(ix.Erase(old)) << "the entry is now's, not old's";
  EXPECT_EQ(ix.Find(Addr(0x5000)), now);
  EXPECT_TRUE(ix.Erase(now));
  EXPECT_EQ(ix.Find(Addr(0x5000)), nullptr);
  EXPECT_EQ(ix.size(), 0u);
}

// The sorted walk finds the same slots as one look-up each: across
// regions, at a region's first and last entries, past gaps of unindexed
// addresses, and nothing for an address not indexed (in an indexed region,
// before, between and after its entries, or in a region with none).
// Entries every 0x50 bytes over four regions from 0x200000, a quarter left
// out: what the ordered walks are checked against. Returns them in order.
static std::vector<ObjectRecord *> IndexFourRegions(Records &rs,
                                                    AddressIndex &ix) {
  std::vector<ObjectRecord *> indexed;
  for (uintptr_t a = 0x200000; a < 0x200000 + 4 * 0x4000; a += 0x50)
    if ((a / 0x50) % 4 != 0)
      indexed.push_back(rs.At(a));
  for (ObjectRecord *r : indexed)
    ix.Put(r);
  return indexed;
}

TEST(AddressIndex, SortedSlotWalkFindsWhatSlotFinds) {
  Records rs;
  AddressIndex ix;
  std::vector<ObjectRecord *> indexed = IndexFourRegions(rs, ix);
  std::vector<ObjectRecord *> batch;
  for (size_t i = 0; i < indexed.size(); i += 1 + i % 3)
    batch.push_back(indexed[i]);
  batch.push_back(indexed.back());
  for (uintptr_t a :
       {0x1ffff0, 0x200000, 0x204008, 0x20bff8, 0x20fff0, 0x300000})
    if (!ix.Find(Addr(a)))
      batch.push_back(rs.At(a)); // not indexed
  std::sort(batch.begin(), batch.end(),
            [](ObjectRecord *a, ObjectRecord *b) { return a->addr < b->addr; });
  batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
  std::vector<ObjectRecord **> want, got(batch.size(), nullptr);
  for (ObjectRecord *r : batch)
    want.push_back(ix.Slot(r->addr));
  size_t calls = 0;
  ix.ForEachSlotSorted(batch.data(), batch.size(),
                       [&](size_t k, ObjectRecord **slot) {
                         got[k] = slot;
                         ++calls;
                       });
  EXPECT_EQ(calls, batch.size());
  EXPECT_EQ(got, want);
  EXPECT_GE(std::count(want.begin(), want.end(), nullptr), 4);
}

TEST(AddressIndex, SortedRangeWalkFindsWhatRangeWalksFind) {
  Records rs;
  AddressIndex ix;
  IndexFourRegions(rs, ix);
  // Disjoint ranges in address order: neighbours in one region, empty
  // ones, one across a region's edge, one past the last region, and
  // runs of ranges in one region after a range that spans two.
  std::vector<AddressIndex::Range> ranges;
  for (uintptr_t a = 0x1fff00; a < 0x200000 + 5 * 0x4000;) {
    size_t size = 0x18 + (a / 0x18) % 0x1a0;
    ranges.push_back({Addr(a), size});
    a += size + (a / 0x30) % 3 * 0x40;
  }
  ranges.push_back({Addr(0x300000), 0x100});
  ASSERT_GT(ranges.size(), 100u);
  std::vector<std::pair<size_t, ObjectRecord *>> want, got;
  for (size_t k = 0; k < ranges.size(); ++k)
    ix.ForEachInRange(ranges[k].lo, ranges[k].size,
                      [&](ObjectRecord *e) { want.push_back({k, e}); });
  ix.ForEachInSortedRanges(
      ranges.data(), ranges.size(),
      [&](size_t k, ObjectRecord *e) { got.push_back({k, e}); });
  EXPECT_EQ(got, want);
  EXPECT_GT(want.size(), 300u);
  size_t across = 0;
  for (const AddressIndex::Range &r : ranges)
    across += reinterpret_cast<uintptr_t>(r.lo) >> 14 !=
              (reinterpret_cast<uintptr_t>(r.lo) + r.size - 1) >> 14;
  EXPECT_GE(across, 4u) << "ranges across a region's edge";
}

TEST(AddressIndex, SlotAfterFindsWhatSlotFinds) {
  Records rs;
  AddressIndex ix;
  IndexFourRegions(rs, ix);
  // A walk as the history's: runs going up (neighbours, gaps, addresses
  // not indexed), then a step down or into another region, and back.
  std::vector<uintptr_t> walk;
  for (uintptr_t start : {0x200000, 0x200a00, 0x2003c0, 0x204010, 0x1ffff0,
                          0x20bf00, 0x208000, 0x20c000, 0x300000, 0x2003c0})
    for (uintptr_t a = start, k = 0; k < 40; ++k, a += 0x50 * (1 + k % 3))
      walk.push_back(a + (k % 5 == 4 ? 8 : 0));
  AddressIndex::Cursor cursor;
  size_t found = 0;
  for (uintptr_t a : walk) {
    ObjectRecord **want = ix.Slot(Addr(a));
    EXPECT_EQ(ix.SlotAfter(Addr(a), &cursor), want) << std::hex << a;
    found += want != nullptr;
  }
  EXPECT_GT(found, walk.size() / 5);
  EXPECT_LT(found, walk.size());
}

TEST(AddressIndex, SlotIsTheEntryInPlace) {
  Records rs;
  AddressIndex ix;
  ObjectRecord *a = rs.At(0x5000), *b = rs.At(0x5040), *c = rs.At(0x5000);
  EXPECT_EQ(ix.Slot(Addr(0x5000)), nullptr) << "empty index";
  ix.Put(a);
  ix.Put(b);
  EXPECT_EQ(ix.Slot(Addr(0x5020)), nullptr) << "between two entries";
  EXPECT_EQ(ix.Slot(Addr(0x5000 + (1 << 14))), nullptr) << "next region";
  ObjectRecord **slot = ix.Slot(Addr(0x5000));
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(*slot, a);
  *slot = c;
  EXPECT_EQ(ix.Find(Addr(0x5000)), c);
  EXPECT_EQ(ix.Find(Addr(0x5040)), b) << "its neighbour is untouched";
  EXPECT_EQ(ix.size(), 2u);
}

TEST(AddressIndex, EmptiedRegionsAreRefilledAndReplaced) {
  // One emptied region is kept (the spare); refilling it must take it out
  // of that role, or emptying another region would drop its new entries.
  Records rs;
  AddressIndex ix;
  constexpr uintptr_t kRegion = uintptr_t{1} << 14;
  ObjectRecord *a = rs.At(0x40000), *b = rs.At(0x40010),
               *c = rs.At(0x40000 + kRegion), *d = rs.At(0x40000 + 5 * kRegion);
  ix.Put(a);
  EXPECT_TRUE(ix.Erase(a)); // its region is empty now
  ix.Put(b);                // and gets an entry again
  ix.Put(c);
  EXPECT_TRUE(ix.Erase(c)); // another region empties
  EXPECT_EQ(ix.Find(Addr(0x40010)), b);
  EXPECT_TRUE(ix.AnyInRange(Addr(0x40000), kRegion));
  ix.Put(d);
  EXPECT_TRUE(ix.Erase(d));
  EXPECT_TRUE(ix.Erase(b)); // b's region empties after c's and d's
  ix.Put(c);
  EXPECT_EQ(ix.Find(Addr(0x40000 + kRegion)), c);
  EXPECT_EQ(ix.Find(Addr(0x40010)), nullptr);
  EXPECT_EQ(ix.size(), 1u);
  std::vector<const void *> all;
  ix.ForEach([&](ObjectRecord *r) { all.push_back(r->addr); });
  EXPECT_EQ(all, (std::vector<const void *>{Addr(0x40000 + kRegion)}));
}

TEST(AddressIndex, RangesAcrossRegions) {
  Records rs;
  AddressIndex ix;
  // Around the 16 KiB region boundary at 0x8000.
  for (uintptr_t a : {0x7ff0, 0x7ff8, 0x8000, 0x8010, 0xc000})
    ix.Put(rs.At(a));
  EXPECT_TRUE(ix.AnyInRange(Addr(0x7ff8), 0x10));
  EXPECT_FALSE(ix.AnyInRange(Addr(0x8001), 0xf)) << "0x8010 is one past";
  EXPECT_FALSE(ix.AnyInRange(Addr(0x8011), 0x3fef)) << "0xc000 is one past";
  std::vector<const void *> seen;
  ix.ForEachInRange(Addr(0x7ff8), 0x19,
                    [&](ObjectRecord *r) { seen.push_back(r->addr); });
  EXPECT_EQ(seen, (std::vector<const void *>{Addr(0x7ff8), Addr(0x8000),
                                             Addr(0x8010)}));
  // Entries changed in place: the same three, nothing else; no size change.
  ObjectRecord *replacement = rs.At(0x1);
  std::vector<const void *> updated;
  ix.UpdateRange(Addr(0x7ff8), 0x19, [&](ObjectRecord *&e) {
    updated.push_back(e->addr);
    e = replacement;
  });
  EXPECT_EQ(updated, seen);
  EXPECT_EQ(ix.size(), 5u);
  EXPECT_EQ(ix.Find(Addr(0x8000)), replacement);
  EXPECT_EQ(ix.Find(Addr(0x8010)), replacement);
  EXPECT_NE(ix.Find(Addr(0x7ff0)), replacement);
  EXPECT_NE(ix.Find(Addr(0xc000)), replacement);
  EXPECT_TRUE(ix.AnyInRange(Addr(0x7ff0), 0x20,
                            [&](ObjectRecord *e) { return e == replacement; }));
  EXPECT_FALSE(ix.AnyInRange(Addr(0x7ff0), 0x8, [&](ObjectRecord *e) {
    return e == replacement;
  })) << "0x7ff0 kept its record";
  // PutAt indexes at the given address without reading the record.
  EXPECT_EQ(ix.PutAt(Addr(0x9000), replacement), nullptr);
  EXPECT_EQ(ix.Find(Addr(0x9000)), replacement);
}

using Model = std::map<uintptr_t, ObjectRecord *>;

// Put() of a new record at `a`: returns what the model had there.
void PutAgreesWithModel(AddressIndex &ix, Records &rs, Model &model,
                        uintptr_t a) {
  ObjectRecord *r = rs.At(a);
  auto it = model.find(a);
  EXPECT_EQ(ix.Put(r), it == model.end() ? nullptr : it->second);
  model[a] = r;
}

// The range [a, a + size) (size 0: one byte) holds what the model holds.
void RangeAgreesWithModel(const AddressIndex &ix, const Model &model,
                          uintptr_t a, size_t size) {
  std::vector<ObjectRecord *> got, want;
  ix.ForEachInRange(Addr(a), size, [&](ObjectRecord *r) { got.push_back(r); });
  for (auto it = model.lower_bound(a);
       it != model.end() && it->first - a < (size ? size : 1); ++it)
    want.push_back(it->second);
  EXPECT_EQ(got, want);
  EXPECT_EQ(ix.AnyInRange(Addr(a), size), !want.empty());
}

// Random operations against std::map as the model.
TEST(AddressIndex, AgreesWithAnOrderedMap) {
  Records rs;
  AddressIndex ix;
  std::map<uintptr_t, ObjectRecord *> model;
  std::mt19937_64 rng(42);
  for (int step = 0; step < 50000; ++step) {
    uintptr_t a = 0x100000 + (rng() % 4096) * 8;
    switch (rng() % 4) {
    case 0:
    case 1:
      PutAgreesWithModel(ix, rs, model, a);
      break;
    case 2: {
      auto it = model.find(a);
      if (it != model.end() && rng() % 2) {
        EXPECT_TRUE(ix.Erase(it->second));
        EXPECT_FALSE(ix.Erase(it->second)) << "erased already";
      } else if (rng() % 8 == 0) {
        // Each entry in a range swapped for a new record, in place.
        size_t size = rng() % 256;
        std::vector<ObjectRecord *> got, want, fresh;
        ix.UpdateRange(Addr(a), size, [&](ObjectRecord *&e) {
          got.push_back(e);
          fresh.push_back(rs.At(reinterpret_cast<uintptr_t>(e->addr)));
          e = fresh.back();
        });
        size_t k = 0;
        for (auto m = model.lower_bound(a);
             m != model.end() && m->first < a + (size ? size : 1); ++m) {
          want.push_back(m->second);
          if (k < fresh.size())
            m->second = fresh[k++];
        }
        EXPECT_EQ(got, want);
        break;
      } else {
        ix.EraseAt(Addr(a));
      }
      model.erase(a);
      break;
    }
    case 3: {
      RangeAgreesWithModel(ix, model, a, rng() % 512);
      break;
    }
    }
    ASSERT_EQ(ix.size(), model.size());
  }
  for (const auto &[a, r] : model)
    EXPECT_EQ(ix.Find(Addr(a)), r);
}

// The region table's edges: regions in different leaves (1 GiB apart),
// next to the top of the table (2^47) and above it (the overflow map), and
// ranges across them, against std::map as the model.
TEST(AddressIndex, AgreesWithAnOrderedMapAcrossTheTable) {
  Records rs;
  AddressIndex ix;
  std::map<uintptr_t, ObjectRecord *> model;
  constexpr uintptr_t kGiB = uintptr_t{1} << 30, kTop = uintptr_t{1} << 47;
  const uintptr_t bases[] = {0x10000, 3 * kGiB - 0x2000, kTop - 0x6000,
                             kTop,    kTop + 5 * kGiB,   uintptr_t{1} << 56};
  std::mt19937_64 rng(3);
  auto pick = [&] { return bases[rng() % 6] + (rng() % 2048) * 8; };
  for (int step = 0; step < 6000; ++step) {
    uintptr_t a = pick();
    switch (rng() % 4) {
    case 0:
    case 1:
      PutAgreesWithModel(ix, rs, model, a);
      break;
    case 2: {
      auto it = model.find(a);
      ObjectRecord **slot = ix.Slot(Addr(a));
      EXPECT_EQ(slot ? *slot : nullptr,
                it == model.end() ? nullptr : it->second);
      ix.EraseAt(Addr(a));
      model.erase(a);
      break;
    }
    case 3: {
      // Up to the next base, or (one in eight) from a to the very top.
      uintptr_t b = pick();
      if (b < a)
        std::swap(a, b);
      RangeAgreesWithModel(ix, model, a, rng() % 8 == 0 ? ~a : b - a + 1);
      break;
    }
    }
    ASSERT_EQ(ix.size(), model.size());
  }
  size_t n = 0;
  ix.ForEach([&](ObjectRecord *r) {
    ++n;
    EXPECT_EQ(model[reinterpret_cast<uintptr_t>(r->addr)], r);
  });
  EXPECT_EQ(n, model.size());
}

// The first two leaves (1 GiB of address space each) are found without the
// top-level table, which is mapped only for a third: a short program's
// objects, in its heap and its mappings, fault in no page of it. Records in
// every leaf are found, alone and by ranges across the leaves.
TEST(AddressIndex, TwoLeavesNeedNoTopTable) {
  Records rs;
  AddressIndex ix;
  std::map<uintptr_t, ObjectRecord *> model;
  constexpr uintptr_t kGiB = uintptr_t{1} << 30;
  const uintptr_t heap = 0x55e0'0000'0000, libs = 0x7f30'0000'0000,
                  third = 0x7f30'0000'0000 + 3 * kGiB;
  PutAgreesWithModel(ix, rs, model, heap + 0x40);
  PutAgreesWithModel(ix, rs, model, libs + 0x80);
  PutAgreesWithModel(ix, rs, model, heap + kGiB - 0x40); // (same leaf)
  EXPECT_FALSE(ix.MapsTopTable());
  EXPECT_EQ(ix.Find(Addr(heap + 0x40)), model[heap + 0x40]);
  EXPECT_EQ(ix.Find(Addr(libs + 0x80)), model[libs + 0x80]);
  EXPECT_EQ(ix.Find(Addr(libs + kGiB + 0x80)), nullptr);
  PutAgreesWithModel(ix, rs, model, third + 0x100);
  EXPECT_TRUE(ix.MapsTopTable());
  for (auto [a, r] : model)
    EXPECT_EQ(ix.Find(Addr(a)), r) << std::hex << a;
  RangeAgreesWithModel(ix, model, heap, third + kGiB - heap);
  RangeAgreesWithModel(ix, model, libs, 4 * kGiB);
  ix.EraseAt(Addr(libs + 0x80));
  model.erase(libs + 0x80);
  EXPECT_EQ(ix.Find(Addr(libs + 0x80)), nullptr);
  PutAgreesWithModel(ix, rs, model, libs + 0x200);
  RangeAgreesWithModel(ix, model, heap, third + kGiB - heap);
  EXPECT_EQ(ix.size(), model.size());
}

// Batches in address order (a module's values dying together) against
// the same operations on an ordered map: erases of present and absent
// records, puts that append, fall between entries and replace entries.
TEST(AddressIndex, SortedBatchesAgreeWithAnOrderedMap) {
  Records rs;
  AddressIndex ix;
  std::map<uintptr_t, ObjectRecord *> model;
  std::mt19937_64 rng(7);
  for (int step = 0; step < 3000; ++step) {
    // A batch of distinct addresses within a few regions, sorted.
    std::map<uintptr_t, bool> picked;
    size_t n = 1 + rng() % 40;
    uintptr_t base = 0x100000 + (rng() % 8) * 0x4000;
    while (picked.size() < n)
      picked[base + (rng() % 3000) * 8] = true;
    std::vector<ObjectRecord *> batch;
    if (rng() % 2) {
      for (const auto &[a, unused] : picked)
        batch.push_back(rs.At(a));
      std::vector<ObjectRecord *> replaced, want;
      ix.PutSorted(batch.data(), batch.size(), 0,
                   [&](ObjectRecord *old) { replaced.push_back(old); });
      for (ObjectRecord *r : batch) {
        auto it = model.find(reinterpret_cast<uintptr_t>(r->addr));
        want.push_back(it == model.end() ? nullptr : it->second);
        model[reinterpret_cast<uintptr_t>(r->addr)] = r;
      }
      std::sort(replaced.begin(), replaced.end());
      std::sort(want.begin(), want.end());
      ASSERT_EQ(replaced, want);
    } else {
      // Erase: the indexed record where there is one (sometimes a stale
      // record at the same address, which must not erase it), else a new
      // record that is not indexed.
      for (const auto &[a, unused] : picked) {
        auto it = model.find(a);
        bool stale = rng() % 5 == 0;
        batch.push_back(it != model.end() && !stale ? it->second : rs.At(a));
      }
      for (ObjectRecord *r : batch)
        ix.Erase(r);
      for (ObjectRecord *r : batch) {
        auto it = model.find(reinterpret_cast<uintptr_t>(r->addr));
        if (it != model.end() && it->second == r)
          model.erase(it);
      }
    }
    ASSERT_EQ(ix.size(), model.size());
  }
  std::vector<ObjectRecord *> all, want;
  ix.ForEach([&](ObjectRecord *r) { all.push_back(r); });
  for (const auto &[a, r] : model) {
    want.push_back(r);
    ASSERT_EQ(ix.Find(Addr(a)), r);
  }
  std::sort(all.begin(), all.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(all, want);
  // Every region stays sorted: a range query sees the model's order.
  std::vector<ObjectRecord *> in_order;
  ix.ForEachInRange(Addr(0x100000), 10 * 0x4000,
                    [&](ObjectRecord *r) { in_order.push_back(r); });
  std::vector<ObjectRecord *> model_order;
  for (const auto &[a, r] : model)
    model_order.push_back(r);
  EXPECT_EQ(in_order, model_order);
}

TEST(InternalAllocator, BlocksAreDistinctWritableAndReused) {
  std::vector<std::pair<char *, size_t>> blocks;
  for (size_t size : {1, 16, 17, 100, 128, 4096, 65536, 65537, 1 << 20}) {
    for (int k = 0; k < 3; ++k) {
      char *p = static_cast<char *>(InternalAllocate(size));
      ASSERT_NE(p, nullptr);
      std::memset(p, k + 1, size);
      blocks.push_back({p, size});
    }
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    // (8 bytes: small classes are every multiple of 8, so that names are
    // kept at their size.)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks[i].first) % 8, 0u);
    for (size_t j = i + 1; j < blocks.size(); ++j) // no overlap
      EXPECT_TRUE(blocks[i].first + blocks[i].second <= blocks[j].first ||
                  blocks[j].first + blocks[j].second <= blocks[i].first);
  }
  char *freed = blocks[3].first; // a 16-byte block
  InternalDeallocate(freed, 16);
  EXPECT_EQ(InternalAllocate(9), freed) << "its size class's free list";
  std::vector<int, InternalAllocator<int>> v;
  for (int i = 0; i < 100000; ++i)
    v.push_back(i);
  EXPECT_EQ(v[99999], 99999);
}

// The flags of the mapping that holds `p`, from /proc/self/smaps ("" if
// none is found).
std::string VmFlagsOf(const void *p) {
  std::FILE *f = std::fopen("/proc/self/smaps", "r");
  if (!f)
    return "";
  char line[512];
  bool inside = false;
  std::string flags;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
      inside = lo <= a && a < hi;
    } else if (inside && std::strncmp(line, "VmFlags:", 8) == 0) {
      flags = line + 8;
      break;
    }
  }
  std::fclose(f);
  return flags;
}

TEST(InternalAllocator, LargeBlocksAreKeptForTheNextOfTheirSize) {
  // (A vector that doubles past 64 KiB, an eviction's batch: mapping and
  // faulting them in again on each use cost thousands of page faults.)
  constexpr size_t kBytes = size_t{3} << 20;
  char *a = static_cast<char *>(InternalAllocate(kBytes));
  std::memset(a, 1, kBytes);
  InternalDeallocate(a, kBytes);
  char *b = static_cast<char *>(InternalAllocate(kBytes));
  EXPECT_EQ(b, a) << "the freed block, not a new mapping";
  EXPECT_EQ(b[kBytes - 1], 1) << "still mapped, its pages still there";
  // Blocks beyond what the cache keeps (32 MiB) go back to the system.
  std::vector<char *> many;
  for (int i = 0; i < 20; ++i)
    many.push_back(static_cast<char *>(InternalAllocate(kBytes)));
  for (char *p : many)
    InternalDeallocate(p, kBytes);
  size_t kept = 0;
  for (char *p : many)
    kept += !VmFlagsOf(p).empty();
  EXPECT_LE(kept * kBytes, size_t{32} << 20);
  EXPECT_GE(kept, 1u);
  InternalDeallocate(b, kBytes);
}

TEST(InternalAllocator, ClassesShareTheirFirstPages) {
  // A short program's first blocks of many classes lie side by side in one
  // region (each class's own first slab was a page fault of its own at
  // every start). Three classes no other code here uses:
  char *a = static_cast<char *>(InternalAllocate(232));
  char *b = static_cast<char *>(InternalAllocate(240));
  char *c = static_cast<char *>(InternalAllocate(248));
  EXPECT_EQ(b - a, 232) << "the second class's first block follows the first's";
  EXPECT_EQ(c - b, 240);
  InternalDeallocate(a, 232);
  InternalDeallocate(b, 240);
  InternalDeallocate(c, 248);
}

TEST(InternalAllocator, AGrowingClassGetsHugePageSlabsOnlyWhereAllowed) {
  // A class that has filled one 256 KiB slab takes 2 MiB ones; advised as
  // transparent huge pages (one fault each, where 512 small pages took one
  // each) only while the runtime allows them (huge_pages_for_metadata, off
  // by default). The first slab stays small for short programs.
  constexpr size_t kBlock = 40960; // a class of its own in this test binary
  std::vector<char *> blocks;
  ASSERT_FALSE(InternalHugePagesAllowed()) << "the default";
  for (int i = 0; i < 36; ++i) // the small slab's four, a 2 MiB slab's 32
    blocks.push_back(static_cast<char *>(InternalAllocate(kBlock)));
  EXPECT_EQ(VmFlagsOf(blocks.front()).find(" hg"), std::string::npos)
      << "the first slab: small pages";
  EXPECT_EQ(VmFlagsOf(blocks[4]).find(" hg"), std::string::npos)
      << "a 2 MiB slab, huge pages not allowed: " << VmFlagsOf(blocks[4]);
  EXPECT_EQ(VmFlagsOf(blocks.back()).find(" hg"), std::string::npos)
      << VmFlagsOf(blocks.back());
  {
    HugePagesAllowed allowed;
    for (int i = 0; i < 32; ++i) // the next 2 MiB slab
      blocks.push_back(static_cast<char *>(InternalAllocate(kBlock)));
  }
  EXPECT_NE(VmFlagsOf(blocks.back()).find(" hg"), std::string::npos)
      << "allowed: " << VmFlagsOf(blocks.back());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks.back()) >> 21,
            reinterpret_cast<uintptr_t>(blocks[blocks.size() - 2]) >> 21)
      << "carved from one 2 MiB-aligned slab";
  for (char *p : blocks)
    InternalDeallocate(p, kBlock);
}

} // namespace
} // namespace ownsan
