//===- fn_names.cpp - Wrapped functions by name ---------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one search of kFnNames: the dlsym interposer (which wrapper to hand
// out), the static-LLVM scan and link mode (is a symbol an LLVM-C function
// ownsan wraps?).
//
//===----------------------------------------------------------------------===//

#include "interpose/no_sanitize.h"
#include "wrapper_api.h"

namespace ownsan {

OWNSAN_NO_SANITIZE int CompareWithoutLibc(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return static_cast<unsigned char>(*a) - static_cast<unsigned char>(*b);
}

OWNSAN_NO_SANITIZE unsigned FnIdOfName(const char *name) {
  // (The generator numbers the functions in strcmp order of name.)
  unsigned lo = 0, hi = kFnCount;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    int c = CompareWithoutLibc(kFnNames + kFnInfo[mid].name, name);
    if (c == 0)
      return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return kFnCount;
}

} // namespace ownsan
