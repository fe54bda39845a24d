//===- allocation_observer.cpp - operator new tells ownsan ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every LLVM object (values, modules, contexts, type slabs, buffers) is
// allocated with C++ operator new. ownsan replaces the global operator new
// (a replacement the C++ standard allows) so that it learns when memory is
// handed out again at an address it remembers as freed: from then on that
// address may name a new object made by code the runtime does not see (C++
// inside a binding), so the shadow entry stops matching. This is what makes
// a report on a freed address free of false positives. The cost when
// nothing is tracked nearby is one lock-free bit test.
//
// operator delete is replaced too: memory that holds an object ownsan
// recorded as freed goes to the quarantine (core/quarantine.h) instead of
// back to malloc, so the address cannot be handed to a new object while a
// stale handle may still be used. Everything else is freed at once.
//
// The replacements allocate with malloc / posix_memalign and release with
// free, exactly as libstdc++ does, so memory may cross between the two.
// (Where malloc and free are ownsan's too, malloc_observer.cpp, they use
// glibc's own, so that a block is observed once.)
//
// The runtime's own allocations never throw: an exception would unwind
// through its locks into the program. Out of memory there ends the process
// with one line, and the program's new_handler is not called for memory
// that is not the program's.
//
//===----------------------------------------------------------------------===//

#include "allocation_hooks.h"
#include "wrapper_api.h"

#include <cstdlib>
#include <new>

#if OWNSAN_OBSERVE_MALLOC
extern "C" void *__libc_malloc(size_t n);
extern "C" void __libc_free(void *p);
#define OWNSAN_MALLOC __libc_malloc
#define OWNSAN_FREE __libc_free
#else
#define OWNSAN_MALLOC malloc
#define OWNSAN_FREE free
#endif

namespace {

void *Allocate(std::size_t n) {
  if (n == 0)
    n = 1;
  for (;;) {
    if (void *p = OWNSAN_MALLOC(n)) {
      OwnsanOnAllocation(p, n);
      return p;
    }
    if (ownsan::CurrentThreadCallState().in_runtime)
      OwnsanOutOfMemory(n);
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      return nullptr;
    handler();
  }
}

void *AllocateAligned(std::size_t n, std::size_t align) {
  // (LLVM's allocate_buffer asks for every buffer this way, most with the
  // alignment of a pointer, which operator new(size_t) already gives.)
  if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__)
    return Allocate(n);
  if (n == 0)
    n = 1;
  if (align < sizeof(void *))
    align = sizeof(void *);
  for (;;) {
    void *p = nullptr;
    if (posix_memalign(&p, align, n) == 0) {
      OwnsanOnAllocation(p, n);
      return p;
    }
    if (ownsan::CurrentThreadCallState().in_runtime)
      OwnsanOutOfMemory(n);
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      return nullptr;
    handler();
  }
}

// `size`: what the block was asked for (a sized delete's), or 0: unknown.
void Release(void *p, std::size_t size = 0) {
  if (p && !OwnsanTakeIntoQuarantine(p, size))
    OWNSAN_FREE(p);
}

} // namespace

// The quarantine gives back what it held (quarantine_hooks.cpp).
void OwnsanReleaseDeleted(void *p) { OWNSAN_FREE(p); }

OWNSAN_EXPORT void *operator new(std::size_t n) {
  if (void *p = Allocate(n))
    return p;
  throw std::bad_alloc();
}
OWNSAN_EXPORT void *operator new[](std::size_t n) {
  if (void *p = Allocate(n))
    return p;
  throw std::bad_alloc();
}
OWNSAN_EXPORT void *operator new(std::size_t n,
                                 const std::nothrow_t &) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
OWNSAN_EXPORT void *operator new[](std::size_t n,
                                   const std::nothrow_t &) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
OWNSAN_EXPORT void *operator new(std::size_t n, std::align_val_t a) {
  if (void *p = AllocateAligned(n, static_cast<std::size_t>(a)))
    return p;
  throw std::bad_alloc();
}
OWNSAN_EXPORT void *operator new[](std::size_t n, std::align_val_t a) {
  if (void *p = AllocateAligned(n, static_cast<std::size_t>(a)))
    return p;
  throw std::bad_alloc();
}
OWNSAN_EXPORT void *operator new(std::size_t n, std::align_val_t a,
                                 const std::nothrow_t &) noexcept {
  try {
    return AllocateAligned(n, static_cast<std::size_t>(a));
  } catch (...) {
    return nullptr;
  }
}
OWNSAN_EXPORT void *operator new[](std::size_t n, std::align_val_t a,
                                   const std::nothrow_t &) noexcept {
  try {
    return AllocateAligned(n, static_cast<std::size_t>(a));
  } catch (...) {
    return nullptr;
  }
}

OWNSAN_EXPORT void operator delete(void *p) noexcept { Release(p); }
OWNSAN_EXPORT void operator delete[](void *p) noexcept { Release(p); }
OWNSAN_EXPORT void operator delete(void *p, std::size_t n) noexcept {
  Release(p, n);
}
OWNSAN_EXPORT void operator delete[](void *p, std::size_t n) noexcept {
  Release(p, n);
}
OWNSAN_EXPORT void operator delete(void *p, const std::nothrow_t &) noexcept {
  Release(p);
}
OWNSAN_EXPORT void operator delete[](void *p, const std::nothrow_t &) noexcept {
  Release(p);
}
OWNSAN_EXPORT void operator delete(void *p, std::align_val_t) noexcept {
  Release(p);
}
OWNSAN_EXPORT void operator delete[](void *p, std::align_val_t) noexcept {
  Release(p);
}
OWNSAN_EXPORT void operator delete(void *p, std::size_t n,
                                   std::align_val_t) noexcept {
  Release(p, n);
}
OWNSAN_EXPORT void operator delete[](void *p, std::size_t n,
                                     std::align_val_t) noexcept {
  Release(p, n);
}
OWNSAN_EXPORT void operator delete(void *p, std::align_val_t,
                                   const std::nothrow_t &) noexcept {
  Release(p);
}
OWNSAN_EXPORT void operator delete[](void *p, std::align_val_t,
                                     const std::nothrow_t &) noexcept {
  Release(p);
}
