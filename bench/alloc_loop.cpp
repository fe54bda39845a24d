//===- alloc_loop.cpp - A fixed number of operator new and delete ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For counting instructions (valgrind --tool=callgrind) rather than timing:
// `alloc_loop SIZE N` makes N rounds of 64 allocations with operator new
// (SIZE bytes and up to 56 more) and 64 sized releases, and no LLVM-C call:
// under ownsan, what its allocation hooks cost a process in which nothing
// is tracked (docs/performance-history.md, "the JIT's gap by its parts").
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <new>

int main(int argc, char **argv) {
  size_t size = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  long rounds = argc > 2 ? std::atol(argv[2]) : 2000;
  void *blocks[64];
  for (long i = 0; i < rounds; ++i) {
    size_t n = size + (i & 7) * 8;
    for (void *&p : blocks)
      p = ::operator new(n);
    for (void *p : blocks)
      ::operator delete(p, n);
  }
  std::printf("pairs=%ld size=%zu\n", rounds * 64, size);
  return 0;
}
