//===- address_filter.h - Lock-free "maybe tracked" bit sets ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The hot paths (every handle argument of every call, every allocation) must
// not take a lock to learn that an address is *not* interesting. An
// AddressFilter is a fixed bit set indexed by a hash of the address (or of
// its granule): a clear bit proves absence, a set bit means "look it up under
// the lock". Bits are only ever set, so a reader never misses an address
// that was added before it looked (the adder sets the bit before it
// publishes the record, with release order). Adders are serialized by the
// caller.
//
// A summary (one bit per 4 KiB page of the set, 64 bytes for the largest)
// lets MaybeOverlaps, on every allocation and free, skip a page of the set
// that holds no bit: a sparse set (a short program, start-up, exit's
// static destructors) is then not paged in, one page fault per touched
// page. A dense one costs one more load of a line that stays cached.
//
// A set of 2 MiB starts in small pages (a short program touches a few) and,
// where huge pages are allowed (InternalHugePagesAllowed), moves to a huge
// page once it has touched kPagesBeforeHuge of them: a
// long-running program's set ends up touched all over (addresses hash to
// every page of it), and in small pages each of its 512 pages costs a page
// fault of its own (about 11 us in the VM of docs/performance.md). The
// move copies the touched pages and publishes the new words with release
// order; the old ones stay mapped (a reader may hold them) and are never
// written again. No reader misses a bit: an Add that happened before a
// reader looked happened before or after the move (both are serialized by
// the caller); before it, the old words have the bit; after it, the reader
// sees the new words.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_ADDRESS_FILTER_H
#define OWNSAN_CORE_ADDRESS_FILTER_H

#include "core/internal_allocator.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ownsan {

class AddressFilter {
public:
  /// `log2_bits`: size of the set (at least 6); `granule_shift`: 0 for
  /// exact addresses, 4 for 16-byte granules, 12 for 4 KiB pages.
  AddressFilter(unsigned log2_bits, unsigned granule_shift)
      : word_mask_((uint64_t{1} << (log2_bits - 6)) - 1), shift_(granule_shift),
        words_(static_cast<std::atomic<uint64_t> *>(
            InternalMapBlock(Bytes(), /*huge_pages=*/false))) {
    // (At most kSummaryWords * 64 pages of 512 words: 2^24 bits.)
    if (log2_bits < 6 || log2_bits > 24)
      __builtin_trap();
  }
  ~AddressFilter() {
    InternalUnmapBlock(Words(), Bytes());
    if (small_pages_words_)
      InternalUnmapBlock(small_pages_words_, Bytes());
  }
  AddressFilter(const AddressFilter &) = delete;
  AddressFilter &operator=(const AddressFilter &) = delete;

  /// Adds `p`. Calls to Add must be serialized by the caller (the runtime
  /// makes them under its lock; readers need none): a load and a store, not
  /// a locked read-modify-write, which would stall until every earlier store
  /// of the caller's critical section reached the cache.
  void Add(const void *p) {
    uintptr_t g = reinterpret_cast<uintptr_t>(p) >> shift_;
    std::atomic<uint64_t> &word = Words()[Word(g)];
    uint64_t bit = uint64_t{1} << BitInWord(g);
    uint64_t old = word.load(std::memory_order_relaxed);
    if (!(old & bit))
      word.store(old | bit, std::memory_order_release);
    // (After the word: a reader that sees the summary bit sees the word's.)
    uint64_t page = Word(g) >> kWordsPerPageLog2;
    std::atomic<uint64_t> &summary = summary_[page >> 6];
    uint64_t page_bit = uint64_t{1} << (page & 63);
    uint64_t had = summary.load(std::memory_order_relaxed);
    if (!(had & page_bit)) {
      summary.store(had | page_bit, std::memory_order_release);
      if (++touched_pages_ == kPagesBeforeHuge && Bytes() % kHugePage == 0 &&
          InternalHugePagesAllowed())
        MoveToHugePage();
    }
  }

  bool MaybeContains(const void *p) const {
    uintptr_t g = reinterpret_cast<uintptr_t>(p) >> shift_;
    return (Words()[Word(g)].load(std::memory_order_acquire) >> BitInWord(g)) &
           1;
  }

  /// Whether the set has moved to a huge page (for tests).
  bool InHugePage() const { return small_pages_words_ != nullptr; }

  /// True if any granule of [lo, lo + size) may hold an added address.
  bool MaybeOverlaps(const void *lo, size_t size) const {
    uintptr_t first = reinterpret_cast<uintptr_t>(lo) >> shift_;
    uintptr_t last = (reinterpret_cast<uintptr_t>(lo) + size - 1) >> shift_;
    // Case: a granule filter and a range within one word's 64 granules
    // (nine in ten allocations): one word, tested inline.
    if (shift_ != 0 && first >> 6 == last >> 6)
      return BlockMayHold(first >> 6, first & 63, last & 63);
    return MaybeOverlapsSlow(first, last);
  }

private:
  /// Whether granules [from, to] of `block` (64 neighbouring granules) may
  /// hold an added address.
  bool BlockMayHold(uintptr_t block, unsigned from, unsigned to) const {
    uint64_t w = BlockWord(block);
    uint64_t page = w >> kWordsPerPageLog2;
    if (!((summary_[page >> 6].load(std::memory_order_acquire) >> (page & 63)) &
          1))
      return false;
    uint64_t want = (~uint64_t{0} >> (63 - to)) & (~uint64_t{0} << from);
    return Words()[w].load(std::memory_order_acquire) & want;
  }

  std::atomic<uint64_t> *Words() const {
    return words_.load(std::memory_order_acquire);
  }

  /// Copies the touched pages of the set to a huge page and publishes it
  /// (see the file comment). Under the caller's serialization, as Add.
  __attribute__((noinline)) void MoveToHugePage() {
    std::atomic<uint64_t> *old = Words();
    auto *huge = static_cast<std::atomic<uint64_t> *>(
        InternalMapBlock(Bytes(), /*huge_pages=*/true));
    constexpr size_t kWordsPerPage = size_t{1} << kWordsPerPageLog2;
    for (uint64_t page = 0; page * kWordsPerPage <= word_mask_; ++page) {
      // (Untouched pages are zero in both: not read, not paged in.)
      if (!((summary_[page >> 6].load(std::memory_order_relaxed) >>
             (page & 63)) &
            1))
        continue;
      for (size_t i = 0; i < kWordsPerPage; ++i)
        huge[page * kWordsPerPage + i].store(
            old[page * kWordsPerPage + i].load(std::memory_order_relaxed),
            std::memory_order_relaxed);
    }
    small_pages_words_ = old;
    words_.store(huge, std::memory_order_release);
  }

  __attribute__((noinline)) bool MaybeOverlapsSlow(uintptr_t first,
                                                   uintptr_t last) const {
    if (shift_ == 0) {
      for (uintptr_t g = first; g <= last; ++g)
        if (MaybeContains(reinterpret_cast<const void *>(g)))
          return true;
      return false;
    }
    // Granule filters keep 64 neighbouring granules in one word: one load
    // per 64 granules of the range (an allocation of a few hundred bytes is
    // one word to look at, not one per granule). The eight words of a group
    // (BlockWord) share a hash, a cache line and a summary bit: each group
    // is hashed and its summary read once (a compiler's blocks of tens of
    // KiB span dozens of words).
    const uintptr_t first_block = first >> 6, last_block = last >> 6;
    const std::atomic<uint64_t> *words = Words();
    for (uintptr_t block = first_block; block <= last_block;) {
      uintptr_t group_last = std::min(last_block, block | 7);
      uint64_t base = Hash(block >> 3) << 3;
      uint64_t page = (base & word_mask_) >> kWordsPerPageLog2;
      if (!((summary_[page >> 6].load(std::memory_order_acquire) >>
             (page & 63)) &
            1)) {
        block = group_last + 1;
        continue;
      }
      for (; block <= group_last; ++block) {
        unsigned from = block == first_block ? first & 63 : 0;
        unsigned to = block == last_block ? last & 63 : 63;
        uint64_t want = (~uint64_t{0} >> (63 - to)) & (~uint64_t{0} << from);
        if (words[(base | (block & 7)) & word_mask_].load(
                std::memory_order_acquire) &
            want)
          return true;
      }
    }
    return false;
  }

  uint64_t Hash(uintptr_t key) const {
    // Fibonacci hashing spreads neighbouring keys over the whole set.
    return (key * 0x9E3779B97F4A7C15ull) >> 20;
  }
  // Granule filters: a word holds 64 neighbouring granules, and 8
  // neighbouring words share a cache line, so the objects a program
  // allocates one after the other are tested on one line. (Bits are as
  // many either way; only their placement changes.)
  uint64_t BlockWord(uintptr_t block) const {
    return ((Hash(block >> 3) << 3) | (block & 7)) & word_mask_;
  }
  // Exact filters hash each address to its own bit.
  uint64_t Word(uintptr_t g) const {
    return shift_ == 0 ? Hash(g) & word_mask_ : BlockWord(g >> 6);
  }
  unsigned BitInWord(uintptr_t g) const {
    return shift_ == 0 ? (g * 0x9E3779B97F4A7C15ull) >> 58 : g & 63;
  }

  // Mapped, so untouched pages cost nothing (zeroing a 2 MiB set cost
  // every process 512 page faults at startup).
  size_t Bytes() const { return (word_mask_ + 1) * sizeof(uint64_t); }

  static constexpr unsigned kWordsPerPageLog2 = 9; // 4 KiB of words
  static constexpr unsigned kSummaryWords = 8;
  static constexpr size_t kHugePage = size_t{2} << 20;
  /// Pages touched in small pages before the move (a short program stays
  /// under it; past it, a huge page costs less than the faults to come).
  static constexpr unsigned kPagesBeforeHuge = 64;

  const uint64_t word_mask_;
  const unsigned shift_;
  std::atomic<std::atomic<uint64_t> *> words_;
  std::atomic<uint64_t> summary_[kSummaryWords] = {};
  unsigned touched_pages_ = 0; ///< (written by Add only)
  /// The words before the move, left mapped for readers that hold them.
  std::atomic<uint64_t> *small_pages_words_ = nullptr;
};

} // namespace ownsan

#endif // OWNSAN_CORE_ADDRESS_FILTER_H
