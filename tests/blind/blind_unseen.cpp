// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A correct program whose module is made with LLVM's C++ API and only read
// through LLVM-C (as a driver that hands C++-made modules to a C helper
// would): every handle argument ownsan checks names an object no wrapped
// call handed out, so the `unseen-handles` blind spot is said at exit
// (src/runtime/blind_spots.cpp). Prints "ok" when what LLVM-C reads back
// is what the C++ code made.
#include <llvm-c/Core.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdio>
#include <cstring>

int main() {
  llvm::LLVMContext context;
  llvm::Module module("unseen", context);
  module.setSourceFileName("unseen.c");
  LLVMModuleRef m = llvm::wrap(&module);
  bool ok = true;
  for (int i = 0; i < 4; ++i) {
    size_t len = 0, file_len = 0;
    ok = ok && !strcmp(LLVMGetModuleIdentifier(m, &len), "unseen") &&
         !strcmp(LLVMGetSourceFileName(m, &file_len), "unseen.c") &&
         !strcmp(LLVMGetTarget(m), "") && !LLVMGetFirstFunction(m);
  }
  printf("%s\n", ok ? "ok" : "wrong");
  return ok ? 0 : 1;
}
