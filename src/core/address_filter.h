//===- address_filter.h - Lock-free "maybe tracked" bit sets ----*- C++ -*-===//
//
// The hot paths (every handle argument of every call, every allocation) must
// not take a lock to learn that an address is *not* interesting. An
// AddressFilter is a fixed bit set indexed by a hash of the address (or of
// its page): a clear bit proves absence, a set bit means "look it up under
// the lock". Bits are only ever set, so a reader never misses an address
// that was added before it looked (the adder sets the bit before it
// publishes the record, with release order).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_ADDRESS_FILTER_H
#define OWNSAN_CORE_ADDRESS_FILTER_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace ownsan {

class AddressFilter {
public:
  /// `log2_bits`: size of the set; `granule_shift`: 0 for exact addresses,
  /// 12 to answer "is anything tracked in this 4 KiB page".
  AddressFilter(unsigned log2_bits, unsigned granule_shift)
      : mask_((uint64_t{1} << log2_bits) - 1), shift_(granule_shift),
        words_(new std::atomic<uint64_t>[(mask_ + 1) / 64]()) {}

  void Add(const void *p) {
    uint64_t bit = Bit(reinterpret_cast<uintptr_t>(p) >> shift_);
    words_[bit / 64].fetch_or(uint64_t{1} << (bit % 64),
                              std::memory_order_release);
  }

  bool MaybeContains(const void *p) const {
    uint64_t bit = Bit(reinterpret_cast<uintptr_t>(p) >> shift_);
    return (words_[bit / 64].load(std::memory_order_acquire) >> (bit % 64)) & 1;
  }

  /// True if any granule of [lo, lo + size) may hold an added address.
  bool MaybeOverlaps(const void *lo, size_t size) const {
    uintptr_t first = reinterpret_cast<uintptr_t>(lo) >> shift_;
    uintptr_t last = (reinterpret_cast<uintptr_t>(lo) + size - 1) >> shift_;
    for (uintptr_t g = first; g <= last; ++g) {
      uint64_t bit = Bit(g);
      if ((words_[bit / 64].load(std::memory_order_acquire) >> (bit % 64)) & 1)
        return true;
    }
    return false;
  }

private:
  uint64_t Bit(uintptr_t granule) const {
    // Fibonacci hashing spreads neighbouring granules over the whole set.
    return (granule * 0x9E3779B97F4A7C15ull) >> 20 & mask_;
  }

  const uint64_t mask_;
  const unsigned shift_;
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
};

} // namespace ownsan

#endif // OWNSAN_CORE_ADDRESS_FILTER_H
