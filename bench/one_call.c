/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* one_call.c - start-up cost (issue 22): a program that links libLLVM and
 * makes one call (a module created and disposed, so that ownsan registers
 * and frees one object). bench/run_benchmarks.py times many runs of it
 * plain, preloaded (LD_PRELOAD=libownsan.so) and under `ownsan run`. */
#include <llvm-c/Core.h>

int main(void) {
  LLVMModuleRef m = LLVMModuleCreateWithName("one_call");
  LLVMDisposeModule(m);
  return 0;
}
