/*===- rtld_next_main.c - What dlsym(RTLD_NEXT/RTLD_DEFAULT) answers ------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: rtld_next_main
 *
 * Linked against librtld_upper.so then librtld_lower.so (see rtld_layers.h).
 * Prints, one line each, what a series of look-ups with the RTLD_NEXT and
 * RTLD_DEFAULT pseudo-handles answers: the library a found function belongs
 * to (for the layered functions: the name it returns; for libc's puts: the
 * file name of its object from dladdr). stdout has no addresses, so it must
 * be the same with and without ownsan (whose dlsym and dlvsym sit between
 * every caller and glibc).
 *
 * On stderr: "rtld_next_main: dlsym is defined in PATH", so the test can
 * check that ownsan's dlsym was the one called.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "rtld_layers.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The file name (no directory) of the object that defines `p`. */
static const char *object_of(void *p) {
  Dl_info info;
  if (!p)
    return "(not found)";
  if (!dladdr(p, &info) || !info.dli_fname)
    return "(unknown object)";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

/* What a found layered function says it is: "upper", "lower" or NULL. */
static const char *layer_of(void *p) { return p ? ((layer_fn)p)() : "NULL"; }

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("lower loaded: %s\n", lower_is_loaded() ? "yes" : "no");

  /* libc's puts: the next definition after upper is libc's. */
  void *default_puts = dlsym(RTLD_DEFAULT, "puts");
  void *next_puts = upper_next("puts");
  printf("RTLD_DEFAULT puts: %s\n", object_of(default_puts));
  printf("RTLD_NEXT puts from upper: %s\n", object_of(next_puts));
  printf("RTLD_NEXT puts from upper is RTLD_DEFAULT puts: %s\n",
         next_puts && next_puts == default_puts ? "yes" : "no");

  /* Names defined by both layers. */
  printf("RTLD_DEFAULT layer_name: %s\n",
         layer_of(dlsym(RTLD_DEFAULT, "layer_name")));
  printf("RTLD_NEXT layer_name from main: %s\n",
         layer_of(dlsym(RTLD_NEXT, "layer_name")));
  printf("RTLD_NEXT layer_name from upper: %s\n",
         layer_of(upper_next("layer_name")));
  printf("RTLD_NEXT layer_name@CALLPATHS_1 from upper: %s\n",
         layer_of(upper_next_versioned("layer_name", "CALLPATHS_1")));

  /* The same with a name that starts with "LLVM" (ownsan's dlsym treats
   * those differently: it may hand out a wrapper instead). */
  printf("RTLD_DEFAULT LLVMCallpathsLayer: %s\n",
         layer_of(dlsym(RTLD_DEFAULT, "LLVMCallpathsLayer")));
  printf("RTLD_NEXT LLVMCallpathsLayer from main: %s\n",
         layer_of(dlsym(RTLD_NEXT, "LLVMCallpathsLayer")));
  printf("RTLD_NEXT LLVMCallpathsLayer from upper: %s\n",
         layer_of(upper_next("LLVMCallpathsLayer")));
  printf("RTLD_NEXT LLVMCallpathsLayer@CALLPATHS_1 from upper: %s\n",
         layer_of(upper_next_versioned("LLVMCallpathsLayer", "CALLPATHS_1")));

  /* Nothing after lower defines these. */
  printf("RTLD_NEXT callpaths_no_such_symbol from upper: %s\n",
         object_of(upper_next("callpaths_no_such_symbol")));
  printf("RTLD_NEXT LLVMCallpathsNoSuchSymbol from upper: %s\n",
         object_of(upper_next("LLVMCallpathsNoSuchSymbol")));

  Dl_info info;
  if (dladdr((void *)&dlsym, &info) && info.dli_fname)
    fprintf(stderr, "rtld_next_main: dlsym is defined in %s\n", info.dli_fname);
  return 0;
}
