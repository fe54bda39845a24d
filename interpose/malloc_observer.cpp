//===- malloc_observer.cpp - malloc and free tell ownsan ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For a library whose objects live in malloc'ed memory (MLIR allocates an
// operation, with its results and regions, in one malloc block and frees it
// with free): the program linked with the runtime defines malloc and free,
// which every shared object's calls reach, so ownsan sees those objects die
// whoever frees them, holds their memory back as operator delete does
// (allocation_observer.cpp), and sees the memory handed out again.
//
// Both forward to glibc's own (__libc_malloc, __libc_free): the heap stays
// glibc's, so memory from calloc, realloc or memalign may be freed here and
// memory from here released by glibc. Allocations from calloc, realloc and
// memalign are not observed: MLIR makes no object with them. The cost when
// nothing is tracked nearby is one lock-free bit test.
//
// Built into link mode only, for profiles that say so
// (OWNSAN_PROFILE_LIBRARY_SHARED).
//
//===----------------------------------------------------------------------===//

#include "allocation_hooks.h"
#include "loaded_objects.h"
#include "wrapper_api.h"

#include <cstddef>

extern "C" void *__libc_malloc(size_t n);
extern "C" void __libc_free(void *p);

// src/runtime/native_reuse.cpp: glibc's per-thread cache, replayed, so a
// report can say what a held block would hold without ownsan.
void OwnsanNativeReuseHeld(const void *p);
void OwnsanNativeReuseFreed(const void *p);
void OwnsanNativeReuseMalloc(const void *p);

extern "C" OWNSAN_EXPORT void *malloc(size_t n) {
  void *p = __libc_malloc(n);
  if (p) {
    OwnsanOnAllocation(p, n);
    OwnsanNativeReuseMalloc(p);
  }
  return p;
}

extern "C" OWNSAN_EXPORT void free(void *p) {
  if (!p)
    return;
  if (OwnsanTakeIntoQuarantine(p, 0)) {
    OwnsanNativeReuseHeld(p);
    return;
  }
  OwnsanNativeReuseFreed(p);
  __libc_free(p);
}

namespace ownsan {
// (What link_allocation.cpp decides at start-up: these replacements always
// observe.)
void ObserveLinkedAllocator() {}
// The process's operator new and delete are ownsan's own here (a program
// defining its own would not link): no replaced allocator to warn about.
std::string OperatorDeleteOwner() { return ""; }
} // namespace ownsan
