//===- internal_allocator.h - ownsan's own memory, off the heap -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The address indexes grow and shrink a vector per 16 KiB region, in the
// small size classes LLVM uses for its objects. Taken from malloc, those
// vectors would land in the chunks the program's objects just freed, and
// change which addresses the program's next objects get (a freed builder's
// chunk would go to ownsan instead of to the program's next allocation of
// that size). Like a sanitizer's internal allocator, this one takes its
// memory from mmap: size classes every 8 bytes up to 256 bytes (record names
// are kept at their size, not rounded up to a power of two), then powers of
// two up to 64 KiB, carved from slabs (256 KiB; 2 MiB huge pages once a
// class has filled one), kept on free lists (never returned to the
// system); larger blocks are mapped whole, and kept for reuse when freed
// (up to 32 MiB of them).
//
// Thread-safe (one lock; the indexes allocate rarely: when a region's
// vectors double or shrink).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_INTERNAL_ALLOCATOR_H
#define OWNSAN_CORE_INTERNAL_ALLOCATOR_H

#include <cstddef>
#include <new>

namespace ownsan {

/// The pool behind InternalAllocator.
void *InternalAllocate(size_t bytes);
void InternalDeallocate(void *p, size_t bytes);
/// The bytes InternalAllocate(bytes) takes from its slab.
size_t InternalBlockSize(size_t bytes);

/// Zeroed memory mapped on demand, for large blocks that live long. With
/// `huge_pages`, blocks of a multiple of 2 MiB are 2 MiB-aligned and may be
/// backed by transparent huge pages: one page fault (and 2 MiB zeroed) where
/// 512 small pages would take one each. Worth it for memory that gets
/// filled; not for a sparse table.
/// `huge_pages` is honoured only while InternalHugePagesAllowed().
void *InternalMapBlock(size_t bytes, bool huge_pages);
void InternalUnmapBlock(void *p, size_t bytes);
/// Whether InternalMapBlock may advise huge pages: false until the runtime
/// sets its huge_pages_for_metadata option (at start-up, before the first
/// block that would take them).
void InternalSetHugePagesAllowed(bool allowed);
bool InternalHugePagesAllowed();

/// Mapped memory that holds pointers to heap blocks (records point at their
/// names and free events): under a leak checker (LeakSanitizer, with ASan
/// loaded ahead of ownsan) it is scanned like the heap, so those blocks are
/// not reported as leaked. No-ops without one.
void InternalAddLeakRoots(const void *p, size_t bytes);
void InternalRemoveLeakRoots(const void *p, size_t bytes);

/// Objects of type T that are never freed, carved in order: first from a
/// small block of the internal allocator (whose first pages every process
/// touches anyway: a short program's few events and extras fault in no page
/// of their own), then from kSmallBlocks mapped blocks of kPerBlock objects
/// (a short program's), then from 2 MiB blocks (a long run's events and
/// extras by the hundred thousand; huge pages where InternalMapBlock may
/// advise them: one page fault per 2 MiB, not one per 4 KiB). No malloc chunk
/// and header each, and not interleaved with the program's objects. Not
/// thread-safe: one per thread, or one under a lock. Zero-initialized, so it
/// can be a global or a (constant-initialized) thread-local.
template <typename T, size_t kPerBlock> struct MappedBump {
  static constexpr size_t kFirstBlockBytes = 1024;
  static constexpr size_t kSmallBlocks = 4;
  static constexpr size_t kHugeBlockBytes = size_t{2} << 20;
  static_assert(sizeof(T) <= kFirstBlockBytes && alignof(T) <= 8,
                "the first block is an internal allocation");
  T *next;
  size_t left;
  size_t blocks; ///< made so far
  /// How many objects block `b` (in the order made) holds.
  static constexpr size_t PerBlock(size_t b) {
    return b == 0              ? kFirstBlockBytes / sizeof(T)
           : b <= kSmallBlocks ? kPerBlock
                               : kHugeBlockBytes / sizeof(T);
  }
  /// `leak_roots`: the objects point at heap blocks (see above).
  T *New(bool leak_roots) {
    if (left == 0) {
      size_t b = blocks++;
      size_t n = PerBlock(b);
      size_t bytes;
      if (b == 0) {
        bytes = n * sizeof(T);
        next = static_cast<T *>(InternalAllocate(bytes));
      } else {
        bool huge = b > kSmallBlocks;
        bytes = huge ? kHugeBlockBytes : n * sizeof(T);
        next = static_cast<T *>(InternalMapBlock(bytes, huge));
      }
      if (leak_roots)
        InternalAddLeakRoots(next, bytes);
      left = n;
    }
    --left;
    return new (next++) T;
  }
};

/// A std allocator over InternalAllocate.
template <typename T> struct InternalAllocator {
  using value_type = T;
  InternalAllocator() = default;
  template <typename U> InternalAllocator(const InternalAllocator<U> &) {}
  T *allocate(size_t n) {
    static_assert(alignof(T) <= 8, "internal blocks are 8-byte aligned");
    return static_cast<T *>(InternalAllocate(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) { InternalDeallocate(p, n * sizeof(T)); }
  template <typename U> bool operator==(const InternalAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const InternalAllocator<U> &) const {
    return false;
  }
};

} // namespace ownsan

#endif // OWNSAN_CORE_INTERNAL_ALLOCATOR_H
