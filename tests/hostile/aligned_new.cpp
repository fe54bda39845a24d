//===- aligned_new.cpp - operator new with an alignment, under ownsan ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ownsan replaces the aligned forms of operator new (LLVM's allocate_buffer
// asks for every buffer through them): the alignments up to
// __STDCPP_DEFAULT_NEW_ALIGNMENT__ take operator new(size_t)'s path, the
// larger ones posix_memalign's. Every alignment asked for, 1 to 4096 bytes,
// must be honoured, by each form, and each block given back by the
// matching delete. Exits 1 at the first misaligned block, 2 if ownsan is not
// loaded (the test would prove nothing).
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <new>

int main() {
  if (!dlsym(RTLD_DEFAULT, "ownsan_handle_state")) {
    fprintf(stderr, "aligned_new: ownsan is not loaded\n");
    return 2;
  }
  int checked = 0;
  for (size_t align = 1; align <= 4096; align *= 2) {
    for (size_t size :
         {size_t{1}, size_t{8}, size_t{24}, size_t{100}, size_t{5000}}) {
      std::align_val_t a{align};
      void *blocks[] = {::operator new(size, a), ::operator new[](size, a),
                        ::operator new(size, a, std::nothrow),
                        ::operator new[](size, a, std::nothrow)};
      for (void *p : blocks) {
        if (!p || reinterpret_cast<uintptr_t>(p) % align != 0) {
          fprintf(stderr, "aligned_new: %zu bytes at %p: not aligned to %zu\n",
                  size, p, align);
          return 1;
        }
        memset(p, 0xab, size);
        ++checked;
      }
      ::operator delete(blocks[0], size, a);
      ::operator delete[](blocks[1], a);
      ::operator delete(blocks[2], a, std::nothrow);
      ::operator delete[](blocks[3], size, a);
    }
  }
  printf("aligned_new: %d blocks aligned\n", checked);
  return 0;
}
