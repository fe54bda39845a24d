/*===- opts_helper.c - libownsan_opts_helper.so: the lib: suppression target =*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <llvm-c/Core.h>

__attribute__((noinline)) int opts_helper_value_kind(LLVMValueRef fn) {
  int k = (int)LLVMGetValueKind(fn);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
  return k;
}
