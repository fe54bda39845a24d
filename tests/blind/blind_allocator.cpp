// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A correct LLVM-C program whose LLVM deletes through an operator
// new/delete that is not ownsan's: built as blind_allocator, which defines
// its own (as a program linking a custom allocator does), and as
// blind_reuse, which does not (run with another allocator's library
// preloaded ahead of ownsan's runtime). LLVM's own deletions then bypass
// ownsan, which must say so and check nothing (src/runtime/blind_spots.cpp):
// each round's values are freed by LLVM and their addresses handed to the
// next round's, of another context, which records that outlived their
// objects would call a cross-context use.
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
  for (int round = 0; round < 20; ++round) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("allocator", ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef fn_type = LLVMFunctionType(i64, &i64, 1, 0);
    LLVMValueRef f = LLVMAddFunction(m, "f", fn_type);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "e"));
    LLVMValueRef x = LLVMGetParam(f, 0);
    for (int k = 0; k < 8; ++k)
      x = LLVMBuildMul(b, x, LLVMConstInt(i64, 2 * k + 3 + round, 0), "m");
    LLVMBuildRet(b, x);
    LLVMDisposeBuilder(b);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
  std::printf("ok\n");
  return 0;
}
