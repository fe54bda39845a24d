/*===- rtld_layers.h - Two libraries that define the same names -----------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * librtld_upper.so and librtld_lower.so both define layer_name() and
 * LLVMCallpathsLayer() (a name with the "LLVM" prefix that is not an LLVM
 * function), each returning its own library's name. rtld_next_main links
 * upper first, so a look-up with RTLD_NEXT made *by upper* must find lower's
 * definitions, and one made by main must find upper's.
 *
 * Both libraries put their symbols in version node CALLPATHS_1
 * (rtld_layers.map), so dlvsym(RTLD_NEXT, ..., "CALLPATHS_1") has the same
 * answers as dlsym(RTLD_NEXT, ...).
 *
 *===----------------------------------------------------------------------===*/
#ifndef CALLPATHS_RTLD_LAYERS_H
#define CALLPATHS_RTLD_LAYERS_H

typedef const char *(*layer_fn)(void);

/* Defined by both libraries. */
const char *layer_name(void);
const char *LLVMCallpathsLayer(void);

/* librtld_upper.so: look-ups made from inside upper, returned unchanged. */
void *upper_next(const char *name);          /* dlsym(RTLD_NEXT) */
void *upper_next_versioned(const char *name, /* dlvsym(RTLD_NEXT) */
                           const char *version);

/* librtld_lower.so: referenced by main so the link keeps lower. */
int lower_is_loaded(void);

#endif
