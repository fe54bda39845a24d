// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Uses a function after its module was disposed (with "fixed": does not).
#include <llvm-c/Core.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("consumer", ctx);
  LLVMTypeRef fn_type =
      LLVMFunctionType(LLVMInt32TypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(m, "answer", fn_type);
  size_t len = 0;
  if (argc > 1 && strcmp(argv[1], "fixed") == 0)
    printf("%s\n", LLVMGetValueName2(f, &len));
  LLVMDisposeModule(m);
  if (argc < 2)
    printf("%s\n", LLVMGetValueName2(f, &len)); // the bug
  LLVMContextDispose(ctx);
  return 0;
}
