/*===- opts_prog.h - Shared declarations of the opts_prog sources ---------===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef OWNSAN_TESTS_OPTS_PROG_H
#define OWNSAN_TESTS_OPTS_PROG_H

#include <llvm-c/Core.h>

/* opts_other.c: a use-after-free made from a second source file. */
void kind_in_other_file(LLVMValueRef fn);
/* opts_nofp.c (compiled without frame pointers): calls fp_inner(fn). */
void fp_middle(LLVMValueRef fn);
void fp_inner(LLVMValueRef fn);
/* libownsan_opts_helper.so: LLVMGetValueKind(fn), from a shared library. */
int opts_helper_value_kind(LLVMValueRef fn);

#endif
