//===- link_allocation.cpp - operator new/delete in link mode ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Link mode's counterpart of allocation_observer.cpp. The linker wraps every
// operator new and delete the program's objects and LLVM's static code call
// (LINK_MODE_ALLOCATION_SYMBOLS in tools/wrapgen/render_link.py puts them
// in ownsan.wrap): the hooks below tell the runtime what is allocated and
// released, then call the real operator (__real_X, which the linker binds to
// the program's own X, or libstdc++'s). Unlike a replacement, this reaches
// LLVM code linked into a shared object too (an extension module embedding
// LLVM), whose operator calls bind past any replacement in the executable.
//
// The runtime reasons about blocks with malloc_usable_size and releases the
// blocks it held with the real operator delete, so it observes only when
// the real operators are libstdc++'s (built on malloc; or those of a
// preloaded ownsan runtime standing down, which are too); a program bringing
// its own is told at start-up (the allocator blind spot), as under preload.
//
//===----------------------------------------------------------------------===//

#include "interpose/allocation_hooks.h"
#include "interpose/loaded_objects.h"
#include "wrapper_api.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <new>
#include <string>

#if !OWNSAN_LINK_MODE
#error "link_allocation.cpp is only part of the link-mode runtime"
#endif

using std::align_val_t;
using std::nothrow_t;
using std::size_t;

extern "C" {
void *__real__Znwm(size_t);
void *__real__Znam(size_t);
void *__real__ZnwmRKSt9nothrow_t(size_t, const nothrow_t &) noexcept;
void *__real__ZnamRKSt9nothrow_t(size_t, const nothrow_t &) noexcept;
void *__real__ZnwmSt11align_val_t(size_t, align_val_t);
void *__real__ZnamSt11align_val_t(size_t, align_val_t);
void *__real__ZnwmSt11align_val_tRKSt9nothrow_t(size_t, align_val_t,
                                                const nothrow_t &) noexcept;
void *__real__ZnamSt11align_val_tRKSt9nothrow_t(size_t, align_val_t,
                                                const nothrow_t &) noexcept;
void __real__ZdlPv(void *) noexcept;
void __real__ZdaPv(void *) noexcept;
void __real__ZdlPvm(void *, size_t) noexcept;
void __real__ZdaPvm(void *, size_t) noexcept;
void __real__ZdlPvRKSt9nothrow_t(void *, const nothrow_t &) noexcept;
void __real__ZdaPvRKSt9nothrow_t(void *, const nothrow_t &) noexcept;
void __real__ZdlPvSt11align_val_t(void *, align_val_t) noexcept;
void __real__ZdaPvSt11align_val_t(void *, align_val_t) noexcept;
void __real__ZdlPvmSt11align_val_t(void *, size_t, align_val_t) noexcept;
void __real__ZdaPvmSt11align_val_t(void *, size_t, align_val_t) noexcept;
void __real__ZdlPvSt11align_val_tRKSt9nothrow_t(void *, align_val_t,
                                                const nothrow_t &) noexcept;
void __real__ZdaPvSt11align_val_tRKSt9nothrow_t(void *, align_val_t,
                                                const nothrow_t &) noexcept;
}

namespace {

// Set once at start-up (ownsan::ObserveLinkedAllocator): the real
// operators are libstdc++'s, so the hooks may observe.
bool g_observe = false;

inline void *Observed(void *p, size_t n) {
  if (p && g_observe)
    OwnsanOnAllocation(p, n);
  return p;
}

// The runtime's own allocations must not throw through its locks.
inline void *Allocate(size_t n, void *(*real)(size_t)) {
  if (g_observe && ownsan::CurrentThreadCallState().in_runtime) {
    void *p = __real__ZnwmRKSt9nothrow_t(n, std::nothrow);
    if (!p)
      OwnsanOutOfMemory(n);
    return Observed(p, n);
  }
  return Observed(real(n), n);
}

// True if the runtime keeps the block (a stale handle may name it); `n`:
// a sized delete's size (0: unknown).
inline bool Held(void *p, size_t n = 0) {
  return p && g_observe && OwnsanTakeIntoQuarantine(p, n);
}

} // namespace

namespace ownsan {

std::string OperatorDeleteOwner() {
  Dl_info info;
  link_map *map = nullptr;
  void *real = reinterpret_cast<void *>(&__real__ZdlPv);
  if (dladdr1(real, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) &&
      info.dli_fname && map && map->l_name && *map->l_name) {
    std::string path = info.dli_fname;
    std::string base = path.substr(path.rfind('/') + 1);
    // libstdc++'s, or a preloaded ownsan runtime's that stood down for
    // this one (`ownsan run` on the program): both malloc and free.
    if (base.rfind("libstdc++.so", 0) == 0 || base.rfind("libownsan", 0) == 0)
      return "";
    if (!path.empty() && path[0] == '/')
      return path;
  }
  // (The executable, whose map has no name, by its resolved path.)
  return ExecutablePath();
}

void ObserveLinkedAllocator() { g_observe = OperatorDeleteOwner().empty(); }

} // namespace ownsan

// The quarantine gives back what it held (quarantine_hooks.cpp).
void OwnsanReleaseDeleted(void *p) { __real__ZdlPv(p); }

extern "C" {

OWNSAN_EXPORT void *__wrap__Znwm(size_t n) { return Allocate(n, __real__Znwm); }
OWNSAN_EXPORT void *__wrap__Znam(size_t n) { return Allocate(n, __real__Znam); }
OWNSAN_EXPORT void *__wrap__ZnwmRKSt9nothrow_t(size_t n,
                                               const nothrow_t &t) noexcept {
  return Observed(__real__ZnwmRKSt9nothrow_t(n, t), n);
}
OWNSAN_EXPORT void *__wrap__ZnamRKSt9nothrow_t(size_t n,
                                               const nothrow_t &t) noexcept {
  return Observed(__real__ZnamRKSt9nothrow_t(n, t), n);
}
OWNSAN_EXPORT void *__wrap__ZnwmSt11align_val_t(size_t n, align_val_t a) {
  return Observed(__real__ZnwmSt11align_val_t(n, a), n);
}
OWNSAN_EXPORT void *__wrap__ZnamSt11align_val_t(size_t n, align_val_t a) {
  return Observed(__real__ZnamSt11align_val_t(n, a), n);
}
OWNSAN_EXPORT void *
__wrap__ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, align_val_t a,
                                          const nothrow_t &t) noexcept {
  return Observed(__real__ZnwmSt11align_val_tRKSt9nothrow_t(n, a, t), n);
}
OWNSAN_EXPORT void *
__wrap__ZnamSt11align_val_tRKSt9nothrow_t(size_t n, align_val_t a,
                                          const nothrow_t &t) noexcept {
  return Observed(__real__ZnamSt11align_val_tRKSt9nothrow_t(n, a, t), n);
}

// Deletes: a held block goes back later through OwnsanReleaseDeleted
// (libstdc++'s operators all end in free(), whichever variant).
OWNSAN_EXPORT void __wrap__ZdlPv(void *p) noexcept {
  if (!Held(p))
    __real__ZdlPv(p);
}
OWNSAN_EXPORT void __wrap__ZdaPv(void *p) noexcept {
  if (!Held(p))
    __real__ZdaPv(p);
}
OWNSAN_EXPORT void __wrap__ZdlPvm(void *p, size_t n) noexcept {
  if (!Held(p, n))
    __real__ZdlPvm(p, n);
}
OWNSAN_EXPORT void __wrap__ZdaPvm(void *p, size_t n) noexcept {
  if (!Held(p, n))
    __real__ZdaPvm(p, n);
}
OWNSAN_EXPORT void __wrap__ZdlPvRKSt9nothrow_t(void *p,
                                               const nothrow_t &t) noexcept {
  if (!Held(p))
    __real__ZdlPvRKSt9nothrow_t(p, t);
}
OWNSAN_EXPORT void __wrap__ZdaPvRKSt9nothrow_t(void *p,
                                               const nothrow_t &t) noexcept {
  if (!Held(p))
    __real__ZdaPvRKSt9nothrow_t(p, t);
}
OWNSAN_EXPORT void __wrap__ZdlPvSt11align_val_t(void *p,
                                                align_val_t a) noexcept {
  if (!Held(p))
    __real__ZdlPvSt11align_val_t(p, a);
}
OWNSAN_EXPORT void __wrap__ZdaPvSt11align_val_t(void *p,
                                                align_val_t a) noexcept {
  if (!Held(p))
    __real__ZdaPvSt11align_val_t(p, a);
}
OWNSAN_EXPORT void __wrap__ZdlPvmSt11align_val_t(void *p, size_t n,
                                                 align_val_t a) noexcept {
  if (!Held(p, n))
    __real__ZdlPvmSt11align_val_t(p, n, a);
}
OWNSAN_EXPORT void __wrap__ZdaPvmSt11align_val_t(void *p, size_t n,
                                                 align_val_t a) noexcept {
  if (!Held(p, n))
    __real__ZdaPvmSt11align_val_t(p, n, a);
}
OWNSAN_EXPORT void
__wrap__ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, align_val_t a,
                                           const nothrow_t &t) noexcept {
  if (!Held(p))
    __real__ZdlPvSt11align_val_tRKSt9nothrow_t(p, a, t);
}
OWNSAN_EXPORT void
__wrap__ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, align_val_t a,
                                           const nothrow_t &t) noexcept {
  if (!Held(p))
    __real__ZdaPvSt11align_val_tRKSt9nothrow_t(p, a, t);
}

} // extern "C"
