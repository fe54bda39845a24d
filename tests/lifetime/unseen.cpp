//===- unseen.cpp - Objects the program gets from LLVM's C++ API ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: unseen CASE [--fixed]
//
// A binding with a C++ part of its own (llvmlite's libllvmlite, say) makes
// some objects with LLVM's C++ API and hands them to LLVM-C calls as wrapped
// handles: ownsan never saw them handed out. When an LLVM-C call frees or
// takes such an object, ownsan adopts it as the C type of the argument the
// spec's effect names, so a later use of the handle is still reported.
//
//   unseen_dispose_module  a module made with `new llvm::Module`, disposed with
//                          LLVMDisposeModule, then LLVMGetModuleIdentifier
//                          on it.
//   unseen_consume_buffer  a buffer made with MemoryBuffer::getMemBufferCopy,
//                          taken by LLVMParseIRInContext, then
//                          LLVMGetBufferSize on it.
//
// With --fixed the last use is left out (the run must be clean).
//
//===----------------------------------------------------------------------===//

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdio>
#include <cstring>

static bool fixed = false;

__attribute__((noinline)) static LLVMModuleRef
make_unseen_module(LLVMContextRef c) {
  return llvm::wrap(new llvm::Module("unseen", *llvm::unwrap(c)));
}

__attribute__((noinline)) static LLVMMemoryBufferRef make_unseen_buffer() {
  return llvm::wrap(llvm::MemoryBuffer::getMemBufferCopy(
                        "define void @g() {\n  ret void\n}\n", "unseen.ll")
                        .release());
}

static int case_dispose_module() {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = make_unseen_module(c);
  printf("dispose_module: LLVMDisposeModule\n");
  LLVMDisposeModule(m);
  if (!fixed) {
    size_t len = 0;
    printf("dispose_module: LLVMGetModuleIdentifier\n");
    const char *id = LLVMGetModuleIdentifier(m, &len);
    // CHECK-unseen_dispose_module: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef [[M:0x[0-9a-f]+]] (module "unseen"){{$}}
    // CHECK-unseen_dispose_module-NEXT: passed as argument 1 of LLVMGetModuleIdentifier on thread T0:
    // CHECK-unseen_dispose_module-NEXT: #0 {{.*}} in case_dispose_module() {{.*}}unseen.cpp:[[@LINE-3]]:
    // CHECK-unseen_dispose_module: freed by LLVMDisposeModule(module "unseen") on thread T0:
    // CHECK-unseen_dispose_module-NEXT: #0 {{.*}} in case_dispose_module() {{.*}}unseen.cpp:
    // CHECK-unseen_dispose_module: created outside the LLVM-C API (first seen in a call to LLVMDisposeModule)
    // CHECK-unseen_dispose_module-NEXT: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "unseen"{{$}}
    // CHECK-unseen_dispose_module-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier {{.*}}unseen.cpp:{{[0-9]+}}:{{[0-9]+}} in case_dispose_module(){{$}}
    // JSON-unseen_dispose_module: "kind":"use-after-free",{{.*}}"create":null,{{.*}}"first_seen_in":"LLVMDisposeModule"
    printf("dispose_module: returned %.*s\n", (int)len, id ? id : "");
  }
  LLVMContextDispose(c);
  return 0;
}

static int case_consume_buffer() {
  LLVMContextRef c = LLVMContextCreate();
  LLVMMemoryBufferRef b = make_unseen_buffer();
  LLVMModuleRef m = nullptr;
  char *msg = nullptr;
  printf("consume_buffer: LLVMParseIRInContext\n");
  if (LLVMParseIRInContext(c, b, &m, &msg)) {
    printf("consume_buffer: parse failed: %s\n", msg);
    LLVMDisposeMessage(msg);
    return 1;
  }
  if (!fixed) {
    printf("consume_buffer: LLVMGetBufferSize\n");
    printf("consume_buffer: returned %zu\n", LLVMGetBufferSize(b));
    // CHECK-unseen_consume_buffer: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef [[B:0x[0-9a-f]+]] (memory buffer [[B]]){{$}}
    // CHECK-unseen_consume_buffer-NEXT: passed as argument 1 of LLVMGetBufferSize on thread T0:
    // CHECK-unseen_consume_buffer-NEXT: #0 {{.*}} in case_consume_buffer() {{.*}}unseen.cpp:[[@LINE-3]]:
    // CHECK-unseen_consume_buffer: consumed by LLVMParseIRInContext(memory buffer [[B]]) on thread T0:
    // CHECK-unseen_consume_buffer-NEXT: #0 {{.*}} in case_consume_buffer() {{.*}}unseen.cpp:
    // CHECK-unseen_consume_buffer: created outside the LLVM-C API (first seen in a call to LLVMParseIRInContext)
    // CHECK-unseen_consume_buffer-NEXT: ownership chain when freed: memory buffer [[B]]{{$}}
    // CHECK-unseen_consume_buffer-NEXT: SUMMARY: OwnSan: use-after-consume in LLVMGetBufferSize {{.*}}unseen.cpp:{{[0-9]+}}:{{[0-9]+}} in case_consume_buffer(){{$}}
    // JSON-unseen_consume_buffer: "kind":"use-after-consume",{{.*}}"create":null,{{.*}}"first_seen_in":"LLVMParseIRInContext"
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 2) {
    fprintf(stderr, "usage: unseen CASE [--fixed]\n");
    return 2;
  }
  fixed = argc > 2 && !strcmp(argv[2], "--fixed");
  if (!strcmp(argv[1], "unseen_dispose_module"))
    return case_dispose_module();
  if (!strcmp(argv[1], "unseen_consume_buffer"))
    return case_consume_buffer();
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
