// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A correct LLVM-C program, built four ways by tests/CMakeLists.txt to show
// each blind spot of the preload (src/runtime/blind_spots.cpp):
//   blind_static     LLVM linked in statically
//   blind_dynamic    against the shared libLLVM (the case that is seen)
//   blind_embedded   libblind_embedded.so: the same code in a shared object
//                    that embeds a static LLVM, loaded by `blind_loader
//                    --dlopen PATH` (no LLVM of its own) after start-up
//                    (the llvmlite-wheel layout)
//   libblind_linked.so  the same shared object linked against the shared
//                    libLLVM, loaded by `blind_loader --dlopen` (seen) and
//                    `--dlopen-deepbind` (its calls bypass the preload)
//   blind_fully_static  no LLVM at all, -static: no dynamic loader
//   `blind_loader --dlopen-llvm-deepbind LIBLLVM`: libLLVM itself loaded with
//                    RTLD_DEEPBIND and called through dlsym (the wrappers,
//                    which ownsan's dlsym hands out), its operator new/delete
//                    then libstdc++'s, not ownsan's
// Prints "ok" when the IR it builds is what it expects.
#define _GNU_SOURCE // RTLD_DEEPBIND
#include <stdio.h>
#include <string.h>

#ifndef BLIND_NO_LLVM
#include <llvm-c/Core.h>

#ifdef BLIND_EMBEDDED
__attribute__((visibility("default")))
#endif
int blind_build(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("blind", ctx);
  LLVMTypeRef fn_type =
      LLVMFunctionType(LLVMInt32TypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(m, "f", fn_type);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildRet(b, LLVMConstInt(LLVMInt32TypeInContext(ctx), 7, 0));
  LLVMDisposeBuilder(b);
  size_t len = 0;
  int ok = strcmp(LLVMGetValueName2(f, &len), "f") == 0 &&
           LLVMCountBasicBlocks(f) == 1;
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return ok;
}
#endif

#ifndef BLIND_EMBEDDED
#ifndef BLIND_FULLY_STATIC
#include <dlfcn.h>

// The rounds of reuse_rounds.inc, through the libLLVM handle `h`.
static int reuse_rounds(void *h) {
  typedef void *P;
#define FN(ret, name, ...)                                                     \
  ret (*name)(__VA_ARGS__) = (ret(*)(__VA_ARGS__))dlsym(h, #name);             \
  if (!name)                                                                   \
    return 0;
  FN(P, LLVMContextCreate, void)
  FN(P, LLVMModuleCreateWithNameInContext, const char *, P)
  FN(P, LLVMInt64TypeInContext, P)
  FN(P, LLVMFunctionType, P, P *, unsigned, int)
  FN(P, LLVMAddFunction, P, const char *, P)
  FN(P, LLVMCreateBuilderInContext, P)
  FN(P, LLVMAppendBasicBlockInContext, P, P, const char *)
  FN(void, LLVMPositionBuilderAtEnd, P, P)
  FN(P, LLVMGetParam, P, unsigned)
  FN(P, LLVMBuildMul, P, P, P, const char *)
  FN(P, LLVMConstInt, P, unsigned long long, int)
  FN(P, LLVMBuildRet, P, P)
  FN(void, LLVMDisposeBuilder, P)
  FN(void, LLVMDisposeModule, P)
  FN(void, LLVMContextDispose, P)
#undef FN
#define BLIND_HANDLE P
#include "reuse_rounds.inc"
  return 1;
}
#endif

int main(int argc, char **argv) {
  int ok = 1;
  if (0) {
#ifndef BLIND_FULLY_STATIC
  } else if (argc == 3 && (strcmp(argv[1], "--dlopen") == 0 ||
                           strcmp(argv[1], "--dlopen-deepbind") == 0)) {
    // Loaded after start-up: found only by the exit-time look. With
    // RTLD_DEEPBIND the object's own dependencies (libLLVM) come before the
    // global scope (ownsan's wrappers) when its references are bound.
    int deep = strcmp(argv[1], "--dlopen-deepbind") == 0 ? RTLD_DEEPBIND : 0;
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL | deep);
    int (*build)(void) = h ? (int (*)(void))dlsym(h, "blind_build") : NULL;
    if (!build) {
      printf("cannot load %s: %s\n", argv[2], dlerror());
      return 2;
    }
    ok = build();
  } else if (argc == 3 && strcmp(argv[1], "--dlopen-llvm-deepbind") == 0) {
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
      printf("cannot load %s: %s\n", argv[2], dlerror());
      return 2;
    }
    ok = reuse_rounds(h);
#endif
  } else if (argc == 2 && strcmp(argv[1], "--no-call") == 0) {
    // libLLVM loaded (linked), no LLVM-C call made: as a C++ user of LLVM
    // or a graphics driver would.
  } else {
#ifndef BLIND_NO_LLVM
    ok = blind_build();
#endif
  }
  printf("%s\n", ok ? "ok" : "wrong");
  return ok ? 0 : 1;
}
#endif
