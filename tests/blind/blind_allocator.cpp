// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A correct LLVM-C program that brings its own global operator new/delete
// (as a program linking a custom allocator does): LLVM's own deletions then
// bypass ownsan's, which it must say (src/runtime/blind_spots.cpp).
#include <llvm-c/Core.h>

#include <cstdio>
#include <cstdlib>
#include <new>

void *operator new(std::size_t n) {
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

int main() {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("allocator", ctx);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  std::printf("ok\n");
  return 0;
}
