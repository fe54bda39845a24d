/*===- call_loop.c - A fixed number of checked calls ---------------------===*\
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
|*                                                                            *|
|* For counting instructions (valgrind --tool=callgrind) rather than timing: *|
|* `call_loop N` makes N calls of LLVMTypeOf on one function, then N on 256  *|
|* functions in turn. The difference between two N is the per-call cost,    *|
|* whatever the load of the machine (docs/performance.md, "The runtime       *|
|* split").                                                                   *|
\*===----------------------------------------------------------------------===*/
#include <llvm-c/Core.h>

#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i32, &i32, 1, 0);
  LLVMValueRef f = LLVMAddFunction(m, "f", fty);
  LLVMValueRef fs[256];
  for (int i = 0; i < 256; ++i)
    fs[i] = LLVMAddFunction(m, "g", fty);
  volatile long sink = 0;
  for (long i = 0; i < n; ++i)
    sink += (long)LLVMTypeOf(f);
  for (long i = 0; i < n; ++i)
    sink += (long)LLVMTypeOf(fs[i & 255]);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}
