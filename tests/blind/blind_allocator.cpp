// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A correct LLVM-C program whose LLVM deletes through an operator
// new/delete that is not ownsan's: built as blind_allocator, which defines
// its own (as a program linking a custom allocator does), and as
// blind_reuse, which does not (run with another allocator's library
// preloaded ahead of ownsan's runtime). LLVM's own deletions then bypass
// ownsan, which must say so and check nothing (src/runtime/blind_spots.cpp)
// while the program runs rounds that reuse LLVM's freed addresses
// (reuse_rounds.inc).
#include <llvm-c/Core.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#ifdef BLIND_OWN_ALLOCATOR
void *operator new(std::size_t n) {
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
#endif

int main() {
#define BLIND_HANDLE auto
#include "reuse_rounds.inc"
  std::printf("ok\n");
  return 0;
}
