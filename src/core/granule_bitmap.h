//===- granule_bitmap.h - A clearable bit per address granule ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The set of live watched values, read by operator delete on every release
// of a block ("may this block hold one?"). An AddressFilter answers that
// from hashed bits that are never cleared: in a long-running process the
// bits of every value that ever lived stay set, its summary fills up, and
// each release loads a cold word of a 2 MiB set (a JIT server's compiler
// frees tens of thousands of blocks a module). Here a value's bit is
// cleared when it dies, so the answer is exact and, with few values alive,
// most releases stop at a summary that stays in the cache.
//
// Direct-mapped, not hashed: granule g of the address space has its own
// bit, so no two addresses share one and clearing a bit forgets exactly one
// address. (Two live objects of at least a granule's size never start in
// the same granule.) The 47-bit address space is cut into chunks of 1 GiB,
// each mapped on its first Add: a bit per granule, a count of set bits per
// region of 4 KiB of addresses, and a summary bit per region that is set
// while its count is not zero. Readers test the summary, then the words.
// (Regions of a page, not 64 KiB: a JIT compiles a module's values with
// temporaries allocated between them, whose releases then passed the
// summary of their region and missed on its words.)
// Addresses above 2^47 (five-level paging) are not kept: once one is added
// to a set, every query of that set there answers "maybe".
//
// Several sets may share one bitmap (kSets): each granule has a bit per
// set, and a region's count and summary bit are those of all its sets.
// operator delete asks two questions of every block ("may it hold a live
// value? a watched address?"): one chunk look-up and one summary bit
// answer both where neither set has an address near it, and each set's
// word there where one has. (Each set's words are an array of their own:
// with the two sets' words side by side, the live values' bits took twice
// the pages, 3 B more for each live object.)
//
// Add and Remove are serialized by the caller (the runtime's lock);
// readers take none. Add sets the word's bit before the summary's (release
// order), so a reader that sees the summary sees the word; an address added
// before a reader looked is seen by it. Remove is called once per Add, when
// the object at the address is known dead: a reader that still sees the bit
// looks the address up under the lock and finds it dead. A set whose
// granules may hold several addresses clears with ForgetUnheld instead,
// whose caller tells which granules still hold one.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_GRANULE_BITMAP_H
#define OWNSAN_CORE_GRANULE_BITMAP_H

#include "core/internal_allocator.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ownsan {

template <unsigned kGranuleShift, unsigned kSets = 1> class GranuleBitmap {
  static_assert(kGranuleShift >= 3 && kGranuleShift <= 10);
  static_assert(kSets >= 1 && kSets <= 8);

public:
  static constexpr size_t kGranuleBytes = size_t{1} << kGranuleShift;
  /// A set of sets, bit i for set i (OverlappingSets).
  using SetMask = unsigned;
  static constexpr SetMask kAllSets = (1u << kSets) - 1;

  GranuleBitmap() = default;
  ~GranuleBitmap() {
    std::atomic<Chunk *> *chunks = chunks_.load(std::memory_order_relaxed);
    if (!chunks)
      return;
    for (size_t i = 0; i < kChunks; ++i)
      if (Chunk *c = chunks[i].load(std::memory_order_relaxed))
        InternalUnmapBlock(c, sizeof(Chunk));
    InternalUnmapBlock(chunks, kChunks * sizeof(chunks[0]));
  }
  GranuleBitmap(const GranuleBitmap &) = delete;
  GranuleBitmap &operator=(const GranuleBitmap &) = delete;

  /// Adds `p` to `set` (serialized with Add and Remove by the caller).
  void Add(const void *p, unsigned set = 0) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a >> kAddressBits) {
      high_added_.fetch_or(1u << set, std::memory_order_release);
      return;
    }
    Chunk *c = ChunkFor(a, /*create=*/true);
    uintptr_t g = Granule(a);
    std::atomic<uint64_t> &word = c->words[Word(g, set)];
    uint64_t bit = uint64_t{1} << (g & 63);
    uint64_t old = word.load(std::memory_order_relaxed);
    if (old & bit)
      return;
    word.store(old | bit, std::memory_order_release);
    uintptr_t region = g >> kRegionGranulesLog2;
    if (c->counts[region]++ == 0) {
      std::atomic<uint64_t> &s = c->summary[region >> 6];
      s.store(s.load(std::memory_order_relaxed) | uint64_t{1} << (region & 63),
              std::memory_order_release);
    }
  }

  /// Forgets `p` in `set` (serialized with Add and Remove by the caller).
  void Remove(const void *p, unsigned set = 0) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a >> kAddressBits)
      return; // (not kept: stays "maybe")
    Chunk *c = ChunkFor(a, /*create=*/false);
    if (!c)
      return;
    uintptr_t g = Granule(a);
    std::atomic<uint64_t> &word = c->words[Word(g, set)];
    uint64_t bit = uint64_t{1} << (g & 63);
    uint64_t old = word.load(std::memory_order_relaxed);
    if (!(old & bit))
      return;
    word.store(old & ~bit, std::memory_order_release);
    uintptr_t region = g >> kRegionGranulesLog2;
    if (--c->counts[region] == 0) {
      std::atomic<uint64_t> &s = c->summary[region >> 6];
      s.store(s.load(std::memory_order_relaxed) &
                  ~(uint64_t{1} << (region & 63)),
              std::memory_order_release);
    }
  }

  /// Clears the bit of each granule of [lo, lo + size) for which
  /// held(granule's first address) is false (serialized with Add and
  /// Remove). For sets whose granules may hold several addresses, where
  /// Remove cannot tell whether the last one went: the caller's predicate
  /// looks. Each word is stored once, so a reader never sees the bit of a
  /// held granule clear.
  template <typename Held>
  void ForgetUnheld(const void *lo, size_t size, Held held, unsigned set = 0) {
    Forget(lo, size, held, /*ask_covered=*/true, set);
  }

  /// ForgetUnheld() for a range the caller has just emptied: the granules
  /// it covers whole are cleared unasked; held() decides only for the two
  /// it may share with its neighbours.
  template <typename Held>
  void ForgetEmptied(const void *lo, size_t size, Held held_by_neighbour,
                     unsigned set = 0) {
    Forget(lo, size, held_by_neighbour, /*ask_covered=*/false, set);
  }

  bool MaybeContains(const void *p, unsigned set = 0) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a >> kAddressBits)
      return (high_added_.load(std::memory_order_acquire) >> set) & 1;
    const Chunk *c = ChunkFor(a);
    if (!c)
      return false;
    uintptr_t g = Granule(a);
    return (c->words[Word(g, set)].load(std::memory_order_acquire) >>
            (g & 63)) &
           1;
  }

  /// True if a granule of [lo, lo + size) holds an address of `set`.
  bool MaybeOverlaps(const void *lo, size_t size, unsigned set = 0) const {
    return OverlappingSets(lo, size, 1u << set) != 0;
  }

  /// The sets of `wanted` of which a granule of [lo, lo + size) holds an
  /// address. (Inline: operator new and delete ask it of every block.)
  [[gnu::always_inline]] SetMask OverlappingSets(const void *lo, size_t size,
                                                 SetMask wanted) const {
    uintptr_t first = reinterpret_cast<uintptr_t>(lo);
    uintptr_t last = first + (size ? size - 1 : 0);
    if (__builtin_expect(!(first >> kAddressBits) && last >= first, 1)) {
      // Case: a block within one region (nearly all): its summary bit
      // first, the same for every set.
      if (first >> kRegionShift == last >> kRegionShift) {
        const Chunk *c = ChunkFor(first);
        if (!c)
          return 0;
        uintptr_t g = Granule(first);
        if (!Marked(c, g >> kRegionGranulesLog2))
          return 0;
        // Case: within one word's 64 granules (most): that word of each
        // set.
        if (first >> (kGranuleShift + 6) == last >> (kGranuleShift + 6)) {
          uint64_t bits = Bits(g & 63, (last >> kGranuleShift) & 63);
          SetMask found = 0;
          for (unsigned set = 0; set < kSets; ++set)
            if ((wanted >> set) & 1 &&
                c->words[Word(g, set)].load(std::memory_order_acquire) & bits)
              found |= 1u << set;
          return found;
        }
        return RegionSets(c, g, Granule(last), wanted);
      }
    }
    return OverlapsAcross(first, last, wanted);
  }

  /// Whether the summary marks the region of `p` (for tests: a region whose
  /// addresses were all removed is skipped again).
  bool RegionMarked(const void *p) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const Chunk *c = a >> kAddressBits ? nullptr : ChunkFor(a);
    return c && Marked(c, Granule(a) >> kRegionGranulesLog2);
  }

private:
  /// OverlappingSets() of a block across regions or chunks, or above the
  /// kept address space (`last` may have wrapped around).
  __attribute__((noinline)) SetMask OverlapsAcross(uintptr_t first,
                                                   uintptr_t last,
                                                   SetMask wanted) const {
    SetMask found = 0;
    if (last < first || last >> kAddressBits) {
      found = high_added_.load(std::memory_order_acquire) & wanted;
      if (first >> kAddressBits)
        return found;
      last = (uintptr_t{1} << kAddressBits) - 1;
    }
    for (uintptr_t a = first; a <= last && found != wanted;) {
      // This chunk's part of the range, region by region; a word of the
      // summary answers for 64 regions at once.
      uintptr_t chunk_end = (a | ((uintptr_t{1} << kChunkShift) - 1));
      uintptr_t end = std::min(last, chunk_end);
      if (const Chunk *c = ChunkFor(a)) {
        uintptr_t r = Granule(a) >> kRegionGranulesLog2,
                  r_last = Granule(end) >> kRegionGranulesLog2;
        while (r <= r_last && found != wanted) {
          uint64_t marked =
              c->summary[r >> 6].load(std::memory_order_acquire) &
              Bits(r & 63, (r >> 6) == (r_last >> 6) ? r_last & 63 : 63);
          if (!marked) {
            r = (r | 63) + 1;
            continue;
          }
          r = (r & ~uintptr_t{63}) + __builtin_ctzll(marked);
          // Region r's part of the range.
          uintptr_t from = std::max(Granule(a), r << kRegionGranulesLog2);
          uintptr_t to =
              std::min(Granule(end), ((r + 1) << kRegionGranulesLog2) - 1);
          found |= RegionSets(c, from, to, wanted & ~found);
          ++r;
        }
      }
      if (end == last)
        break;
      a = end + 1;
    }
    return found;
  }

  static constexpr unsigned kAddressBits = 47;
  static constexpr unsigned kChunkShift = 30; ///< 1 GiB of addresses
  static constexpr size_t kChunks = size_t{1} << (kAddressBits - kChunkShift);
  static constexpr unsigned kRegionShift = 12; ///< 4 KiB of addresses
  static constexpr unsigned kRegionGranulesLog2 = kRegionShift - kGranuleShift;
  static constexpr size_t kGranulesPerChunk = size_t{1}
                                              << (kChunkShift - kGranuleShift);
  static constexpr size_t kRegionsPerChunk = size_t{1}
                                             << (kChunkShift - kRegionShift);

  struct Chunk {
    // (Mapped, not written, until used: a short program touches a page or
    // two of each array.)
    std::atomic<uint64_t> summary[kRegionsPerChunk / 64];
    uint16_t counts[kRegionsPerChunk]; ///< set bits per region (Add/Remove)
    /// Set 0's words, then set 1's... (Word()).
    std::atomic<uint64_t> words[kGranulesPerChunk / 64 * kSets];
  };
  static_assert((size_t{1} << kRegionGranulesLog2) <= UINT16_MAX);

  /// The index in Chunk::words of `set`'s word for granule g.
  static uintptr_t Word(uintptr_t g, unsigned set) {
    return set * (kGranulesPerChunk / 64) + (g >> 6);
  }

  /// The granule's index within its chunk.
  static uintptr_t Granule(uintptr_t a) {
    return (a & ((uintptr_t{1} << kChunkShift) - 1)) >> kGranuleShift;
  }

  const Chunk *ChunkFor(uintptr_t a) const {
    const std::atomic<Chunk *> *chunks =
        chunks_.load(std::memory_order_acquire);
    return chunks ? chunks[a >> kChunkShift].load(std::memory_order_acquire)
                  : nullptr;
  }

  Chunk *ChunkFor(uintptr_t a, bool create) {
    // (The writer's own loads need no order: Add and Remove are serialized.)
    std::atomic<Chunk *> *chunks = chunks_.load(std::memory_order_relaxed);
    if (!chunks) {
      if (!create)
        return nullptr;
      // Mapped, so the table's untouched pages cost nothing.
      chunks = static_cast<std::atomic<Chunk *> *>(
          InternalMapBlock(kChunks * sizeof(chunks[0]), false));
      chunks_.store(chunks, std::memory_order_release);
    }
    std::atomic<Chunk *> &slot = chunks[a >> kChunkShift];
    Chunk *c = slot.load(std::memory_order_relaxed);
    if (!c && create) {
      c = static_cast<Chunk *>(InternalMapBlock(sizeof(Chunk), false));
      slot.store(c, std::memory_order_release);
    }
    return c;
  }

  /// Bits from..to (at most 63) of a word.
  static uint64_t Bits(uintptr_t from, uintptr_t to) {
    return (~uint64_t{0} >> (63 - to)) & (~uint64_t{0} << from);
  }

  /// Whether the summary marks `region` of `c`.
  static bool Marked(const Chunk *c, uintptr_t region) {
    return (c->summary[region >> 6].load(std::memory_order_acquire) >>
            (region & 63)) &
           1;
  }

  /// The sets of `wanted` with a bit in granules [from, to] of `c`, all in
  /// one region, which the summary marks.
  static SetMask RegionSets(const Chunk *c, uintptr_t from, uintptr_t to,
                            SetMask wanted) {
    SetMask found = 0;
    for (uintptr_t w = from >> 6; w <= to >> 6 && found != wanted; ++w) {
      uint64_t bits =
          Bits(w == from >> 6 ? from & 63 : 0, w == to >> 6 ? to & 63 : 63);
      for (unsigned set = 0; set < kSets; ++set)
        if ((wanted >> set) & 1 &&
            c->words[Word(w << 6, set)].load(std::memory_order_acquire) & bits)
          found |= 1u << set;
    }
    return found;
  }

  /// ForgetUnheld() and ForgetEmptied(): see there.
  template <typename Held>
  void Forget(const void *lo, size_t size, Held held, bool ask_covered,
              unsigned set) {
    uintptr_t first = reinterpret_cast<uintptr_t>(lo);
    uintptr_t last = first + (size ? size - 1 : 0);
    if (last < first || last >> kAddressBits)
      last = (uintptr_t{1} << kAddressBits) - 1; // (high ones stay "maybe")
    static_assert(kGranuleShift <= 6, "a word of granules within a region");
    constexpr uintptr_t kGranule = uintptr_t{1} << kGranuleShift,
                        kWordBytes = kGranule * 64;
    for (uintptr_t a = first & ~(kWordBytes - 1); a <= last;) {
      Chunk *c = ChunkFor(a, /*create=*/false);
      if (!c) {
        a = (a | ((uintptr_t{1} << kChunkShift) - 1)) + 1;
        continue;
      }
      uintptr_t g = Granule(a), region = g >> kRegionGranulesLog2;
      if (!Marked(c, region)) {
        a = (a | ((uintptr_t{1} << kRegionShift) - 1)) + 1;
        continue;
      }
      std::atomic<uint64_t> &word = c->words[Word(g, set)];
      uint64_t old = word.load(std::memory_order_relaxed), kept = old;
      for (uint64_t bits = old; bits; bits &= bits - 1) {
        unsigned bit = __builtin_ctzll(bits);
        uintptr_t at = a + bit * kGranule;
        if (at + kGranule - 1 < first || at > last)
          continue; // (outside the range)
        bool covered = at >= first && at + kGranule - 1 <= last;
        if ((covered && !ask_covered) || !held(at))
          kept &= ~(uint64_t{1} << bit);
      }
      a += kWordBytes;
      if (kept == old)
        continue;
      word.store(kept, std::memory_order_release);
      c->counts[region] -= __builtin_popcountll(old ^ kept);
      if (c->counts[region] == 0) {
        std::atomic<uint64_t> &s = c->summary[region >> 6];
        s.store(s.load(std::memory_order_relaxed) &
                    ~(uint64_t{1} << (region & 63)),
                std::memory_order_release);
      }
    }
  }

  /// The chunk table (mapped by the first Add) and its chunks.
  std::atomic<std::atomic<Chunk *> *> chunks_{nullptr};
  /// The sets an address above the kept space was added to.
  std::atomic<SetMask> high_added_{0};
};

} // namespace ownsan

#endif // OWNSAN_CORE_GRANULE_BITMAP_H
