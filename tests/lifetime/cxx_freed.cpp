//===- cxx_freed.cpp - Objects made through LLVM-C, freed by C++ ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: cxx_freed CASE [--fixed]
//
// A binding or JIT with a C++ part of its own takes objects the program made
// through the C API and frees them in C++: ownsan registered them but never
// saw an LLVM-C call free them. The memory they had is then reused (forced
// here: blocks of their size are allocated and filled with a pattern)
// before the context they belonged to is disposed. Natively every case exits
// 0; ownsan must neither read the freed objects nor call them leaks.
//
//   cxx_engine_dispose  a module made with LLVMModuleCreateWithNameInContext
//                       is given to an execution engine built in C++
//                       (EngineBuilder(std::unique_ptr<Module>(unwrap(M))), as
//                       llvmlite's create_execution_engine does), the engine
//                       is disposed with LLVMDisposeExecutionEngine (which
//                       deletes the module), then the context is disposed.
//                       Without --fixed, the module's function is used after
//                       the engine dispose (LLVMGetValueName2): a
//                       use-after-free.
//   cxx_engine_dispose_module
//                       the same; without --fixed, the module itself is used
//                       after the engine dispose (LLVMGetModuleIdentifier).
//   cxx_bitcode_owned   a JIT's inliner: modules loaded with
//                       LLVMGetBitcodeModuleInContext2 are owned by C++
//                       (std::unique_ptr): some are linked into the main
//                       module (Linker::linkModules moves and deletes them),
//                       the rest sit in a module cache that is cleared; the
//                       main module is disposed and the context too, 100
//                       times in one process. Without --fixed, a function of
//                       a linked-away module is used after the link.
//
//===----------------------------------------------------------------------===//

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm/ExecutionEngine/ExecutionEngine.h>
#include <llvm/ExecutionEngine/Interpreter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

static bool fixed = false;

// Takes the memory a freed module had: blocks of a module's size, from
// malloc (not operator new, which ownsan sees), filled with a pattern that
// makes a garbage identifier length if anything reads it. Kept until the
// context dispose has run over them.
static std::vector<void *> reuse_module_memory() {
  std::vector<void *> blocks;
  for (int i = 0; i < 64; ++i) {
    void *p = malloc(sizeof(llvm::Module));
    memset(p, 0xA5, sizeof(llvm::Module));
    blocks.push_back(p);
  }
  return blocks;
}

static void release(const std::vector<void *> &blocks) {
  for (void *p : blocks)
    free(p);
}

static LLVMValueRef add_function(LLVMModuleRef m, LLVMContextRef c,
                                 const char *name) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMValueRef f =
      LLVMAddFunction(m, name, LLVMFunctionType(i32, nullptr, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  LLVMBuildRet(b, LLVMConstInt(i32, 42, 0));
  LLVMDisposeBuilder(b);
  return f;
}

__attribute__((noinline)) static llvm::ExecutionEngine *
make_engine_in_cxx(LLVMModuleRef m) {
  std::string error;
  llvm::ExecutionEngine *ee =
      llvm::EngineBuilder(std::unique_ptr<llvm::Module>(llvm::unwrap(m)))
          .setEngineKind(llvm::EngineKind::Interpreter)
          .setErrorStr(&error)
          .create();
  if (!ee)
    fprintf(stderr, "cxx_freed: no engine: %s\n", error.c_str());
  return ee;
}

static int case_engine_dispose(bool use_module) {
  LLVMLinkInInterpreter();
  LLVMContextRef c = LLVMContextCreate();
  // Renamed through the C API: reports give the new name.
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("unnamed", c);
  LLVMSetModuleIdentifier(m, "jitted", 6);
  LLVMValueRef f = add_function(m, c, "answer");
  llvm::ExecutionEngine *ee = make_engine_in_cxx(m);
  if (!ee)
    return 1;
  printf("engine_dispose: LLVMDisposeExecutionEngine\n");
  LLVMDisposeExecutionEngine(llvm::wrap(ee));
  std::vector<void *> reused = reuse_module_memory();
  if (!fixed) {
    size_t len = 0;
    const char *name;
    if (use_module) {
      printf("engine_dispose: LLVMGetModuleIdentifier\n");
      name = LLVMGetModuleIdentifier(m, &len);
      // CHECK-cxx_engine_dispose_module: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef [[M:0x[0-9a-f]+]] (module "jitted"){{$}}
      // CHECK-cxx_engine_dispose_module-NEXT: passed as argument 1 of LLVMGetModuleIdentifier on thread T0:
      // CHECK-cxx_engine_dispose_module-NEXT: #0 {{.*}} in case_engine_dispose(bool) {{.*}}cxx_freed.cpp:[[@LINE-3]]:
      // CHECK-cxx_engine_dispose_module: freed during LLVMDisposeExecutionEngine on thread T0, by LLVM itself:
      // CHECK-cxx_engine_dispose_module-NEXT: #0 {{.*}} in case_engine_dispose(bool) {{.*}}cxx_freed.cpp:
      // CHECK-cxx_engine_dispose_module: created by LLVMModuleCreateWithNameInContext on thread T0:
      // CHECK-cxx_engine_dispose_module-NEXT: #0 {{.*}} in case_engine_dispose(bool) {{.*}}cxx_freed.cpp:
      // CHECK-cxx_engine_dispose_module: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "jitted"{{$}}
      // CHECK-cxx_engine_dispose_module-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier {{.*}}cxx_freed.cpp:{{[0-9]+}}:{{[0-9]+}} in case_engine_dispose(bool){{$}}
    } else {
      printf("engine_dispose: LLVMGetValueName2\n");
      name = LLVMGetValueName2(f, &len);
      // CHECK-cxx_engine_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[F:0x[0-9a-f]+]] (function @answer in module "jitted"){{$}}
      // CHECK-cxx_engine_dispose-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
      // CHECK-cxx_engine_dispose-NEXT: #0 {{.*}} in case_engine_dispose(bool) {{.*}}cxx_freed.cpp:[[@LINE-3]]:
      // CHECK-cxx_engine_dispose: freed during LLVMDisposeExecutionEngine on thread T0, by LLVM itself:
      // CHECK-cxx_engine_dispose-NEXT: #0 {{.*}} in case_engine_dispose(bool) {{.*}}cxx_freed.cpp:
      // CHECK-cxx_engine_dispose: created by LLVMAddFunction on thread T0:
      // CHECK-cxx_engine_dispose-NEXT: #0 {{.*}} in add_function({{.*}}cxx_freed.cpp:
      // CHECK-cxx_engine_dispose: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "jitted" -> function @answer{{$}}
      // CHECK-cxx_engine_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}cxx_freed.cpp:{{[0-9]+}}:{{[0-9]+}} in case_engine_dispose(bool){{$}}
    }
    printf("engine_dispose: returned %.*s\n", (int)len, name ? name : "");
  }
  printf("engine_dispose: LLVMContextDispose\n");
  LLVMContextDispose(c);
  release(reused);
  printf("engine_dispose: done\n");
  return 0;
}

// The bitcode of a module with one function, `name`.
static std::string library_bitcode(const char *name) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, c);
  add_function(m, c, name);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  std::string bytes(LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
  LLVMDisposeMemoryBuffer(bc);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return bytes;
}

// The module owns the buffer it is loaded from: a fresh copy each time.
static LLVMModuleRef load_lazily(LLVMContextRef c, const std::string &bytes) {
  LLVMMemoryBufferRef bc = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      bytes.data(), bytes.size(), "library.bc");
  LLVMModuleRef m = nullptr;
  if (LLVMGetBitcodeModuleInContext2(c, bc, &m))
    return nullptr;
  return m;
}

// The inliner's side, in C++: links the first library into the main module
// (the linker moves it and deletes it) and caches the rest until the cache
// is cleared.
__attribute__((noinline)) static bool
inline_in_cxx(LLVMModuleRef main_module, std::vector<LLVMModuleRef> loaded) {
  std::vector<std::unique_ptr<llvm::Module>> cache;
  for (LLVMModuleRef m : loaded)
    cache.emplace_back(llvm::unwrap(m));
  if (llvm::Linker::linkModules(*llvm::unwrap(main_module),
                                std::move(cache.front())))
    return false;
  cache.clear();
  return true;
}

static int case_bitcode_owned() {
  const std::string libs[3] = {library_bitcode("lib0"), library_bitcode("lib1"),
                               library_bitcode("lib2")};
  for (int query = 0; query < 100; ++query) {
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef main_module = LLVMModuleCreateWithNameInContext("query", c);
    add_function(main_module, c, "query");
    std::vector<LLVMModuleRef> loaded;
    for (const std::string &bytes : libs)
      loaded.push_back(load_lazily(c, bytes));
    if (!loaded[0] || !loaded[1] || !loaded[2])
      return 1;
    // A function of the module the linker will move away (materialized).
    LLVMValueRef lib_fn = LLVMGetNamedFunction(loaded[0], "lib0");
    if (!inline_in_cxx(main_module, loaded))
      return 1;
    std::vector<void *> reused = reuse_module_memory();
    if (!fixed && query == 99) {
      size_t len = 0;
      printf("bitcode_owned: LLVMGetValueName2\n");
      const char *name = LLVMGetValueName2(lib_fn, &len);
      // CHECK-cxx_bitcode_owned: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[F:0x[0-9a-f]+]] (function @lib0 in module "library.bc"){{$}}
      // CHECK-cxx_bitcode_owned-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
      // CHECK-cxx_bitcode_owned-NEXT: #0 {{.*}} in case_bitcode_owned() {{.*}}cxx_freed.cpp:[[@LINE-3]]:
      // CHECK-cxx_bitcode_owned: freed outside any LLVM-C call on thread T0:
      // CHECK-cxx_bitcode_owned-NEXT: #0 {{.*}} in inline_in_cxx({{.*}}cxx_freed.cpp:
      // CHECK-cxx_bitcode_owned: created by LLVMGetNamedFunction on thread T0:
      // CHECK-cxx_bitcode_owned-NEXT: #0 {{.*}} in case_bitcode_owned() {{.*}}cxx_freed.cpp:
      // CHECK-cxx_bitcode_owned: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "library.bc" -> function @lib0{{$}}
      // CHECK-cxx_bitcode_owned-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}cxx_freed.cpp:{{[0-9]+}}:{{[0-9]+}} in case_bitcode_owned(){{$}}
      printf("bitcode_owned: returned %.*s\n", (int)len, name ? name : "");
    }
    LLVMDisposeModule(main_module);
    LLVMContextDispose(c);
    release(reused);
  }
  printf("bitcode_owned: 100 queries done\n");
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 2) {
    fprintf(stderr, "usage: cxx_freed CASE [--fixed]\n");
    return 2;
  }
  fixed = argc > 2 && !strcmp(argv[2], "--fixed");
  if (!strcmp(argv[1], "cxx_engine_dispose"))
    return case_engine_dispose(/*use_module=*/false);
  if (!strcmp(argv[1], "cxx_engine_dispose_module"))
    return case_engine_dispose(/*use_module=*/true);
  if (!strcmp(argv[1], "cxx_bitcode_owned"))
    return case_bitcode_owned();
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
