/*===- opts_other.c - The src: suppression target of opts_prog ------------===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "opts_prog.h"

#include <stdio.h>

__attribute__((noinline)) void kind_in_other_file(LLVMValueRef fn) {
  printf("kind_in_other_file: LLVMGetValueKind(@f)\n");
  int k = (int)LLVMGetValueKind(fn);
  printf("kind_in_other_file: returned %s\n",
         k == LLVMFunctionValueKind ? "LLVMFunctionValueKind" : "0");
}
