/*===- rtld_upper.c - The first of the two layered libraries --------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Its look-up helpers call dlsym/dlvsym themselves (built with -O0, so not as
 * a tail call): glibc must answer RTLD_NEXT relative to *this* library, also
 * when ownsan's dlsym/dlvsym sit in between.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "rtld_layers.h"

#include <dlfcn.h>

const char *layer_name(void) { return "upper"; }
const char *LLVMCallpathsLayer(void) { return "upper"; }

__attribute__((noinline)) void *upper_next(const char *name) {
  void *volatile found = dlsym(RTLD_NEXT, name);
  return found;
}

__attribute__((noinline)) void *upper_next_versioned(const char *name,
                                                     const char *version) {
  void *volatile found = dlvsym(RTLD_NEXT, name, version);
  return found;
}
