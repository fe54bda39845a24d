/*===- no_sanitize.h - Code that runs before or beyond a sanitizer ------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * For the interposers a sanitizer runtime itself may call during its own
 * start-up (dlsym, sigaction), before its shadow memory and interceptors
 * work, and for frames a jump leaves for good (a ThreadSanitizer function
 * entry would never see its exit): no instrumentation at all.
 *
 *===---------------------------------------------------------------------===*/
#ifndef OWNSAN_INTERPOSE_NO_SANITIZE_H
#define OWNSAN_INTERPOSE_NO_SANITIZE_H

#if defined(__clang__)
#define OWNSAN_NO_SANITIZE                                                     \
  __attribute__((no_sanitize("address", "thread", "undefined"),                \
                 disable_sanitizer_instrumentation))
#else
#define OWNSAN_NO_SANITIZE                                                     \
  __attribute__((no_sanitize("address", "thread", "undefined")))
#endif

#endif /* OWNSAN_INTERPOSE_NO_SANITIZE_H */
