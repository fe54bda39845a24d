/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program for the least tracker's test (least_tracker_test.py): a block
   of a module, positioned at after the module's dispose ("dangling"), or
   not ("clean"); or an instruction used after LLVM erased it ("erased":
   a death only the operator delete hook sees). Besides the erasure, only
   calls the least tracker wraps. */
#include <llvm-c/Core.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int dangling = argc > 1 && !strcmp(argv[1], "dangling");
  int erased = argc > 1 && !strcmp(argv[1], "erased");
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[2] = {i64, i64};
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i64, params, 2, 0));
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(c, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, bb);
  LLVMValueRef a = LLVMGetParam(f, 0);
  LLVMValueRef sum = LLVMBuildAdd(b, a, a, "sum");
  LLVMBuildRet(b, a);
  LLVMInstructionEraseFromParent(sum);
  if (erased)
    fprintf(stderr, "least_tracker_seed: opcode %d\n",
            (int)LLVMGetInstructionOpcode(sum)); /* erased above */
  LLVMDisposeModule(m);
  fprintf(stderr, "least_tracker_seed: module disposed\n");
  if (dangling)
    LLVMPositionBuilderAtEnd(b, bb); /* the block died with the module */
  LLVMDisposeBuilder(b);
  LLVMContextDispose(c);
  return 0;
}
