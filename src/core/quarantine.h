//===- quarantine.h - Delayed release of freed objects' memory --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// When an object ownsan has recorded as freed is deleted, its memory is held
// here for a while instead of going back to malloc (memory buffers, which
// LLVM allocates with malloc rather than operator new, are held whole: the
// runtime forwards their LLVMDisposeMemoryBuffer only when they leave), so that
// no new object can be created at the old address while a stale handle may
// still be used: the stale handle keeps naming the freed object, and its use is
// reported (the allocator-level quarantine of AddressSanitizer, limited to the
// memory of objects a program held handles to). The object itself is destroyed
// normally; only its bytes wait. First in, first out, bounded in bytes.
//
// Not thread-safe: the Runtime serializes access.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_QUARANTINE_H
#define OWNSAN_CORE_QUARANTINE_H

#include "core/internal_allocator.h"

#include "absl/container/inlined_vector.h"

#include <cstddef>
#include <cstdint>
#include <deque>

namespace ownsan {

class Quarantine {
public:
  explicit Quarantine(size_t limit_bytes) : limit_(limit_bytes) {}

  struct Chunk {
    void *p;
    size_t size;
    /// How to release it: free(), or the LLVM-C disposer of an object the
    /// runtime held back whole (LLVM allocated it with malloc).
    enum Release : uint8_t {
      kFree,
      kDisposeMemoryBuffer,
      kDisposeMessage,
      kDisposeErrorMessage,
      /// An array LLVM malloc'ed and its disposer free()s (module flags).
      kFreeMalloced
    } release;
    /// The thread that freed it (Put records it; see TakeTrimDue).
    uint32_t freed_by = 0;
  };

  /// Chunks to release now (a few at a time, off the program's heap).
  using ReleaseList = absl::InlinedVector<Chunk, 16, InternalAllocator<Chunk>>;

  /// Holds `c`, which thread `thread` freed. Appends to `release` the chunks
  /// (oldest first, possibly `c` itself) that must be released now to stay
  /// within the limit.
  void Put(Chunk c, uint32_t thread, ReleaseList *release);

  /// Whether to hand free heap pages back to the system now (malloc_trim).
  /// Chunks one thread freed and another's Put releases often sit in
  /// another malloc arena than the one the program now allocates from
  /// (threads come and go; the quarantine outlives them), where nothing
  /// reuses them. Chunks released by the thread that freed them go back to
  /// the arena it allocates from, and it reuses them: trimming those pages
  /// only made the next allocations fault them in again (a single-threaded
  /// compiler's time, 8 % of it clearing pages). So due once per 1/64 of
  /// the limit released by another thread than the one that freed it, and
  /// no more often than keeps the time spent trimming under 2 % (a trim
  /// walks every free chunk of the heap): `now_ns` is read only when the
  /// bytes say it may be due, and the caller reports how long the trim took
  /// with TrimDone().
  template <typename NowNs> bool TakeTrimDue(NowNs now_ns) {
    if (released_since_trim_ == 0 || released_since_trim_ < limit_ / 64)
      return false;
    if (now_ns() - last_trim_end_ns_ < 50 * last_trim_ns_)
      return false;
    released_since_trim_ = 0;
    return true;
  }
  void TrimDone(uint64_t start_ns, uint64_t end_ns) {
    last_trim_ns_ = end_ns - start_ns;
    last_trim_end_ns_ = end_ns;
  }

  size_t bytes() const { return bytes_; }
  size_t peak_bytes() const { return peak_; }
  size_t count() const { return fifo_.size(); }
  size_t total_taken() const { return taken_; }
  size_t limit() const { return limit_; }

private:
  // Off the program's heap, like the indexes (see internal_allocator.h): a
  // full quarantine holds hundreds of thousands of chunks.
  std::deque<Chunk, InternalAllocator<Chunk>> fifo_;
  size_t limit_;
  size_t bytes_ = 0;
  size_t peak_ = 0;
  size_t taken_ = 0;
  size_t released_since_trim_ = 0;
  uint64_t last_trim_ns_ = 0;
  uint64_t last_trim_end_ns_ = 0;
};

} // namespace ownsan

#endif // OWNSAN_CORE_QUARANTINE_H
