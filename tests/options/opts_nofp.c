/*===- opts_nofp.c - A frame without a frame pointer (for fast_unwind) -----===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Compiled with -fomit-frame-pointer: fp_middle keeps %rbp untouched, so a
 * frame-pointer walk from fp_inner jumps straight to fp_outer's caller and
 * misses fp_outer. The DWARF unwinder (fast_unwind=0) follows the CFI.
 *
 *===----------------------------------------------------------------------===*/
#include "opts_prog.h"

__attribute__((noinline)) void fp_middle(LLVMValueRef fn) {
  fp_inner(fn);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}
