/*===- dlsym_entry.c - The dlsym and dlvsym entry points -----------------===
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Written in C so the look-ups ownsan does not care about leave through a
 * guaranteed tail call: glibc resolves dlsym(RTLD_NEXT, ...) relative to
 * its caller's return address, which must stay the original caller's
 * (see dlsym_interposer.cpp).
 *
 *===---------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "interpose/no_sanitize.h"

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);

void *ownsan_real_dlsym_fn(void);
void *ownsan_real_dlvsym_fn(void);
void *ownsan_redirect_llvm_symbol(const char *name, const char *version,
                                  void *found);

/* Called from sanitizer start-up code: no instrumentation. */
OWNSAN_NO_SANITIZE static int is_llvm_name(const char *name) {
  return name && name[0] == 'L' && name[1] == 'L' && name[2] == 'V' &&
         name[3] == 'M';
}

#if defined(__clang__)
#define OWNSAN_MUSTTAIL __attribute__((musttail))
#else
#define OWNSAN_MUSTTAIL
#endif

OWNSAN_NO_SANITIZE __attribute__((visibility("default"))) void *
dlsym(void *handle, const char *name) {
  dlsym_fn real = (dlsym_fn)ownsan_real_dlsym_fn();
  /* RTLD_NEXT is answered relative to the caller, so it must reach glibc
     with the caller's return address, whatever the name. */
  if (!is_llvm_name(name) || handle == RTLD_NEXT)
    OWNSAN_MUSTTAIL return real(handle, name);
  return ownsan_redirect_llvm_symbol(name, NULL, real(handle, name));
}

OWNSAN_NO_SANITIZE __attribute__((visibility("default"))) void *
dlvsym(void *handle, const char *name, const char *version) {
  dlvsym_fn real = (dlvsym_fn)ownsan_real_dlvsym_fn();
  if (!is_llvm_name(name) || handle == RTLD_NEXT)
    OWNSAN_MUSTTAIL return real(handle, name, version);
  return ownsan_redirect_llvm_symbol(name, version,
                                     real(handle, name, version));
}
