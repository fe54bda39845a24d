//===- link_entry.cpp - The runtime linked into the program --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Link mode (docs/link-mode.md): the runtime is linked into a program (or a
// shared object) that carries LLVM statically, with `ld --wrap` sending its
// LLVM-C calls to the wrappers. No libLLVM is loaded and nothing is
// interposed through the dynamic linker, so this file stands in for the
// preload-only parts: dlsym_interposer.cpp (glibc's dlsym is the real one)
// and symbols.c (the wrapped names are the generated kFnInfo table).
//
//===----------------------------------------------------------------------===//

#include "interpose/no_sanitize.h"
#include "interpose/real_llvm.h"
#include "runtime/runtime.h"
#include "wrapper_api.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>

#if !OWNSAN_LINK_MODE
#error "link_entry.cpp is only part of the link-mode runtime"
#endif

// (ownsan_linked_runtime, the mark a preloaded runtime stands down for, is
// a build fact: src/runtime/build_facts.cpp.in.)

namespace ownsan {

void LinkedWithout(const char *fn) {
  Runtime::Fatal(absl::StrCat(
      fn,
      " is not linked into this program: the linker left link mode's "
      "reference __real_",
      fn,
      " unbound (lld 14 does; link with ld.bfd or lld 19: docs/link-mode.md)"));
}

void *RealDlsym(void *handle, const char *name) { return dlsym(handle, name); }

void *RealDlvsym(void *handle, const char *name, const char *version) {
  return dlvsym(handle, name, version);
}

} // namespace ownsan

extern "C" OWNSAN_NO_SANITIZE void *ownsan_real_dlsym_fn(void) {
  return reinterpret_cast<void *>(&dlsym);
}
