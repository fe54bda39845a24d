/*===- spec_cases.c - one correct use and one misuse per spec entry --------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: spec_cases CASE ok|bad
 *
 * Every case exercises the rule of one (or a few) entries of
 * src/profiles/llvm_c/ownership.spec against the real libLLVM. `ok` uses the
 *API correctly and must run silently under ownsan with the same stdout as
 * without it; `bad` ends with one misuse that ownsan must report (it is only
 * run under ownsan: without it the misuse is undefined behaviour).
 *
 * A case is written once, here (or in orc_cases.inc): CASE(NAME) and its
 * code, a COVERS-NAME line before it naming the spec functions whose rule
 * it exercises (tests/spec/check_spec.py fails on a spec entry of the LLVM
 * version that no case covers), and CHECK-NAME lines (FileCheck) after the
 * misuse, or after the call of the helper that makes it, for the report
 * the bad run must give; docs/testing.md.
 *
 * A case that does not exist in this LLVM version exits 77; one whose
 * prerequisites are missing (no X86 target) prints why and exits 77 too.
 *===----------------------------------------------------------------------===*/
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Remarks.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR <= 16
#include <llvm-c/Transforms/PassManagerBuilder.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_NOT_AVAILABLE = 77 };

static void say(const char *what) {
  printf("%s\n", what);
  fflush(stdout);
}

/* ---- the module every IR case starts from ---------------------------------
 *   define void @foo(i32 %x) { entry: %sum = add i32 %x, 1  ret void }     */
struct ir {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTypeRef i32, fn_type;
  LLVMValueRef fn, sum, ret;
  LLVMBasicBlockRef entry;
  LLVMBuilderRef b;
};

static struct ir make_ir(const char *name) {
  struct ir t;
  t.ctx = LLVMContextCreate();
  t.mod = LLVMModuleCreateWithNameInContext(name, t.ctx);
  t.i32 = LLVMInt32TypeInContext(t.ctx);
  t.fn_type = LLVMFunctionType(LLVMVoidTypeInContext(t.ctx), &t.i32, 1, 0);
  t.fn = LLVMAddFunction(t.mod, "foo", t.fn_type);
  t.entry = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "entry");
  t.b = LLVMCreateBuilderInContext(t.ctx);
  LLVMPositionBuilderAtEnd(t.b, t.entry);
  t.sum = LLVMBuildAdd(t.b, LLVMGetParam(t.fn, 0), LLVMConstInt(t.i32, 1, 0),
                       "sum");
  t.ret = LLVMBuildRetVoid(t.b);
  return t;
}

static void drop_ir(struct ir *t) {
  LLVMDisposeBuilder(t->b);
  LLVMDisposeModule(t->mod);
  LLVMContextDispose(t->ctx);
}

/* A module with `define i32 @main() { ret i32 7 }` and a global @g. */
static LLVMModuleRef make_main_module(LLVMContextRef ctx, const char *name) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f =
      LLVMAddFunction(m, "main", LLVMFunctionType(i32, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMBuildRet(b, LLVMConstInt(i32, 7, 0));
  LLVMDisposeBuilder(b);
  LLVMValueRef g = LLVMAddGlobal(m, i32, "g");
  LLVMSetInitializer(g, LLVMConstInt(i32, 1, 0));
  return m;
}

static int have_x86(void) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  return 1;
}

static LLVMTargetMachineRef make_tm(void) {
  have_x86();
  LLVMTargetRef t;
  char *err = NULL;
  if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &t, &err)) {
    printf("no x86 target: %s\n", err);
    LLVMDisposeMessage(err);
    exit(EXIT_NOT_AVAILABLE);
  }
  return LLVMCreateTargetMachine(t, "x86_64-pc-linux-gnu", "generic", "",
                                 LLVMCodeGenLevelNone, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
}

/* Adds `void NAME(void) { [callee();] }` to m. */
static LLVMValueRef add_void_function(LLVMModuleRef m, const char *name,
                                      LLVMValueRef callee) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(m, name, vt);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  if (callee)
    LLVMBuildCall2(b, vt, callee, NULL, 0, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return f;
}

/* An ELF object defining `void NAME(void)`; with call_ext it calls an
 * external function `ext` (one relocation). */
static LLVMMemoryBufferRef emit_object(LLVMTargetMachineRef tm,
                                       const char *name, int call_ext) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("obj", ctx);
  LLVMValueRef ext = NULL;
  if (call_ext)
    ext = LLVMAddFunction(
        m, "ext", LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
  add_void_function(m, name, ext);
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &err, &buf)) {
    printf("emit failed: %s\n", err);
    exit(1);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return buf;
}

/* An ELF object with a call to an external function (one relocation). */
static LLVMMemoryBufferRef make_object(LLVMTargetMachineRef tm) {
  return emit_object(tm, "f", 1);
}

/* ---- cases ----------------------------------------------------------------
 * CASE(NAME) defines case_NAME and registers it before main() runs, so no
 * list repeats the cases. */
struct entry {
  const char *name;
  int (*fn)(int bad);
};
enum { kMaxCases = 256 };
static struct entry cases[kMaxCases];
static size_t num_cases;
static void add_case(const char *name, int (*fn)(int bad)) {
  if (num_cases == kMaxCases) {
    fprintf(stderr, "spec_cases: more than %d cases\n", kMaxCases);
    abort();
  }
  cases[num_cases].name = name;
  cases[num_cases].fn = fn;
  ++num_cases;
}
#define CASE(name)                                                             \
  static int case_##name(int bad);                                             \
  __attribute__((constructor)) static void register_##name(void) {             \
    add_case(#name, case_##name);                                              \
  }                                                                            \
  static int case_##name(int bad)

/* Disposers: ok disposes once; bad disposes twice (double-free) or uses. */
// COVERS-context_dispose: LLVMContextDispose
CASE(context_dispose) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMContextDispose(context)");
  LLVMContextDispose(t.ctx); /* frees the module too */
  if (bad) {
    say("LLVMGetModuleIdentifier(module)");
    size_t n;
    LLVMGetModuleIdentifier(t.mod, &n);
    // CHECK-context_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "m"){{$}}
    // CHECK-context_dispose-NEXT: passed as argument 1 of LLVMGetModuleIdentifier on thread T0:
    // CHECK-context_dispose: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
    // CHECK-context_dispose: SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier (
  }
  return 0;
}
// COVERS-module_dispose: LLVMDisposeModule
CASE(module_dispose) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMDisposeModule(module)");
  LLVMDisposeModule(t.mod);
  if (bad) {
    say("LLVMDisposeModule(module) again");
    LLVMDisposeModule(t.mod);
    // CHECK-module_dispose: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "m"){{$}}
    // CHECK-module_dispose-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-module_dispose: freed by LLVMDisposeModule(module "m") on thread T0:
    // CHECK-module_dispose: SUMMARY: OwnSan: double-free in LLVMDisposeModule (
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
// COVERS-module_provider: LLVMDisposeModuleProvider
CASE(module_provider) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  LLVMModuleProviderRef mp = LLVMCreateModuleProviderForExistingModule(t.mod);
  say("LLVMDisposeModuleProvider(provider)");
  LLVMDisposeModuleProvider(mp);
  if (bad) {
    say("LLVMDisposeModule(module) after its provider");
    LLVMDisposeModule(t.mod);
    // CHECK-module_provider: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "m"){{$}}
    // CHECK-module_provider-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-module_provider: freed by LLVMDisposeModuleProvider(module "m") on thread T0:
    // CHECK-module_provider: SUMMARY: OwnSan: double-free in LLVMDisposeModule (
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
// COVERS-builder_dispose: LLVMDisposeBuilder
CASE(builder_dispose) {
  struct ir t = make_ir("m");
  say("LLVMDisposeBuilder(builder)");
  LLVMDisposeBuilder(t.b);
  if (bad) {
    say("LLVMDisposeBuilder(builder) again");
    LLVMDisposeBuilder(t.b);
    // CHECK-builder_dispose: ==[[PID]]==ERROR: OwnSan: double-free on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
    // CHECK-builder_dispose-NEXT: passed as argument 1 of LLVMDisposeBuilder on thread T0:
    // CHECK-builder_dispose: freed by LLVMDisposeBuilder(builder {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-builder_dispose: SUMMARY: OwnSan: double-free in LLVMDisposeBuilder (
  }
  LLVMDisposeModule(t.mod);
  LLVMContextDispose(t.ctx);
  return 0;
}
// COVERS-memory_buffer_dispose: LLVMDisposeMemoryBuffer
CASE(memory_buffer_dispose) {
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("abc", 3, "buf");
  say("LLVMDisposeMemoryBuffer(buffer)");
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    say("LLVMGetBufferSize(buffer)");
    LLVMGetBufferSize(buf);
    // CHECK-memory_buffer_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-memory_buffer_dispose-NEXT: passed as argument 1 of LLVMGetBufferSize on thread T0:
    // CHECK-memory_buffer_dispose: freed by LLVMDisposeMemoryBuffer(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-memory_buffer_dispose: SUMMARY: OwnSan: use-after-free in LLVMGetBufferSize (
  }
  return 0;
}

/* Deleting IR objects. */
// COVERS-delete_function: LLVMDeleteFunction
CASE(delete_function) {
  struct ir t = make_ir("m");
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(entry)");
    LLVMGetBasicBlockName(t.entry);
    // CHECK-delete_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %entry of function @foo in module "m"){{$}}
    // CHECK-delete_function-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-delete_function: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-delete_function: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-delete_global: LLVMDeleteGlobal
CASE(delete_global) {
  struct ir t = make_ir("m");
  LLVMValueRef g = LLVMAddGlobal(t.mod, t.i32, "g");
  say("LLVMDeleteGlobal(@g)");
  LLVMDeleteGlobal(g);
  if (bad) {
    say("LLVMGetInitializer(@g)");
    LLVMGetInitializer(g);
    // CHECK-delete_global: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (global @g in module "m"){{$}}
    // CHECK-delete_global-NEXT: passed as argument 1 of LLVMGetInitializer on thread T0:
    // CHECK-delete_global: freed by LLVMDeleteGlobal(global @g in module "m") on thread T0:
    // CHECK-delete_global: SUMMARY: OwnSan: use-after-free in LLVMGetInitializer (
  }
  drop_ir(&t);
  return 0;
}
static LLVMValueRef make_ifunc(struct ir *t) {
  LLVMTypeRef ptr = LLVMPointerType(t->fn_type, 0);
  LLVMValueRef resolver =
      LLVMAddFunction(t->mod, "resolver", LLVMFunctionType(ptr, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(t->ctx);
  LLVMPositionBuilderAtEnd(
      b, LLVMAppendBasicBlockInContext(t->ctx, resolver, "e"));
  LLVMBuildRet(b, t->fn);
  LLVMDisposeBuilder(b);
  return LLVMAddGlobalIFunc(t->mod, "ifn", 3, t->fn_type, 0, resolver);
}
// COVERS-erase_global_ifunc: LLVMEraseGlobalIFunc
CASE(erase_global_ifunc) {
  struct ir t = make_ir("m");
  LLVMValueRef ifn = make_ifunc(&t);
  say("LLVMEraseGlobalIFunc(@ifn)");
  LLVMEraseGlobalIFunc(ifn);
  if (bad) {
    say("LLVMGetGlobalIFuncResolver(@ifn)");
    LLVMGetGlobalIFuncResolver(ifn);
    // CHECK-erase_global_ifunc: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (ifunc @ifn in module "m"){{$}}
    // CHECK-erase_global_ifunc-NEXT: passed as argument 1 of LLVMGetGlobalIFuncResolver on thread T0:
    // CHECK-erase_global_ifunc: freed by LLVMEraseGlobalIFunc(ifunc @ifn in module "m") on thread T0:
    // CHECK-erase_global_ifunc: SUMMARY: OwnSan: use-after-free in LLVMGetGlobalIFuncResolver (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-remove_global_ifunc: LLVMRemoveGlobalIFunc
CASE(remove_global_ifunc) {
  struct ir t = make_ir("m");
  LLVMValueRef ifn = make_ifunc(&t);
  say("LLVMRemoveGlobalIFunc(@ifn)");
  LLVMRemoveGlobalIFunc(
      ifn); /* the caller owns it now; it outlives the module */
  /* Erased while its context lives: a detached value's name is kept in its
   * context, which the report reads. */
  if (bad) {
    say("LLVMEraseGlobalIFunc(@ifn) on a detached ifunc");
    LLVMEraseGlobalIFunc(ifn);
    // CHECK-remove_global_ifunc: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMValueRef {{0x[0-9a-f]+}} (ifunc @ifn){{$}}
    // CHECK-remove_global_ifunc-NEXT: LLVMEraseGlobalIFunc needs global ifuncs that are in a module; this one is detached
    // CHECK-remove_global_ifunc-NEXT: passed as argument 1 of LLVMEraseGlobalIFunc on thread T0:
    // CHECK-remove_global_ifunc: SUMMARY: OwnSan: invalid-free in LLVMEraseGlobalIFunc (
  }
  drop_ir(&t);
  return 0;
}
/* A value that LLVM frees by itself (its block is deleted) is reported by
 * the name it had last: the name is gone from its memory by then. */
static int rename_case(int bad, int with_length) {
  struct ir t = make_ir("m");
  if (with_length) {
    say("LLVMSetValueName2(%sum, \"total\")");
    LLVMSetValueName2(t.sum, "total", 5);
  } else {
    say("LLVMSetValueName(%sum, \"total\")");
    LLVMSetValueName(t.sum, "total");
  }
  say("LLVMDeleteBasicBlock(entry): %total dies with it");
  LLVMDeleteBasicBlock(t.entry);
  if (bad) {
    say("LLVMGetInstructionOpcode(%total)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}
/* A module renamed through the C API is reported under its new name. */
// COVERS-set_module_identifier: LLVMSetModuleIdentifier
CASE(set_module_identifier) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMSetModuleIdentifier(module, \"renamed\")");
  LLVMSetModuleIdentifier(t.mod, "renamed", 7);
  LLVMDisposeModule(t.mod);
  if (bad) {
    say("LLVMGetModuleIdentifier(module)");
    size_t n;
    LLVMGetModuleIdentifier(t.mod, &n);
    // CHECK-set_module_identifier: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "renamed"){{$}}
    // CHECK-set_module_identifier-NEXT: passed as argument 1 of LLVMGetModuleIdentifier on thread T0:
    // CHECK-set_module_identifier: freed by LLVMDisposeModule(module "renamed") on thread T0:
    // CHECK-set_module_identifier: SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier (
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
/* A lazy bitcode module owns its buffer: disposing it too is a misuse. */
// COVERS-get_bitcode_module: LLVMGetBitcodeModuleInContext2
CASE(get_bitcode_module) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(t.mod);
  LLVMDisposeModule(t.mod);
  LLVMModuleRef lazy = NULL;
  say("LLVMGetBitcodeModuleInContext2(context, buffer)");
  if (LLVMGetBitcodeModuleInContext2(t.ctx, bc, &lazy))
    return 1;
  if (bad) {
    say("LLVMDisposeMemoryBuffer(buffer)");
    LLVMDisposeMemoryBuffer(bc);
    // CHECK-get_bitcode_module: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-get_bitcode_module-NEXT: passed as argument 1 of LLVMDisposeMemoryBuffer on thread T0:
    // CHECK-get_bitcode_module: consumed by LLVMGetBitcodeModuleInContext2(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-get_bitcode_module: SUMMARY: OwnSan: use-after-consume in LLVMDisposeMemoryBuffer (
  }
  LLVMDisposeModule(lazy);
  LLVMContextDispose(t.ctx);
  return 0;
}
// COVERS-set_value_name2: LLVMSetValueName2
CASE(set_value_name2) { return rename_case(bad, 1); }
// CHECK-set_value_name2: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %total in block %entry of function @foo in module "m"){{$}}
// CHECK-set_value_name2-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
// CHECK-set_value_name2: freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
// CHECK-set_value_name2: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (
// COVERS-set_value_name: LLVMSetValueName
CASE(set_value_name) { return rename_case(bad, 0); }
// CHECK-set_value_name: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %total in block %entry of function @foo in module "m"){{$}}
// CHECK-set_value_name-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
// CHECK-set_value_name: freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
// CHECK-set_value_name: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (
// COVERS-delete_basic_block: LLVMDeleteBasicBlock
CASE(delete_basic_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  say("LLVMDeleteBasicBlock(other)");
  LLVMDeleteBasicBlock(other);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
    // CHECK-delete_basic_block: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %other of function @foo in module "m"){{$}}
    // CHECK-delete_basic_block-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-delete_basic_block: freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0:
    // CHECK-delete_basic_block: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-instruction_erase: LLVMInstructionEraseFromParent
CASE(instruction_erase) {
  struct ir t = make_ir("m");
  say("LLVMInstructionEraseFromParent(%sum)");
  LLVMInstructionEraseFromParent(t.sum);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
    // CHECK-instruction_erase: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %sum in block %entry of function @foo in module "m"){{$}}
    // CHECK-instruction_erase-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
    // CHECK-instruction_erase: freed by LLVMInstructionEraseFromParent(instruction %sum in block %entry of function @foo in module "m") on thread T0:
    // CHECK-instruction_erase: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-delete_instruction: LLVMDeleteInstruction
CASE(delete_instruction) {
#if LLVM_VERSION_MAJOR >= 15
  struct ir t = make_ir("m");
  if (!bad) {
    say("LLVMInstructionRemoveFromParent(%sum)");
    LLVMInstructionRemoveFromParent(t.sum);
  }
  say("LLVMDeleteInstruction(%sum)");
  LLVMDeleteInstruction(t.sum);
  // CHECK-delete_instruction: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %sum in block %entry of function @foo in module "m"){{$}}
  // CHECK-delete_instruction-NEXT: LLVMDeleteInstruction frees only detached instructions; this one is still in block %entry
  // CHECK-delete_instruction-NEXT: passed as argument 1 of LLVMDeleteInstruction on thread T0:
  // CHECK-delete_instruction: SUMMARY: OwnSan: invalid-free in LLVMDeleteInstruction (
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* Detaching and re-attaching. */
// COVERS-remove_block: LLVMDeleteBasicBlock LLVMRemoveBasicBlockFromParent
CASE(remove_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  say("LLVMRemoveBasicBlockFromParent(other)");
  LLVMRemoveBasicBlockFromParent(other);
  if (bad) {
    say("LLVMDeleteBasicBlock(other) on a detached block");
    LLVMDeleteBasicBlock(other);
    // CHECK-remove_block: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %other){{$}}
    // CHECK-remove_block-NEXT: LLVMDeleteBasicBlock needs blocks that are in a function; this one is detached
    // CHECK-remove_block-NEXT: passed as argument 1 of LLVMDeleteBasicBlock on thread T0:
    // CHECK-remove_block: SUMMARY: OwnSan: invalid-free in LLVMDeleteBasicBlock (
  }
  say("LLVMAppendExistingBasicBlock(@foo, other)");
  LLVMAppendExistingBasicBlock(t.fn, other);
  drop_ir(&t);
  return 0;
}
// COVERS-remove_instruction: LLVMInstructionEraseFromParent LLVMInstructionRemoveFromParent
CASE(remove_instruction) {
  struct ir t = make_ir("m");
  say("LLVMInstructionRemoveFromParent(%sum)");
  LLVMInstructionRemoveFromParent(t.sum);
  if (bad) {
    say("LLVMInstructionEraseFromParent(%sum) on a detached instruction");
    LLVMInstructionEraseFromParent(t.sum);
    // CHECK-remove_instruction: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %sum){{$}}
    // CHECK-remove_instruction-NEXT: LLVMInstructionEraseFromParent needs instructions that are in a block; this one is detached
    // CHECK-remove_instruction-NEXT: passed as argument 1 of LLVMInstructionEraseFromParent on thread T0:
    // CHECK-remove_instruction: SUMMARY: OwnSan: invalid-free in LLVMInstructionEraseFromParent (
  }
  LLVMPositionBuilderBefore(t.b, t.ret);
  LLVMInsertIntoBuilder(t.b, t.sum);
  drop_ir(&t);
  return 0;
}
// COVERS-append_existing_block: LLVMAppendExistingBasicBlock
CASE(append_existing_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMRemoveBasicBlockFromParent(other);
  say("LLVMAppendExistingBasicBlock(@foo, other)");
  LLVMAppendExistingBasicBlock(t.fn, other);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
    // CHECK-append_existing_block: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %other of function @foo in module "m"){{$}}
    // CHECK-append_existing_block-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-append_existing_block: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-append_existing_block: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-insert_existing_block: LLVMInsertExistingBasicBlockAfterInsertBlock
CASE(insert_existing_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMRemoveBasicBlockFromParent(other);
  LLVMPositionBuilderAtEnd(t.b, t.entry);
  say("LLVMInsertExistingBasicBlockAfterInsertBlock(builder, other)");
  LLVMInsertExistingBasicBlockAfterInsertBlock(t.b, other);
  LLVMClearInsertionPosition(t.b);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
    // CHECK-insert_existing_block: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %other of block %entry of function @foo in module "m"){{$}}
    // CHECK-insert_existing_block-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-insert_existing_block: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-insert_existing_block: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName (
  }
  drop_ir(&t);
  return 0;
}
static int insert_into_builder(int bad, int with_name) {
  struct ir t = make_ir("m");
  LLVMInstructionRemoveFromParent(t.sum);
  LLVMPositionBuilderBefore(t.b, t.ret);
  if (with_name) {
    say("LLVMInsertIntoBuilderWithName(builder, %sum, \"s\")");
    LLVMInsertIntoBuilderWithName(t.b, t.sum, "s");
  } else {
    say("LLVMInsertIntoBuilder(builder, %sum)");
    LLVMInsertIntoBuilder(t.b, t.sum);
  }
  LLVMClearInsertionPosition(t.b);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}
// COVERS-insert_into_builder: LLVMInsertIntoBuilder
CASE(insert_into_builder) { return insert_into_builder(bad, 0); }
// CHECK-insert_into_builder: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction <unnamed> in block %entry of function @foo in module "m"){{$}}
// CHECK-insert_into_builder-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
// CHECK-insert_into_builder: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
// CHECK-insert_into_builder: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (
// COVERS-insert_into_builder_with_name: LLVMInsertIntoBuilderWithName
CASE(insert_into_builder_with_name) { return insert_into_builder(bad, 1); }
// CHECK-insert_into_builder_with_name: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %s in block %entry of function @foo in module "m"){{$}}
// CHECK-insert_into_builder_with_name-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
// CHECK-insert_into_builder_with_name: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
// CHECK-insert_into_builder_with_name: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (

/* Out arrays: the handles written into the array are tracked. */
// COVERS-get_params: LLVMGetParams
CASE(get_params) {
  struct ir t = make_ir("m");
  LLVMValueRef params[1];
  say("LLVMGetParams(@foo, params)");
  LLVMGetParams(t.fn, params);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMTypeOf(params[0])");
    LLVMTypeOf(params[0]);
    // CHECK-get_params: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (argument <unnamed> of function @foo in module "m"){{$}}
    // CHECK-get_params-NEXT: passed as argument 1 of LLVMTypeOf on thread T0:
    // CHECK-get_params: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-get_params: SUMMARY: OwnSan: use-after-free in LLVMTypeOf (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-get_basic_blocks: LLVMGetBasicBlocks
CASE(get_basic_blocks) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef blocks[1];
  say("LLVMGetBasicBlocks(@foo, blocks)");
  LLVMGetBasicBlocks(t.fn, blocks);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(blocks[0])");
    LLVMGetBasicBlockName(blocks[0]);
    // CHECK-get_basic_blocks: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %entry of function @foo in module "m"){{$}}
    // CHECK-get_basic_blocks-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-get_basic_blocks: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-get_basic_blocks: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName (
  }
  drop_ir(&t);
  return 0;
}
/* Types live in their context: use after LLVMContextDispose. */
static int type_array_case(int bad, int which) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef i16 = LLVMInt16TypeInContext(ctx);
  LLVMTypeRef elems[2] = {i32, i16};
  LLVMTypeRef out[2];
  if (which == 0) {
    say("LLVMGetParamTypes(void (i32, i16), out)");
    LLVMGetParamTypes(LLVMFunctionType(LLVMVoidTypeInContext(ctx), elems, 2, 0),
                      out);
  } else if (which == 1) {
    say("LLVMGetStructElementTypes({i32, i16}, out)");
    LLVMGetStructElementTypes(LLVMStructTypeInContext(ctx, elems, 2, 0), out);
  } else {
    say("LLVMGetSubtypes({i32, i16}, out)");
    LLVMGetSubtypes(LLVMStructTypeInContext(ctx, elems, 2, 0), out);
  }
  say("LLVMContextDispose(context)");
  LLVMContextDispose(ctx);
  if (bad) {
    say("LLVMGetTypeKind(out[1])");
    LLVMGetTypeKind(out[1]);
  }
  return 0;
}
// COVERS-get_param_types: LLVMGetParamTypes
CASE(get_param_types) { return type_array_case(bad, 0); }
// CHECK-get_param_types: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef {{0x[0-9a-f]+}} (type i16){{$}}
// CHECK-get_param_types-NEXT: passed as argument 1 of LLVMGetTypeKind on thread T0:
// CHECK-get_param_types: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
// CHECK-get_param_types: SUMMARY: OwnSan: use-after-free in LLVMGetTypeKind (
// COVERS-get_struct_element_types: LLVMGetStructElementTypes
CASE(get_struct_element_types) { return type_array_case(bad, 1); }
// CHECK-get_struct_element_types: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef {{0x[0-9a-f]+}} (type i16){{$}}
// CHECK-get_struct_element_types-NEXT: passed as argument 1 of LLVMGetTypeKind on thread T0:
// CHECK-get_struct_element_types: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
// CHECK-get_struct_element_types: SUMMARY: OwnSan: use-after-free in LLVMGetTypeKind (
// COVERS-get_subtypes: LLVMGetSubtypes
CASE(get_subtypes) { return type_array_case(bad, 2); }
// CHECK-get_subtypes: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef {{0x[0-9a-f]+}} (type i16){{$}}
// CHECK-get_subtypes-NEXT: passed as argument 1 of LLVMGetTypeKind on thread T0:
// CHECK-get_subtypes: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
// CHECK-get_subtypes: SUMMARY: OwnSan: use-after-free in LLVMGetTypeKind (
// COVERS-get_md_node_operands: LLVMGetMDNodeOperands
CASE(get_md_node_operands) {
  struct ir t = make_ir("m");
  LLVMValueRef ops[2] = {LLVMConstInt(t.i32, 5, 0),
                         LLVMMDStringInContext(t.ctx, "s", 1)};
  LLVMValueRef node = LLVMMDNodeInContext(t.ctx, ops, 2);
  LLVMValueRef out[2];
  say("LLVMGetMDNodeOperands(node, out)");
  LLVMGetMDNodeOperands(node, out);
  drop_ir(&t);
  if (bad) {
    say("LLVMTypeOf(out[0])");
    LLVMTypeOf(out[0]);
    // CHECK-get_md_node_operands: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (constant {{0x[0-9a-f]+}}){{$}}
    // CHECK-get_md_node_operands-NEXT: passed as argument 1 of LLVMTypeOf on thread T0:
    // CHECK-get_md_node_operands: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
    // CHECK-get_md_node_operands: SUMMARY: OwnSan: use-after-free in LLVMTypeOf (
  }
  return 0;
}
// COVERS-get_named_metadata_operands: LLVMGetNamedMetadataOperands
CASE(get_named_metadata_operands) {
  struct ir t = make_ir("m");
  LLVMValueRef ops[1] = {LLVMMDStringInContext(t.ctx, "s", 1)};
  LLVMAddNamedMetadataOperand(t.mod, "nm", LLVMMDNodeInContext(t.ctx, ops, 1));
  LLVMValueRef out[1];
  say("LLVMGetNamedMetadataOperands(module, \"nm\", out)");
  LLVMGetNamedMetadataOperands(t.mod, "nm", out);
  drop_ir(&t);
  if (bad) {
    say("LLVMGetMDNodeNumOperands(out[0])");
    LLVMGetMDNodeNumOperands(out[0]);
    // CHECK-get_named_metadata_operands: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (value {{0x[0-9a-f]+}}){{$}}
    // CHECK-get_named_metadata_operands-NEXT: passed as argument 1 of LLVMGetMDNodeNumOperands on thread T0:
    // CHECK-get_named_metadata_operands: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, as a side effect of that call:
    // CHECK-get_named_metadata_operands: SUMMARY: OwnSan: use-after-free in LLVMGetMDNodeNumOperands (
  }
  return 0;
}

/* Builder positions: the insertion point dies with its block. */
static int position_case(int bad, int which) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMPositionBuilderAtEnd(t.b, other);
  LLVMValueRef inst = LLVMBuildRetVoid(t.b);
  switch (which) {
  case 0:
    say("LLVMPositionBuilder(builder, other, ret)");
    LLVMPositionBuilder(t.b, other, inst);
    break;
  case 1:
    say("LLVMPositionBuilderBefore(builder, ret)");
    LLVMPositionBuilderBefore(t.b, inst);
    break;
  case 2:
    say("LLVMPositionBuilderAtEnd(builder, other)");
    LLVMPositionBuilderAtEnd(t.b, other);
    break;
#if LLVM_VERSION_MAJOR >= 19
  case 4:
    say("LLVMPositionBuilderBeforeDbgRecords(builder, other, ret)");
    LLVMPositionBuilderBeforeDbgRecords(t.b, other, inst);
    break;
  case 5:
    say("LLVMPositionBuilderBeforeInstrAndDbgRecords(builder, ret)");
    LLVMPositionBuilderBeforeInstrAndDbgRecords(t.b, inst);
    break;
#endif
  default:
    break;
  }
  if (which == 3 || !bad) {
    /* LLVMClearInsertionPosition: the builder no longer points into `other` */
    say("LLVMClearInsertionPosition(builder)");
    LLVMClearInsertionPosition(t.b);
  }
  say("LLVMDeleteBasicBlock(other)");
  LLVMDeleteBasicBlock(other);
  if (bad && which != 3) {
    say("LLVMBuildUnreachable(builder)");
    LLVMBuildUnreachable(t.b);
  }
  if (which == 3) {
    if (bad) {
      say("LLVMPositionBuilderAtEnd(builder, other) after delete");
      LLVMPositionBuilderAtEnd(t.b, other);
      // CHECK-clear_insertion_position: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef {{0x[0-9a-f]+}} (block %other of function @foo in module "m"){{$}}
      // CHECK-clear_insertion_position-NEXT: passed as argument 2 of LLVMPositionBuilderAtEnd on thread T0:
      // CHECK-clear_insertion_position: freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0:
      // CHECK-clear_insertion_position: SUMMARY: OwnSan: use-after-free in LLVMPositionBuilderAtEnd (
    }
  }
  drop_ir(&t);
  return 0;
}
// COVERS-position_builder: LLVMPositionBuilder
CASE(position_builder) { return position_case(bad, 0); }
// CHECK-position_builder: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
// CHECK-position_builder-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is before a freed instruction; position the builder again first
// CHECK-position_builder-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
// CHECK-position_builder: its insertion point instruction <unnamed> in block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
// CHECK-position_builder: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
// COVERS-position_builder_before: LLVMPositionBuilderBefore
CASE(position_builder_before) { return position_case(bad, 1); }
// CHECK-position_builder_before: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
// CHECK-position_builder_before-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is before a freed instruction; position the builder again first
// CHECK-position_builder_before-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
// CHECK-position_builder_before: its insertion point instruction <unnamed> in block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
// CHECK-position_builder_before: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
// COVERS-position_builder_at_end: LLVMPositionBuilderAtEnd
CASE(position_builder_at_end) { return position_case(bad, 2); }
// CHECK-position_builder_at_end: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
// CHECK-position_builder_at_end-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is the end of a freed block; position the builder again first
// CHECK-position_builder_at_end-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
// CHECK-position_builder_at_end: its insertion point block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0:
// CHECK-position_builder_at_end: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
/* Two builders at one block: the one moved away before the block dies is
 * fine to use; the one left there is not (each builder's position is its
 * own, whatever else was or is at the block). */
// COVERS-two_builders_one_moved: LLVMPositionBuilderAtEnd
CASE(two_builders_one_moved) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMBuilderRef stays = LLVMCreateBuilderInContext(t.ctx);
  say("LLVMPositionBuilderAtEnd(builder, other), and a second builder");
  LLVMPositionBuilderAtEnd(t.b, other);
  LLVMPositionBuilderAtEnd(stays, other);
  LLVMBuildRetVoid(t.b);
  say("LLVMPositionBuilderAtEnd(builder, entry): the first moves away");
  LLVMPositionBuilderAtEnd(t.b, t.entry);
  if (!bad) {
    say("LLVMClearInsertionPosition(second builder)");
    LLVMClearInsertionPosition(stays);
  }
  say("LLVMDeleteBasicBlock(other)");
  LLVMDeleteBasicBlock(other);
  say("LLVMBuildUnreachable(builder): at the end of entry, fine");
  LLVMBuildUnreachable(t.b);
  if (bad) {
    say("LLVMBuildUnreachable(second builder)");
    LLVMBuildUnreachable(stays);
  }
  LLVMDisposeBuilder(stays);
  drop_ir(&t);
  return 0;
}
// CHECK-two_builders_one_moved: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
// CHECK-two_builders_one_moved-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is the end of a freed block; position the builder again first
// CHECK-two_builders_one_moved-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
// CHECK-two_builders_one_moved: its insertion point block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0:
// CHECK-two_builders_one_moved: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
// COVERS-clear_insertion_position: LLVMClearInsertionPosition
CASE(clear_insertion_position) { return position_case(bad, 3); }
// COVERS-position_before_dbg_records: LLVMPositionBuilderBeforeDbgRecords
CASE(position_before_dbg_records) {
#if LLVM_VERSION_MAJOR >= 19
  return position_case(bad, 4);
  // CHECK-position_before_dbg_records: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
  // CHECK-position_before_dbg_records-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is before a freed instruction; position the builder again first
  // CHECK-position_before_dbg_records-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
  // CHECK-position_before_dbg_records: its insertion point instruction <unnamed> in block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
  // CHECK-position_before_dbg_records: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
// COVERS-position_before_instr_and_dbg_records: LLVMPositionBuilderBeforeInstrAndDbgRecords
CASE(position_before_instr_and_dbg_records) {
#if LLVM_VERSION_MAJOR >= 19
  return position_case(bad, 5);
  // CHECK-position_before_instr_and_dbg_records: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef {{0x[0-9a-f]+}} (builder {{0x[0-9a-f]+}}){{$}}
  // CHECK-position_before_instr_and_dbg_records-NEXT: LLVMBuildUnreachable inserts at the builder's position, which is before a freed instruction; position the builder again first
  // CHECK-position_before_instr_and_dbg_records-NEXT: passed as argument 1 of LLVMBuildUnreachable on thread T0:
  // CHECK-position_before_instr_and_dbg_records: its insertion point instruction <unnamed> in block %other of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
  // CHECK-position_before_instr_and_dbg_records: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildUnreachable (
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* LLVMRunPasses: instructions a pass deletes are reported with its text. */
// COVERS-run_passes: LLVMRunPasses
CASE(run_passes) {
  struct ir t = make_ir("m");
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  say("LLVMRunPasses(module, \"dce\")");
  LLVMErrorRef e = LLVMRunPasses(t.mod, "function(dce)", NULL, o);
  if (e)
    LLVMConsumeError(e);
  LLVMDisposePassBuilderOptions(o);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
    // CHECK-run_passes: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (instruction %sum in block %entry of function @foo in module "m"){{$}}
    // CHECK-run_passes-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
    // CHECK-run_passes: freed during LLVMRunPasses("function(dce)") on thread T0, by LLVM itself:
    // CHECK-run_passes: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode (
  }
  drop_ir(&t);
  return 0;
}

/* Execution engines (the interpreter: no native target needed). */
struct engine {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMExecutionEngineRef ee;
  LLVMValueRef main_fn, g;
};
static struct engine make_engine(void) {
  struct engine e;
  LLVMLinkInInterpreter();
  e.ctx = LLVMContextCreate();
  e.mod = make_main_module(e.ctx, "jit");
  e.main_fn = LLVMGetNamedFunction(e.mod, "main");
  e.g = LLVMGetNamedGlobal(e.mod, "g");
  char *err = NULL;
  if (LLVMCreateInterpreterForModule(&e.ee, e.mod, &err)) {
    printf("interpreter: %s\n", err);
    exit(1);
  }
  return e;
}
static void drop_engine(struct engine *e) {
  LLVMDisposeExecutionEngine(e->ee);
  LLVMContextDispose(e->ctx);
}
static int engine_call_case(int bad, int which) {
  struct engine e = make_engine();
  if (bad) {
    say("LLVMDisposeExecutionEngine(engine)");
    LLVMDisposeExecutionEngine(e.ee);
  }
  switch (which) {
  case 0: {
    say("LLVMRunFunction(engine, @main)");
    LLVMGenericValueRef r = LLVMRunFunction(e.ee, e.main_fn, 0, NULL);
    // CHECK-run_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-run_function-NEXT: passed as argument 1 of LLVMRunFunction on thread T0:
    // CHECK-run_function: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-run_function: SUMMARY: OwnSan: use-after-free in LLVMRunFunction (
    printf("result %llu\n", LLVMGenericValueToInt(r, 0));
    LLVMDisposeGenericValue(r);
    break;
  }
  case 1: {
    const char *argv[] = {"prog", NULL};
    const char *envp[] = {NULL};
    say("LLVMRunFunctionAsMain(engine, @main)");
    printf("exit %d\n", LLVMRunFunctionAsMain(e.ee, e.main_fn, 1, argv, envp));
    // CHECK-run_function_as_main: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-run_function_as_main-NEXT: passed as argument 1 of LLVMRunFunctionAsMain on thread T0:
    // CHECK-run_function_as_main: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-run_function_as_main: SUMMARY: OwnSan: use-after-free in LLVMRunFunctionAsMain (
    break;
  }
  case 2:
    say("LLVMFreeMachineCodeForFunction(engine, @main)");
    LLVMFreeMachineCodeForFunction(e.ee, e.main_fn);
    // CHECK-free_machine_code: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-free_machine_code-NEXT: passed as argument 1 of LLVMFreeMachineCodeForFunction on thread T0:
    // CHECK-free_machine_code: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-free_machine_code: SUMMARY: OwnSan: use-after-free in LLVMFreeMachineCodeForFunction (
    break;
  case 3:
    say("LLVMGetPointerToGlobal(engine, @main)");
    (void)LLVMGetPointerToGlobal(e.ee, e.main_fn);
    // CHECK-get_pointer_to_global: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-get_pointer_to_global-NEXT: passed as argument 1 of LLVMGetPointerToGlobal on thread T0:
    // CHECK-get_pointer_to_global: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-get_pointer_to_global: SUMMARY: OwnSan: use-after-free in LLVMGetPointerToGlobal (
    break;
  case 4: {
    static int storage;
    say("LLVMAddGlobalMapping(engine, @g, &storage)");
    LLVMAddGlobalMapping(e.ee, e.g, &storage);
    // CHECK-add_global_mapping: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-add_global_mapping-NEXT: passed as argument 1 of LLVMAddGlobalMapping on thread T0:
    // CHECK-add_global_mapping: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-add_global_mapping: SUMMARY: OwnSan: use-after-free in LLVMAddGlobalMapping (
    break;
  }
  case 5:
    say("LLVMRecompileAndRelinkFunction(engine, @main)");
    (void)LLVMRecompileAndRelinkFunction(e.ee, e.main_fn);
    // CHECK-recompile_and_relink: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-recompile_and_relink-NEXT: passed as argument 1 of LLVMRecompileAndRelinkFunction on thread T0:
    // CHECK-recompile_and_relink: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-recompile_and_relink: SUMMARY: OwnSan: use-after-free in LLVMRecompileAndRelinkFunction (
    break;
  }
  drop_engine(&e);
  return 0;
}
// COVERS-run_function: LLVMRunFunction
CASE(run_function) { return engine_call_case(bad, 0); }
// COVERS-run_function_as_main: LLVMRunFunctionAsMain
CASE(run_function_as_main) { return engine_call_case(bad, 1); }
// COVERS-free_machine_code: LLVMFreeMachineCodeForFunction
CASE(free_machine_code) { return engine_call_case(bad, 2); }
// COVERS-get_pointer_to_global: LLVMGetPointerToGlobal
CASE(get_pointer_to_global) { return engine_call_case(bad, 3); }
// COVERS-add_global_mapping: LLVMAddGlobalMapping
CASE(add_global_mapping) { return engine_call_case(bad, 4); }
// COVERS-recompile_and_relink: LLVMRecompileAndRelinkFunction
CASE(recompile_and_relink) { return engine_call_case(bad, 5); }
// COVERS-run_function_result: LLVMRunFunction
CASE(run_function_result) {
  struct engine e = make_engine();
  say("LLVMRunFunction(engine, @main)");
  LLVMGenericValueRef r = LLVMRunFunction(e.ee, e.main_fn, 0, NULL);
  say("LLVMDisposeGenericValue(result)");
  LLVMDisposeGenericValue(r);
  if (bad) {
    say("LLVMGenericValueToInt(result)");
    LLVMGenericValueToInt(r, 0);
    // CHECK-run_function_result: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMGenericValueRef {{0x[0-9a-f]+}} (generic value {{0x[0-9a-f]+}}){{$}}
    // CHECK-run_function_result-NEXT: passed as argument 1 of LLVMGenericValueToInt on thread T0:
    // CHECK-run_function_result: freed by LLVMDisposeGenericValue(generic value {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-run_function_result: created by LLVMRunFunction on thread T0:
    // CHECK-run_function_result: SUMMARY: OwnSan: use-after-free in LLVMGenericValueToInt (
  }
  drop_engine(&e);
  return 0;
}

/* Arguments LLVM only reads as data (data_only): ok takes the shuffle mask
 * (for LLVMGetCastOpcode, the type) from another context, as llvm-c-test
 * --echo does; bad mixes contexts where it counts, in the second vector
 * (cross-context), or passes a type of a disposed context (use-after-free:
 * the exemption leaves out the context checks only). */
static int shuffle_case(int bad, int constant) {
  struct ir t = make_ir("m");
  LLVMContextRef other = LLVMContextCreate();
  LLVMTypeRef other_i32 = LLVMInt32TypeInContext(other);
  LLVMValueRef lanes[2] = {LLVMConstInt(other_i32, 1, 0),
                           LLVMConstInt(other_i32, 0, 0)};
  LLVMValueRef mask = LLVMConstVector(lanes, 2);
  LLVMValueRef v1 = LLVMConstNull(LLVMVectorType(t.i32, 2));
  LLVMValueRef v2 =
      LLVMConstAllOnes(LLVMVectorType(bad ? other_i32 : t.i32, 2));
  say(bad ? "shuffle of vectors of two contexts"
          : "shuffle with a mask of another context");
  LLVMValueRef r = constant ? LLVMConstShuffleVector(v1, v2, mask)
                            : LLVMBuildShuffleVector(t.b, v1, v2, mask, "s");
  char *text = LLVMPrintValueToString(r);
  say(text);
  LLVMDisposeMessage(text);
  LLVMContextDispose(other);
  drop_ir(&t);
  return 0;
}
// COVERS-build_shuffle_vector: LLVMBuildShuffleVector
CASE(build_shuffle_vector) { return shuffle_case(bad, 0); }
// CHECK-build_shuffle_vector: ==[[PID]]==ERROR: OwnSan: cross-context on LLVMValueRef {{0x[0-9a-f]+}} (constant {{0x[0-9a-f]+}}){{$}}
// CHECK-build_shuffle_vector-NEXT: argument 3 belongs to context {{0x[0-9a-f]+}} but argument 2 belongs to context {{0x[0-9a-f]+}}: objects of two contexts cannot be mixed
// CHECK-build_shuffle_vector-NEXT: passed as argument 3 of LLVMBuildShuffleVector on thread T0:
// CHECK-build_shuffle_vector: SUMMARY: OwnSan: cross-context in LLVMBuildShuffleVector (
// COVERS-const_shuffle_vector: LLVMConstShuffleVector
CASE(const_shuffle_vector) { return shuffle_case(bad, 1); }
// CHECK-const_shuffle_vector: ==[[PID]]==ERROR: OwnSan: cross-context on LLVMValueRef {{0x[0-9a-f]+}} (constant {{0x[0-9a-f]+}}){{$}}
// CHECK-const_shuffle_vector-NEXT: argument 2 belongs to context {{0x[0-9a-f]+}} but argument 1 belongs to context {{0x[0-9a-f]+}}: objects of two contexts cannot be mixed
// CHECK-const_shuffle_vector-NEXT: passed as argument 2 of LLVMConstShuffleVector on thread T0:
// CHECK-const_shuffle_vector: SUMMARY: OwnSan: cross-context in LLVMConstShuffleVector (
// COVERS-cast_opcode: LLVMGetCastOpcode
CASE(cast_opcode) {
#if LLVM_VERSION_MAJOR >= 15
  struct ir t = make_ir("m");
  LLVMContextRef other = LLVMContextCreate();
  LLVMTypeRef dest = LLVMInt64TypeInContext(other);
  if (bad) {
    say("LLVMContextDispose(other context)");
    LLVMContextDispose(other);
  }
  say("LLVMGetCastOpcode(%x, i64 of another context)");
  printf("opcode %d\n",
         (int)LLVMGetCastOpcode(LLVMGetParam(t.fn, 0), 0, dest, 0));
  // CHECK-cast_opcode: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef {{0x[0-9a-f]+}} (type i64){{$}}
  // CHECK-cast_opcode-NEXT: passed as argument 3 of LLVMGetCastOpcode on thread T0:
  // CHECK-cast_opcode: freed by LLVMContextDispose(context {{0x[0-9a-f]+}}) on thread T0, because it belonged to that context:
  // CHECK-cast_opcode: SUMMARY: OwnSan: use-after-free in LLVMGetCastOpcode (
  LLVMContextDispose(other);
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* Consumed arguments. */
static LLVMMemoryBufferRef ir_text_buffer(void) {
  static const char text[] = "define i32 @f() {\n  ret i32 1\n}\n";
  return LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "ir");
}
// COVERS-parse_ir: LLVMParseIRInContext
CASE(parse_ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = ir_text_buffer();
  LLVMModuleRef m = NULL;
  char *err = NULL;
  say("LLVMParseIRInContext(context, buffer)");
  if (LLVMParseIRInContext(ctx, buf, &m, &err)) {
    printf("parse: %s\n", err);
    return 1;
  }
  if (bad) {
    say("LLVMDisposeMemoryBuffer(buffer)");
    LLVMDisposeMemoryBuffer(buf);
    // CHECK-parse_ir: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-parse_ir-NEXT: passed as argument 1 of LLVMDisposeMemoryBuffer on thread T0:
    // CHECK-parse_ir: consumed by LLVMParseIRInContext(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-parse_ir: SUMMARY: OwnSan: use-after-consume in LLVMDisposeMemoryBuffer (
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-parse_ir_failed: LLVMParseIRInContext
CASE(parse_ir_failed) {
  LLVMContextRef ctx = LLVMContextCreate();
  static const char text[] = "this is not IR";
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "bad");
  LLVMModuleRef m = NULL;
  char *err = NULL;
  say("LLVMParseIRInContext(context, not IR)");
  if (LLVMParseIRInContext(ctx, buf, &m, &err)) {
    say("failed");
    LLVMDisposeMessage(err);
  }
  if (bad) {
    say("LLVMDisposeMessage(error) again");
    LLVMDisposeMessage(err);
    // CHECK-parse_ir_failed: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "bad:1:1: error: expected top-level entit..."){{$}}
    // CHECK-parse_ir_failed-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
    // CHECK-parse_ir_failed: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "bad:1:1: error: expected top-level entit...") on thread T0:
    // CHECK-parse_ir_failed: created by LLVMParseIRInContext on thread T0:
    // CHECK-parse_ir_failed: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  }
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-link_modules: LLVMLinkModules2
CASE(link_modules) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef dst = LLVMModuleCreateWithNameInContext("dst", ctx);
  LLVMModuleRef src = make_main_module(ctx, "src");
  say("LLVMLinkModules2(dst, src)");
  if (LLVMLinkModules2(dst, src))
    say("link failed");
  if (bad) {
    say("LLVMGetNamedFunction(src, \"main\")");
    LLVMGetNamedFunction(src, "main");
    // CHECK-link_modules: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMModuleRef {{0x[0-9a-f]+}} (module "src"){{$}}
    // CHECK-link_modules-NEXT: passed as argument 1 of LLVMGetNamedFunction on thread T0:
    // CHECK-link_modules: consumed by LLVMLinkModules2(module "src") on thread T0:
    // CHECK-link_modules: SUMMARY: OwnSan: use-after-consume in LLVMGetNamedFunction (
  }
  LLVMDisposeModule(dst);
  LLVMContextDispose(ctx);
  return 0;
}

/* Engines own their modules. */
// COVERS-create_execution_engine: LLVMCreateExecutionEngineForModule
CASE(create_execution_engine) {
  LLVMLinkInInterpreter();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMExecutionEngineRef ee;
  char *err = NULL;
  say("LLVMCreateExecutionEngineForModule(&engine, module)");
  if (LLVMCreateExecutionEngineForModule(&ee, m, &err)) {
    printf("%s\n", err);
    return 1;
  }
  if (bad) {
    say("LLVMDisposeModule(module) owned by the engine");
    LLVMDisposeModule(m);
    // CHECK-create_execution_engine: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
    // CHECK-create_execution_engine-NEXT: LLVMDisposeModule frees an object the caller gave away: execution engine {{0x[0-9a-f]+}} owns it since LLVMCreateExecutionEngineForModule and frees it itself (take it back first, e.g. LLVMRemoveModule)
    // CHECK-create_execution_engine-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-create_execution_engine: SUMMARY: OwnSan: invalid-free in LLVMDisposeModule (
  }
  LLVMDisposeExecutionEngine(ee);
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-create_interpreter: LLVMCreateInterpreterForModule
CASE(create_interpreter) {
  struct engine e = make_engine();
  if (bad) {
    say("LLVMDisposeModule(module) owned by the engine");
    LLVMDisposeModule(e.mod);
    // CHECK-create_interpreter: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
    // CHECK-create_interpreter-NEXT: LLVMDisposeModule frees an object the caller gave away: execution engine {{0x[0-9a-f]+}} owns it since LLVMCreateInterpreterForModule and frees it itself (take it back first, e.g. LLVMRemoveModule)
    // CHECK-create_interpreter-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-create_interpreter: SUMMARY: OwnSan: invalid-free in LLVMDisposeModule (
  }
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  LLVMContextDispose(e.ctx);
  return 0;
}
/* JIT and MCJIT without a native target: creation fails and destroys the
 * module (consume_if_failed). */
static int failed_jit_case(int bad, int mcjit) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMExecutionEngineRef ee = NULL;
  char *err = NULL;
  LLVMBool failed;
  if (mcjit) {
    struct LLVMMCJITCompilerOptions o;
    LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
    say("LLVMCreateMCJITCompilerForModule(&engine, module) without a target");
    failed = LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err);
  } else {
    say("LLVMCreateJITCompilerForModule(&engine, module) without a target");
    failed = LLVMCreateJITCompilerForModule(&ee, m, 0, &err);
  }
  if (!failed) {
    say("unexpectedly created");
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    return 0;
  }
  say("failed");
  LLVMDisposeMessage(err);
  if (bad) {
    say("LLVMDisposeModule(module) destroyed by the failed call");
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-create_jit: LLVMCreateJITCompilerForModule
CASE(create_jit) { return failed_jit_case(bad, 0); }
// CHECK-create_jit: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
// CHECK-create_jit-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
// CHECK-create_jit: consumed during LLVMCreateJITCompilerForModule on thread T0, by LLVM itself:
// CHECK-create_jit: SUMMARY: OwnSan: use-after-consume in LLVMDisposeModule (
// COVERS-create_mcjit: LLVMCreateMCJITCompilerForModule
CASE(create_mcjit) { return failed_jit_case(bad, 1); }
// CHECK-create_mcjit: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
// CHECK-create_mcjit-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
// CHECK-create_mcjit: consumed during LLVMCreateMCJITCompilerForModule on thread T0, by LLVM itself:
// CHECK-create_mcjit: SUMMARY: OwnSan: use-after-consume in LLVMDisposeModule (
// COVERS-add_module: LLVMAddModule
CASE(add_module) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  say("LLVMAddModule(engine, second)");
  LLVMAddModule(e.ee, m2);
  if (bad) {
    say("LLVMDisposeModule(second) owned by the engine");
    LLVMDisposeModule(m2);
    // CHECK-add_module: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "second"){{$}}
    // CHECK-add_module-NEXT: LLVMDisposeModule frees an object the caller gave away: execution engine {{0x[0-9a-f]+}} owns it since LLVMAddModule and frees it itself (take it back first, e.g. LLVMRemoveModule)
    // CHECK-add_module-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-add_module: SUMMARY: OwnSan: invalid-free in LLVMDisposeModule (
  }
  drop_engine(&e);
  return 0;
}
// COVERS-thread_safe_module: LLVMOrcCreateNewThreadSafeModule
CASE(thread_safe_module) {
  /* The module belongs to the thread-safe module from then on. */
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tsm", ctx);
  say("LLVMOrcCreateNewThreadSafeModule(module)");
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  if (bad) {
    say("LLVMDisposeModule(module) owned by the thread-safe module");
    LLVMDisposeModule(m);
    // CHECK-thread_safe_module: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "tsm"){{$}}
    // CHECK-thread_safe_module-NEXT: LLVMDisposeModule frees an object the caller gave away: orc thread safe module {{0x[0-9a-f]+}} owns it since LLVMOrcCreateNewThreadSafeModule and frees it itself (take it back first, e.g. LLVMRemoveModule)
    // CHECK-thread_safe_module-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-thread_safe_module: SUMMARY: OwnSan: invalid-free in LLVMDisposeModule (
  }
  say("LLVMOrcDisposeThreadSafeModule(tsm)");
  LLVMOrcDisposeThreadSafeModule(tsm);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-thread_safe_context_from_context: LLVMOrcCreateNewThreadSafeContextFromLLVMContext
CASE(thread_safe_context_from_context) {
#if LLVM_VERSION_MAJOR >= 21
  LLVMContextRef ctx = LLVMContextCreate();
  say("LLVMOrcCreateNewThreadSafeContextFromLLVMContext(context)");
  LLVMOrcThreadSafeContextRef tsc =
      LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  if (bad) {
    say("LLVMContextDispose(context) owned by the thread-safe context");
    LLVMContextDispose(ctx);
    // CHECK-thread_safe_context_from_context: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMContextRef {{0x[0-9a-f]+}} (context {{0x[0-9a-f]+}}){{$}}
    // CHECK-thread_safe_context_from_context-NEXT: LLVMContextDispose frees an object the caller gave away: LLVM owns it since LLVMOrcCreateNewThreadSafeContextFromLLVMContext and frees it itself
    // CHECK-thread_safe_context_from_context-NEXT: passed as argument 1 of LLVMContextDispose on thread T0:
    // CHECK-thread_safe_context_from_context: SUMMARY: OwnSan: invalid-free in LLVMContextDispose (
  }
  say("LLVMOrcDisposeThreadSafeContext(tsc)");
  LLVMOrcDisposeThreadSafeContext(tsc);
  return 0;
#else
  (void)bad;
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return 77;
#endif
}
// COVERS-remove_module: LLVMRemoveModule
CASE(remove_module) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  LLVMAddModule(e.ee, m2);
  LLVMModuleRef out = NULL;
  char *err = NULL;
  if (bad) {
    say("LLVMDisposeExecutionEngine(engine)");
    LLVMDisposeExecutionEngine(e.ee);
  }
  say("LLVMRemoveModule(engine, second)");
  if (LLVMRemoveModule(e.ee, m2, &out, &err)) {
    printf("%s\n", err);
    return 1;
  }
  // CHECK-remove_module: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMExecutionEngineRef {{0x[0-9a-f]+}} (execution engine {{0x[0-9a-f]+}}){{$}}
  // CHECK-remove_module-NEXT: passed as argument 1 of LLVMRemoveModule on thread T0:
  // CHECK-remove_module: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-remove_module: SUMMARY: OwnSan: use-after-free in LLVMRemoveModule (
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  say("LLVMDisposeModule(second): ours again");
  LLVMDisposeModule(out);
  LLVMContextDispose(e.ctx);
  return 0;
}
// COVERS-engine_twice: LLVMCreateInterpreterForModule
CASE(engine_twice) {
  /* One module, two engines: only after LLVMRemoveModule is it ours to give
   * again (a binding that builds a new engine per run forgets that). */
  struct engine e = make_engine();
  LLVMExecutionEngineRef ee2;
  LLVMModuleRef out = NULL;
  char *err = NULL;
  if (!bad) {
    say("LLVMRemoveModule(engine, module)");
    if (LLVMRemoveModule(e.ee, e.mod, &out, &err)) {
      printf("%s\n", err);
      return 1;
    }
  }
  say("LLVMCreateInterpreterForModule(&engine2, module)");
  if (LLVMCreateInterpreterForModule(&ee2, e.mod, &err)) {
    printf("%s\n", err);
    return 1;
  }
  // CHECK-engine_twice: ==[[PID]]==ERROR: OwnSan: invalid-transfer on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
  // CHECK-engine_twice-NEXT: LLVMCreateInterpreterForModule gives away an object that execution engine {{0x[0-9a-f]+}} already owns (since LLVMCreateInterpreterForModule): both would free it
  // CHECK-engine_twice-NEXT: passed as argument 2 of LLVMCreateInterpreterForModule on thread T0:
  // CHECK-engine_twice: SUMMARY: OwnSan: invalid-transfer in LLVMCreateInterpreterForModule (
  LLVMDisposeExecutionEngine(ee2);
  LLVMDisposeExecutionEngine(e.ee);
  LLVMContextDispose(e.ctx);
  return 0;
}
// COVERS-add_module_twice: LLVMAddModule
CASE(add_module_twice) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  say("LLVMAddModule(engine, second)");
  LLVMAddModule(e.ee, m2);
  if (bad) {
    say("LLVMAddModule(engine, second) again");
    LLVMAddModule(e.ee, m2);
    // CHECK-add_module_twice: ==[[PID]]==ERROR: OwnSan: invalid-transfer on LLVMModuleRef {{0x[0-9a-f]+}} (module "second"){{$}}
    // CHECK-add_module_twice-NEXT: LLVMAddModule gives away an object that execution engine {{0x[0-9a-f]+}} already owns (since LLVMAddModule): both would free it
    // CHECK-add_module_twice-NEXT: passed as argument 2 of LLVMAddModule on thread T0:
    // CHECK-add_module_twice: SUMMARY: OwnSan: invalid-transfer in LLVMAddModule (
  }
  drop_engine(&e);
  return 0;
}
// COVERS-dispose_engine: LLVMDisposeExecutionEngine
CASE(dispose_engine) {
  struct engine e = make_engine();
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  if (bad) {
    say("LLVMGetNamedFunction(module, \"main\")");
    LLVMGetNamedFunction(e.mod, "main");
    // CHECK-dispose_engine: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef {{0x[0-9a-f]+}} (module "jit"){{$}}
    // CHECK-dispose_engine-NEXT: passed as argument 1 of LLVMGetNamedFunction on thread T0:
    // CHECK-dispose_engine: freed by LLVMDisposeExecutionEngine(execution engine {{0x[0-9a-f]+}}) on thread T0, because it belonged to that execution engine:
    // CHECK-dispose_engine: SUMMARY: OwnSan: use-after-free in LLVMGetNamedFunction (
  }
  LLVMContextDispose(e.ctx);
  return 0;
}

/* Messages: ok disposes once, bad twice. */
static int message_case(int bad, char *s, const char *what) {
  say(what);
  if (!s) {
    say("(null)");
    return 1;
  }
  say("LLVMDisposeMessage(string)");
  LLVMDisposeMessage(s);
  if (bad) {
    say("LLVMDisposeMessage(string) again");
    LLVMDisposeMessage(s);
  }
  return 0;
}
// COVERS-create_message: LLVMDisposeMessage LLVMCreateMessage
CASE(create_message) {
  return message_case(bad, LLVMCreateMessage("hello"), "LLVMCreateMessage");
  // CHECK-create_message: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "hello"){{$}}
  // CHECK-create_message-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-create_message: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "hello") on thread T0:
  // CHECK-create_message: created by LLVMCreateMessage on thread T0:
  // CHECK-create_message: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-print_module: LLVMPrintModuleToString
CASE(print_module) {
  struct ir t = make_ir("m");
  int r = message_case(bad, LLVMPrintModuleToString(t.mod),
                       "LLVMPrintModuleToString");
  // CHECK-print_module: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "; ModuleID = \'m\'\nsource_filename = \"m\"\n\n..."){{$}}
  // CHECK-print_module-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-print_module: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "; ModuleID = \'m\'\nsource_filename = \"m\"\n\n...") on thread T0:
  // CHECK-print_module: created by LLVMPrintModuleToString on thread T0:
  // CHECK-print_module: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  drop_ir(&t);
  return r;
}
// COVERS-print_type: LLVMPrintTypeToString
CASE(print_type) {
  struct ir t = make_ir("m");
  int r =
      message_case(bad, LLVMPrintTypeToString(t.i32), "LLVMPrintTypeToString");
  // CHECK-print_type: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "i32"){{$}}
  // CHECK-print_type-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-print_type: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "i32") on thread T0:
  // CHECK-print_type: created by LLVMPrintTypeToString on thread T0:
  // CHECK-print_type: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  drop_ir(&t);
  return r;
}
// COVERS-print_value: LLVMPrintValueToString
CASE(print_value) {
  struct ir t = make_ir("m");
  int r = message_case(bad, LLVMPrintValueToString(t.sum),
                       "LLVMPrintValueToString");
  // CHECK-print_value: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "  %sum = add i32 %0, 1"){{$}}
  // CHECK-print_value-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-print_value: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "  %sum = add i32 %0, 1") on thread T0:
  // CHECK-print_value: created by LLVMPrintValueToString on thread T0:
  // CHECK-print_value: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  drop_ir(&t);
  return r;
}
// COVERS-print_dbg_record: LLVMPrintDbgRecordToString
CASE(print_dbg_record) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMSetIsNewDbgInfoFormat(t.mod, 1);
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  LLVMMetadataRef file = LLVMDIBuilderCreateFile(d, "a.c", 3, ".", 1);
  LLVMMetadataRef cu = LLVMDIBuilderCreateCompileUnit(
      d, LLVMDWARFSourceLanguageC, file, "p", 1, 0, "", 0, 0, "", 0,
      LLVMDWARFEmissionFull, 0, 0, 0, "", 0, "", 0);
  LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(d, file, NULL, 0, 0);
  LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(d, cu, "foo", 3, "foo", 3,
                                                   file, 1, sty, 0, 1, 1, 0, 0);
  LLVMSetSubprogram(t.fn, sp);
  LLVMMetadataRef ity = LLVMDIBuilderCreateBasicType(d, "int", 3, 32, 5, 0);
  LLVMMetadataRef var =
      LLVMDIBuilderCreateAutoVariable(d, sp, "v", 1, file, 1, ity, 0, 0, 0);
  LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(t.ctx, 1, 1, sp, NULL);
  LLVMDbgRecordRef rec = LLVMDIBuilderInsertDbgValueRecordBefore(
      d, t.sum, var, LLVMDIBuilderCreateExpression(d, NULL, 0), loc, t.ret);
  LLVMDIBuilderFinalize(d);
  int r = message_case(bad, LLVMPrintDbgRecordToString(rec),
                       "LLVMPrintDbgRecordToString");
  // CHECK-print_dbg_record: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "#dbg_value(i32 %sum, !5, !DIExpression()..."){{$}}
  // CHECK-print_dbg_record-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-print_dbg_record: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "#dbg_value(i32 %sum, !5, !DIExpression()...") on thread T0:
  // CHECK-print_dbg_record: created by LLVMPrintDbgRecordToString on thread T0:
  // CHECK-print_dbg_record: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  LLVMDisposeDIBuilder(d);
  drop_ir(&t);
  return r;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
static char *g_diag;
static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
  (void)ctx;
  if (!g_diag)
    g_diag = LLVMGetDiagInfoDescription(di);
}
// COVERS-diag_info_description: LLVMGetDiagInfoDescription
CASE(diag_info_description) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, diag_handler, NULL);
  LLVMModuleRef a = make_main_module(ctx, "a");
  LLVMModuleRef b2 = make_main_module(ctx, "b");
  say("LLVMLinkModules2(a, b): both define @main");
  LLVMLinkModules2(a, b2);
  LLVMDisposeModule(a);
  LLVMContextDispose(ctx);
  return message_case(bad, g_diag,
                      "LLVMGetDiagInfoDescription (from the handler)");
  // CHECK-diag_info_description: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "Linking globals named \'g\': symbol multip..."){{$}}
  // CHECK-diag_info_description-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-diag_info_description: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "Linking globals named \'g\': symbol multip...") on thread T0:
  // CHECK-diag_info_description: created by LLVMGetDiagInfoDescription on thread T0:
  // CHECK-diag_info_description: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-target_data_string: LLVMCopyStringRepOfTargetData
CASE(target_data_string) {
  LLVMTargetDataRef td = LLVMCreateTargetData("e-m:e-i64:64");
  int r = message_case(bad, LLVMCopyStringRepOfTargetData(td),
                       "LLVMCopyStringRepOfTargetData");
  // CHECK-target_data_string: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "e-m:e-i64:64"){{$}}
  // CHECK-target_data_string-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-target_data_string: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "e-m:e-i64:64") on thread T0:
  // CHECK-target_data_string: created by LLVMCopyStringRepOfTargetData on thread T0:
  // CHECK-target_data_string: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  LLVMDisposeTargetData(td);
  return r;
}
// COVERS-default_target_triple: LLVMGetDefaultTargetTriple
CASE(default_target_triple) {
  return message_case(bad, LLVMGetDefaultTargetTriple(),
                      "LLVMGetDefaultTargetTriple");
  // CHECK-default_target_triple: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "{{[^"]*}}"){{$}}
  // CHECK-default_target_triple-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-default_target_triple: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "{{[^"]*}}") on thread T0:
  // CHECK-default_target_triple: created by LLVMGetDefaultTargetTriple on thread T0:
  // CHECK-default_target_triple: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-normalize_target_triple: LLVMNormalizeTargetTriple
CASE(normalize_target_triple) {
  return message_case(bad, LLVMNormalizeTargetTriple("x86_64-linux"),
                      "LLVMNormalizeTargetTriple");
  // CHECK-normalize_target_triple: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "x86_64-unknown-linux"){{$}}
  // CHECK-normalize_target_triple-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-normalize_target_triple: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "x86_64-unknown-linux") on thread T0:
  // CHECK-normalize_target_triple: created by LLVMNormalizeTargetTriple on thread T0:
  // CHECK-normalize_target_triple: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-host_cpu_name: LLVMGetHostCPUName
CASE(host_cpu_name) {
  return message_case(bad, LLVMGetHostCPUName(), "LLVMGetHostCPUName");
  // CHECK-host_cpu_name: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "{{[^"]*}}"){{$}}
  // CHECK-host_cpu_name-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-host_cpu_name: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "{{[^"]*}}") on thread T0:
  // CHECK-host_cpu_name: created by LLVMGetHostCPUName on thread T0:
  // CHECK-host_cpu_name: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-host_cpu_features: LLVMGetHostCPUFeatures
CASE(host_cpu_features) {
  return message_case(bad, LLVMGetHostCPUFeatures(), "LLVMGetHostCPUFeatures");
  // CHECK-host_cpu_features: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "{{[^"]*}}"){{$}}
  // CHECK-host_cpu_features-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-host_cpu_features: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "{{[^"]*}}") on thread T0:
  // CHECK-host_cpu_features: created by LLVMGetHostCPUFeatures on thread T0:
  // CHECK-host_cpu_features: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
static int tm_string_case(int bad, int which) {
  LLVMTargetMachineRef tm = make_tm();
  char *s = which == 0   ? LLVMGetTargetMachineTriple(tm)
            : which == 1 ? LLVMGetTargetMachineCPU(tm)
                         : LLVMGetTargetMachineFeatureString(tm);
  int r =
      message_case(bad, s, "LLVMGetTargetMachine{Triple,CPU,FeatureString}");
  LLVMDisposeTargetMachine(tm);
  return r;
}
// COVERS-target_machine_triple: LLVMGetTargetMachineTriple
CASE(target_machine_triple) { return tm_string_case(bad, 0); }
// CHECK-target_machine_triple: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "x86_64-pc-linux-gnu"){{$}}
// CHECK-target_machine_triple-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
// CHECK-target_machine_triple: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "x86_64-pc-linux-gnu") on thread T0:
// CHECK-target_machine_triple: created by LLVMGetTargetMachineTriple on thread T0:
// CHECK-target_machine_triple: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
// COVERS-target_machine_cpu: LLVMGetTargetMachineCPU
CASE(target_machine_cpu) { return tm_string_case(bad, 1); }
// CHECK-target_machine_cpu: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "generic"){{$}}
// CHECK-target_machine_cpu-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
// CHECK-target_machine_cpu: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "generic") on thread T0:
// CHECK-target_machine_cpu: created by LLVMGetTargetMachineCPU on thread T0:
// CHECK-target_machine_cpu: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
// COVERS-target_machine_features: LLVMGetTargetMachineFeatureString
CASE(target_machine_features) { return tm_string_case(bad, 2); }
// CHECK-target_machine_features: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} ""){{$}}
// CHECK-target_machine_features-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
// CHECK-target_machine_features: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "") on thread T0:
// CHECK-target_machine_features: created by LLVMGetTargetMachineFeatureString on thread T0:
// CHECK-target_machine_features: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
// COVERS-intrinsic_copy_overloaded_name: LLVMIntrinsicCopyOverloadedName
CASE(intrinsic_copy_overloaded_name) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  size_t n;
  unsigned id = LLVMLookupIntrinsicID("llvm.ctpop", 10);
  int r = message_case(bad,
                       (char *)LLVMIntrinsicCopyOverloadedName(id, &i32, 1, &n),
                       "LLVMIntrinsicCopyOverloadedName");
  // CHECK-intrinsic_copy_overloaded_name: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "llvm.ctpop.i32"){{$}}
  // CHECK-intrinsic_copy_overloaded_name-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-intrinsic_copy_overloaded_name: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "llvm.ctpop.i32") on thread T0:
  // CHECK-intrinsic_copy_overloaded_name: created by LLVMIntrinsicCopyOverloadedName on thread T0:
  // CHECK-intrinsic_copy_overloaded_name: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  LLVMContextDispose(ctx);
  return r;
}
// COVERS-intrinsic_copy_overloaded_name2: LLVMIntrinsicCopyOverloadedName2
CASE(intrinsic_copy_overloaded_name2) {
  struct ir t = make_ir("m");
  size_t n;
  unsigned id = LLVMLookupIntrinsicID("llvm.ctpop", 10);
  int r = message_case(
      bad, (char *)LLVMIntrinsicCopyOverloadedName2(t.mod, id, &t.i32, 1, &n),
      "LLVMIntrinsicCopyOverloadedName2");
  // CHECK-intrinsic_copy_overloaded_name2: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "llvm.ctpop.i32"){{$}}
  // CHECK-intrinsic_copy_overloaded_name2-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-intrinsic_copy_overloaded_name2: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "llvm.ctpop.i32") on thread T0:
  // CHECK-intrinsic_copy_overloaded_name2: created by LLVMIntrinsicCopyOverloadedName2 on thread T0:
  // CHECK-intrinsic_copy_overloaded_name2: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  drop_ir(&t);
  return r;
}
// COVERS-jtmb_target_triple: LLVMOrcJITTargetMachineBuilderGetTargetTriple
CASE(jtmb_target_triple) {
  LLVMOrcJITTargetMachineBuilderRef jtmb = NULL;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (e) {
    char *m = LLVMGetErrorMessage(e);
    printf("detect host: %s\n", m);
    LLVMDisposeErrorMessage(m);
    return EXIT_NOT_AVAILABLE;
  }
  int r = message_case(bad, LLVMOrcJITTargetMachineBuilderGetTargetTriple(jtmb),
                       "LLVMOrcJITTargetMachineBuilderGetTargetTriple");
  // CHECK-jtmb_target_triple: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "{{[^"]*}}"){{$}}
  // CHECK-jtmb_target_triple-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-jtmb_target_triple: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "{{[^"]*}}") on thread T0:
  // CHECK-jtmb_target_triple: created by LLVMOrcJITTargetMachineBuilderGetTargetTriple on thread T0:
  // CHECK-jtmb_target_triple: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
  LLVMOrcDisposeJITTargetMachineBuilder(jtmb);
  return r;
}
// COVERS-verify_module: LLVMVerifyModule
CASE(verify_module) {
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMVerifyModule(module, ReturnStatus, &msg): success still writes msg");
  printf("broken %d\n", LLVMVerifyModule(t.mod, LLVMReturnStatusAction, &msg));
  drop_ir(&t);
  return message_case(bad, msg, "verify message");
  // CHECK-verify_module: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} ""){{$}}
  // CHECK-verify_module-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-verify_module: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "") on thread T0:
  // CHECK-verify_module: created by LLVMVerifyModule on thread T0:
  // CHECK-verify_module: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-print_module_to_file: LLVMPrintModuleToFile
CASE(print_module_to_file) {
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMPrintModuleToFile(module, \"/nonexistent/dir/m.ll\")");
  printf("failed %d\n",
         LLVMPrintModuleToFile(t.mod, "/nonexistent/dir/m.ll", &msg));
  drop_ir(&t);
  return message_case(bad, msg, "error message");
  // CHECK-print_module_to_file: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "No such file or directory"){{$}}
  // CHECK-print_module_to_file-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-print_module_to_file: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "No such file or directory") on thread T0:
  // CHECK-print_module_to_file: created by LLVMPrintModuleToFile on thread T0:
  // CHECK-print_module_to_file: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-buffer_from_file: LLVMCreateMemoryBufferWithContentsOfFile
CASE(buffer_from_file) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  say("LLVMCreateMemoryBufferWithContentsOfFile(\"/nonexistent/file\")");
  printf("failed %d\n", LLVMCreateMemoryBufferWithContentsOfFile(
                            "/nonexistent/file", &buf, &msg));
  return message_case(bad, msg, "error message");
  // CHECK-buffer_from_file: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "No such file or directory"){{$}}
  // CHECK-buffer_from_file-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-buffer_from_file: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "No such file or directory") on thread T0:
  // CHECK-buffer_from_file: created by LLVMCreateMemoryBufferWithContentsOfFile on thread T0:
  // CHECK-buffer_from_file: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-buffer_from_stdin: LLVMCreateMemoryBufferWithSTDIN
CASE(buffer_from_stdin) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  close(0);
  say("LLVMCreateMemoryBufferWithSTDIN() with stdin closed");
  printf("failed %d\n", LLVMCreateMemoryBufferWithSTDIN(&buf, &msg));
  return message_case(bad, msg, "error message");
  // CHECK-buffer_from_stdin: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "Bad file descriptor"){{$}}
  // CHECK-buffer_from_stdin-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-buffer_from_stdin: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "Bad file descriptor") on thread T0:
  // CHECK-buffer_from_stdin: created by LLVMCreateMemoryBufferWithSTDIN on thread T0:
  // CHECK-buffer_from_stdin: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-emit_to_file: LLVMTargetMachineEmitToFile
CASE(emit_to_file) {
  LLVMTargetMachineRef tm = make_tm();
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMTargetMachineEmitToFile(tm, module, \"/nonexistent/dir/m.o\")");
  printf("failed %d\n",
         LLVMTargetMachineEmitToFile(tm, t.mod, "/nonexistent/dir/m.o",
                                     LLVMObjectFile, &msg));
  drop_ir(&t);
  LLVMDisposeTargetMachine(tm);
  return message_case(bad, msg, "error message");
  // CHECK-emit_to_file: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "No such file or directory"){{$}}
  // CHECK-emit_to_file-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-emit_to_file: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "No such file or directory") on thread T0:
  // CHECK-emit_to_file: created by LLVMTargetMachineEmitToFile on thread T0:
  // CHECK-emit_to_file: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
// COVERS-emit_to_memory_buffer: LLVMTargetMachineEmitToMemoryBuffer
CASE(emit_to_memory_buffer) {
  /* Success path: the out buffer is the caller's; on failure the message
   * would be (the failure path cannot be provoked portably). */
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  say("LLVMDisposeMemoryBuffer(object)");
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    say("LLVMDisposeMemoryBuffer(object) again");
    LLVMDisposeMemoryBuffer(buf);
    // CHECK-emit_to_memory_buffer: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-emit_to_memory_buffer-NEXT: passed as argument 1 of LLVMDisposeMemoryBuffer on thread T0:
    // CHECK-emit_to_memory_buffer: freed by LLVMDisposeMemoryBuffer(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-emit_to_memory_buffer: created by LLVMTargetMachineEmitToMemoryBuffer on thread T0:
    // CHECK-emit_to_memory_buffer: SUMMARY: OwnSan: double-free in LLVMDisposeMemoryBuffer (
  }
  return 0;
}

/* Errors. */
// COVERS-consume_error: LLVMConsumeError
CASE(consume_error) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  say("LLVMConsumeError(error)");
  LLVMConsumeError(e);
  if (bad) {
    say("LLVMConsumeError(error) again");
    LLVMConsumeError(e);
    // CHECK-consume_error: ==[[PID]]==ERROR: OwnSan: double-free on LLVMErrorRef {{0x[0-9a-f]+}} (error {{0x[0-9a-f]+}}){{$}}
    // CHECK-consume_error-NEXT: passed as argument 1 of LLVMConsumeError on thread T0:
    // CHECK-consume_error: freed by LLVMConsumeError(error {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-consume_error: created by LLVMCreateStringError on thread T0:
    // CHECK-consume_error: SUMMARY: OwnSan: double-free in LLVMConsumeError (
  }
  return 0;
}
// COVERS-get_error_message: LLVMGetErrorMessage
CASE(get_error_message) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  say("LLVMGetErrorMessage(error)");
  char *m = LLVMGetErrorMessage(e);
  printf("message %s\n", m);
  if (bad) {
    say("LLVMConsumeError(error) after LLVMGetErrorMessage");
    LLVMConsumeError(e);
    // CHECK-get_error_message: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMErrorRef {{0x[0-9a-f]+}} (error {{0x[0-9a-f]+}}){{$}}
    // CHECK-get_error_message-NEXT: passed as argument 1 of LLVMConsumeError on thread T0:
    // CHECK-get_error_message: consumed by LLVMGetErrorMessage(error {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-get_error_message: created by LLVMCreateStringError on thread T0:
    // CHECK-get_error_message: SUMMARY: OwnSan: use-after-consume in LLVMConsumeError (
  }
  LLVMDisposeErrorMessage(m);
  return 0;
}
// COVERS-dispose_error_message: LLVMDisposeMessage LLVMDisposeErrorMessage
CASE(dispose_error_message) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  char *m = LLVMGetErrorMessage(e);
  if (bad) {
    say("LLVMDisposeMessage(error message)");
    LLVMDisposeMessage(m);
    // CHECK-dispose_error_message: ==[[PID]]==ERROR: OwnSan: invalid-free on char * {{0x[0-9a-f]+}} (error message {{0x[0-9a-f]+}} "boom"){{$}}
    // CHECK-dispose_error_message-NEXT: LLVMDisposeMessage cannot release this string: it came from LLVMGetErrorMessage and must be released with LLVMDisposeErrorMessage
    // CHECK-dispose_error_message-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
    // CHECK-dispose_error_message: SUMMARY: OwnSan: invalid-free in LLVMDisposeMessage (
  }
  say("LLVMDisposeErrorMessage(error message)");
  LLVMDisposeErrorMessage(m);
  return 0;
}
// COVERS-dispose_message_foreign: LLVMDisposeMessage
CASE(dispose_message_foreign) {
  /* LLVMDisposeMessage on a string LLVM handed out as borrowed. */
  struct ir t = make_ir("m");
  size_t n;
  const char *name = LLVMGetModuleIdentifier(t.mod, &n);
  printf("module %s\n", name);
  if (bad) {
    say("LLVMDisposeMessage(module identifier)");
    LLVMDisposeMessage((char *)name);
    // CHECK-dispose_message_foreign: ==[[PID]]==ERROR: OwnSan: invalid-free on const char * {{0x[0-9a-f]+}} (string {{0x[0-9a-f]+}} in module "m"){{$}}
    // CHECK-dispose_message_foreign-NEXT: LLVMDisposeMessage frees a string LLVM only lent: LLVMGetModuleIdentifier returned it and module "m" owns it; only strings LLVM hands out as owned (LLVMPrint*ToString, error messages...) go to LLVMDisposeMessage
    // CHECK-dispose_message_foreign-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
    // CHECK-dispose_message_foreign: SUMMARY: OwnSan: invalid-free in LLVMDisposeMessage (
  }
  drop_ir(&t);
  return 0;
}

/* Binaries and their iterators (an ELF object from the X86 target). */
struct bin {
  LLVMMemoryBufferRef buf;
  LLVMBinaryRef bin;
  LLVMContextRef ctx;
};
static struct bin make_binary(void) {
  struct bin b;
  LLVMTargetMachineRef tm = make_tm();
  b.buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  b.ctx = LLVMContextCreate();
  char *err = NULL;
  b.bin = LLVMCreateBinary(b.buf, b.ctx, &err);
  if (!b.bin) {
    printf("create binary: %s\n", err);
    exit(1);
  }
  return b;
}
static void drop_binary(struct bin *b) {
  LLVMDisposeBinary(b->bin);
  LLVMDisposeMemoryBuffer(b->buf);
  LLVMContextDispose(b->ctx);
}
// COVERS-create_binary: LLVMCreateBinary LLVMDisposeBinary
CASE(create_binary) {
  struct bin b = make_binary();
  printf("binary type %d\n", (int)LLVMBinaryGetType(b.bin));
  say("LLVMDisposeBinary(binary)");
  LLVMDisposeBinary(b.bin);
  if (bad) {
    say("LLVMDisposeBinary(binary) again");
    LLVMDisposeBinary(b.bin);
    // CHECK-create_binary: ==[[PID]]==ERROR: OwnSan: double-free on LLVMBinaryRef {{0x[0-9a-f]+}} (binary {{0x[0-9a-f]+}}){{$}}
    // CHECK-create_binary-NEXT: passed as argument 1 of LLVMDisposeBinary on thread T0:
    // CHECK-create_binary: freed by LLVMDisposeBinary(binary {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-create_binary: created by LLVMCreateBinary on thread T0:
    // CHECK-create_binary: SUMMARY: OwnSan: double-free in LLVMDisposeBinary (
  }
  LLVMDisposeMemoryBuffer(b.buf);
  LLVMContextDispose(b.ctx);
  return 0;
}
// COVERS-create_binary_bitcode: LLVMCreateBinary LLVMDisposeBinary
CASE(create_binary_bitcode) {
  /* Bitcode bytes are a binary too (IRObjectFile). */
  struct ir t = make_ir("m");
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(t.mod);
  char *err = NULL;
  say("LLVMCreateBinary(bitcode)");
  LLVMBinaryRef bin = LLVMCreateBinary(buf, t.ctx, &err);
  if (!bin) {
    printf("create binary: %s\n", err);
    LLVMDisposeMessage(err);
    return 1;
  }
  printf("binary type %d\n", (int)LLVMBinaryGetType(bin));
  LLVMDisposeBinary(bin);
  if (bad) {
    say("LLVMBinaryGetType(binary) after dispose");
    LLVMBinaryGetType(bin);
    // CHECK-create_binary_bitcode: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBinaryRef {{0x[0-9a-f]+}} (binary {{0x[0-9a-f]+}}){{$}}
    // CHECK-create_binary_bitcode-NEXT: passed as argument 1 of LLVMBinaryGetType on thread T0:
    // CHECK-create_binary_bitcode: freed by LLVMDisposeBinary(binary {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-create_binary_bitcode: SUMMARY: OwnSan: use-after-free in LLVMBinaryGetType (
  }
  LLVMDisposeMemoryBuffer(buf);
  drop_ir(&t);
  return 0;
}
// COVERS-create_binary_failed: LLVMCreateBinary
CASE(create_binary_failed) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("junk", 4, "junk");
  char *err = NULL;
  say("LLVMCreateBinary(junk)");
  LLVMBinaryRef bin = LLVMCreateBinary(buf, ctx, &err);
  printf("binary %s\n", bin ? "made" : "null");
  LLVMDisposeMemoryBuffer(buf);
  LLVMContextDispose(ctx);
  return message_case(bad, err, "error message");
  // CHECK-create_binary_failed: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} "The file was not recognized as a valid o..."){{$}}
  // CHECK-create_binary_failed-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
  // CHECK-create_binary_failed: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "The file was not recognized as a valid o...") on thread T0:
  // CHECK-create_binary_failed: created by LLVMCreateBinary on thread T0:
  // CHECK-create_binary_failed: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
}
static int iterator_case(int bad, int which) {
  struct bin b = make_binary();
  LLVMSectionIteratorRef si = LLVMObjectFileCopySectionIterator(b.bin);
  if (which == 0) {
    int n = 0;
    while (!LLVMObjectFileIsSectionIteratorAtEnd(b.bin, si)) {
      ++n;
      LLVMMoveToNextSection(si);
    }
    printf("sections %d\n", n > 0);
    if (bad) {
      say("LLVMDisposeBinary(binary)");
      LLVMDisposeBinary(b.bin);
      say("LLVMMoveToNextSection(section iterator)");
      LLVMMoveToNextSection(si);
      // CHECK-section_iterator: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMSectionIteratorRef {{0x[0-9a-f]+}} (section iterator {{0x[0-9a-f]+}} in binary {{0x[0-9a-f]+}}){{$}}
      // CHECK-section_iterator-NEXT: passed as argument 1 of LLVMMoveToNextSection on thread T0:
      // CHECK-section_iterator: freed by LLVMDisposeBinary(binary {{0x[0-9a-f]+}}) on thread T0, because it belonged to that binary:
      // CHECK-section_iterator: created by LLVMObjectFileCopySectionIterator on thread T0:
      // CHECK-section_iterator: SUMMARY: OwnSan: use-after-free in LLVMMoveToNextSection (
    }
    say("LLVMDisposeSectionIterator(section iterator)");
    LLVMDisposeSectionIterator(si);
  } else if (which == 1) {
    LLVMSymbolIteratorRef sym = LLVMObjectFileCopySymbolIterator(b.bin);
    int n = 0;
    while (!LLVMObjectFileIsSymbolIteratorAtEnd(b.bin, sym)) {
      ++n;
      LLVMMoveToNextSymbol(sym);
    }
    printf("symbols %d\n", n > 0);
    say("LLVMDisposeSymbolIterator(symbol iterator)");
    LLVMDisposeSymbolIterator(sym);
    if (bad) {
      say("LLVMDisposeSymbolIterator(symbol iterator) again");
      LLVMDisposeSymbolIterator(sym);
      // CHECK-symbol_iterator: ==[[PID]]==ERROR: OwnSan: double-free on LLVMSymbolIteratorRef {{0x[0-9a-f]+}} (symbol iterator {{0x[0-9a-f]+}} in binary {{0x[0-9a-f]+}}){{$}}
      // CHECK-symbol_iterator-NEXT: passed as argument 1 of LLVMDisposeSymbolIterator on thread T0:
      // CHECK-symbol_iterator: freed by LLVMDisposeSymbolIterator(symbol iterator {{0x[0-9a-f]+}} in binary {{0x[0-9a-f]+}}) on thread T0:
      // CHECK-symbol_iterator: created by LLVMObjectFileCopySymbolIterator on thread T0:
      // CHECK-symbol_iterator: SUMMARY: OwnSan: double-free in LLVMDisposeSymbolIterator (
    }
    LLVMDisposeSectionIterator(si);
  } else {
    /* find .rela.text (the relocation of the call to @ext) */
    for (;;) {
      if (LLVMObjectFileIsSectionIteratorAtEnd(b.bin, si)) {
        say("no .rela.text");
        return 1;
      }
      const char *name = LLVMGetSectionName(si);
      if (name && strcmp(name, ".rela.text") == 0)
        break;
      LLVMMoveToNextSection(si);
    }
    LLVMRelocationIteratorRef ri = LLVMGetRelocations(si);
    int n = 0;
    while (!LLVMIsRelocationIteratorAtEnd(si, ri)) {
      char *v = (char *)LLVMGetRelocationValueString(ri);
      LLVMDisposeMessage(v);
      ++n;
      LLVMMoveToNextRelocation(ri);
    }
    printf("relocations %d\n", n > 0);
    if (which == 4) {
      /* owned and not NUL-terminated: never strlen'ed */
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      char *v = (char *)LLVMGetRelocationTypeName(ri);
      say("LLVMDisposeMessage(relocation type name)");
      LLVMDisposeMessage(v);
      if (bad) {
        say("LLVMDisposeMessage(relocation type name) again");
        LLVMDisposeMessage(v);
        // CHECK-relocation_type_name: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} (not NUL-terminated)){{$}}
        // CHECK-relocation_type_name-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
        // CHECK-relocation_type_name: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} (not NUL-terminated)) on thread T0:
        // CHECK-relocation_type_name: created by LLVMGetRelocationTypeName on thread T0:
        // CHECK-relocation_type_name: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
      }
    }
    if (which == 5) {
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      say("LLVMGetRelocationSymbol(relocation iterator)");
      LLVMSymbolIteratorRef sym = LLVMGetRelocationSymbol(ri);
      say("LLVMDisposeSymbolIterator(symbol of the relocation)");
      LLVMDisposeSymbolIterator(sym);
      if (bad) {
        say("LLVMDisposeSymbolIterator(symbol of the relocation) again");
        LLVMDisposeSymbolIterator(sym);
        // CHECK-relocation_symbol: ==[[PID]]==ERROR: OwnSan: double-free on LLVMSymbolIteratorRef {{0x[0-9a-f]+}} (symbol iterator {{0x[0-9a-f]+}}){{$}}
        // CHECK-relocation_symbol-NEXT: passed as argument 1 of LLVMDisposeSymbolIterator on thread T0:
        // CHECK-relocation_symbol: freed by LLVMDisposeSymbolIterator(symbol iterator {{0x[0-9a-f]+}}) on thread T0:
        // CHECK-relocation_symbol: created by LLVMGetRelocationSymbol on thread T0:
        // CHECK-relocation_symbol: SUMMARY: OwnSan: double-free in LLVMDisposeSymbolIterator (
      }
    }
    if (which == 3) {
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      char *v = (char *)LLVMGetRelocationValueString(ri);
      say("LLVMDisposeMessage(relocation value string)");
      LLVMDisposeMessage(v);
      if (bad) {
        say("LLVMDisposeMessage(relocation value string) again");
        LLVMDisposeMessage(v);
        // CHECK-relocation_value_string: ==[[PID]]==ERROR: OwnSan: double-free on char * {{0x[0-9a-f]+}} (message {{0x[0-9a-f]+}} ""){{$}}
        // CHECK-relocation_value_string-NEXT: passed as argument 1 of LLVMDisposeMessage on thread T0:
        // CHECK-relocation_value_string: freed by LLVMDisposeMessage(message {{0x[0-9a-f]+}} "") on thread T0:
        // CHECK-relocation_value_string: created by LLVMGetRelocationValueString on thread T0:
        // CHECK-relocation_value_string: SUMMARY: OwnSan: double-free in LLVMDisposeMessage (
      }
    }
    say("LLVMDisposeRelocationIterator(relocation iterator)");
    LLVMDisposeRelocationIterator(ri);
    if (bad && which == 2) {
      say("LLVMDisposeRelocationIterator(relocation iterator) again");
      LLVMDisposeRelocationIterator(ri);
      // CHECK-relocation_iterator: ==[[PID]]==ERROR: OwnSan: double-free on LLVMRelocationIteratorRef {{0x[0-9a-f]+}} (relocation iterator {{0x[0-9a-f]+}} in section iterator {{0x[0-9a-f]+}} in binary {{0x[0-9a-f]+}}){{$}}
      // CHECK-relocation_iterator-NEXT: passed as argument 1 of LLVMDisposeRelocationIterator on thread T0:
      // CHECK-relocation_iterator: freed by LLVMDisposeRelocationIterator(relocation iterator {{0x[0-9a-f]+}} in section iterator {{0x[0-9a-f]+}} in binary {{0x[0-9a-f]+}}) on thread T0:
      // CHECK-relocation_iterator: created by LLVMGetRelocations on thread T0:
      // CHECK-relocation_iterator: SUMMARY: OwnSan: double-free in LLVMDisposeRelocationIterator (
    }
    LLVMDisposeSectionIterator(si);
  }
  if (!(bad && which == 0))
    drop_binary(&b);
  return 0;
}
// COVERS-section_iterator: LLVMObjectFileCopySectionIterator LLVMDisposeSectionIterator
CASE(section_iterator) { return iterator_case(bad, 0); }
// COVERS-symbol_iterator: LLVMObjectFileCopySymbolIterator LLVMDisposeSymbolIterator
CASE(symbol_iterator) { return iterator_case(bad, 1); }
// COVERS-relocation_iterator: LLVMGetRelocations LLVMDisposeRelocationIterator
CASE(relocation_iterator) { return iterator_case(bad, 2); }
// COVERS-relocation_value_string: LLVMGetRelocationValueString
CASE(relocation_value_string) { return iterator_case(bad, 3); }
// COVERS-relocation_type_name: LLVMGetRelocationTypeName
CASE(relocation_type_name) { return iterator_case(bad, 4); }
// COVERS-relocation_symbol: LLVMGetRelocationSymbol
CASE(relocation_symbol) { return iterator_case(bad, 5); }

/* The deprecated object-file API: LLVMCreateObjectFile takes the buffer. */
// COVERS-object_file: LLVMCreateObjectFile
CASE(object_file) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  say("LLVMCreateObjectFile(object)");
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  if (!of) {
    say("no object file");
    return 1;
  }
  if (bad) {
    say("LLVMGetBufferSize(object) taken by LLVMCreateObjectFile");
    LLVMGetBufferSize(buf);
    // CHECK-object_file: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-object_file-NEXT: passed as argument 1 of LLVMGetBufferSize on thread T0:
    // CHECK-object_file: consumed by LLVMCreateObjectFile(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-object_file: SUMMARY: OwnSan: use-after-consume in LLVMGetBufferSize (
  }
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  return 0;
}
// COVERS-object_file_failed: LLVMCreateObjectFile
CASE(object_file_failed) {
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("junk", 4, "junk");
  say("LLVMCreateObjectFile(junk)");
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  printf("object file %s\n", of ? "made" : "null");
  if (bad) {
    say("LLVMDisposeMemoryBuffer(junk) destroyed by the failed call");
    LLVMDisposeMemoryBuffer(buf);
    // CHECK-object_file_failed: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-object_file_failed-NEXT: passed as argument 1 of LLVMDisposeMemoryBuffer on thread T0:
    // CHECK-object_file_failed: consumed by LLVMCreateObjectFile(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-object_file_failed: SUMMARY: OwnSan: use-after-consume in LLVMDisposeMemoryBuffer (
  }
  return 0;
}
static int object_file_iterator_case(int bad, int symbols) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  if (!of) {
    say("no object file");
    return 1;
  }
  int n = 0;
  if (symbols) {
    say("LLVMGetSymbols(object file)");
    LLVMSymbolIteratorRef sym = LLVMGetSymbols(of);
    while (!LLVMIsSymbolIteratorAtEnd(of, sym)) {
      ++n;
      LLVMMoveToNextSymbol(sym);
    }
    printf("symbols %d\n", n > 0);
    /* The iterator is its own allocation: disposing it after its object
     * file is fine (llvmlite does), using it is not. */
    say("LLVMDisposeObjectFile(object file)");
    LLVMDisposeObjectFile(of);
    if (bad) {
      say("LLVMMoveToNextSymbol(symbol iterator) of the freed object file");
      LLVMMoveToNextSymbol(sym);
      // CHECK-object_file_symbols: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMSymbolIteratorRef {{0x[0-9a-f]+}} (symbol iterator {{0x[0-9a-f]+}} in object file {{0x[0-9a-f]+}}){{$}}
      // CHECK-object_file_symbols-NEXT: passed as argument 1 of LLVMMoveToNextSymbol on thread T0:
      // CHECK-object_file_symbols: freed by LLVMDisposeObjectFile(object file {{0x[0-9a-f]+}}) on thread T0, because it belonged to that object file:
      // CHECK-object_file_symbols: created by LLVMGetSymbols on thread T0:
      // CHECK-object_file_symbols: SUMMARY: OwnSan: use-after-free in LLVMMoveToNextSymbol (
      return 0;
    }
    say("LLVMDisposeSymbolIterator(symbol iterator) of the freed object file");
    LLVMDisposeSymbolIterator(sym);
    return 0;
  } else {
    say("LLVMGetSections(object file)");
    LLVMSectionIteratorRef si = LLVMGetSections(of);
    while (!LLVMIsSectionIteratorAtEnd(of, si)) {
      ++n;
      LLVMMoveToNextSection(si);
    }
    printf("sections %d\n", n > 0);
    if (bad) {
      say("LLVMDisposeObjectFile(object file)");
      LLVMDisposeObjectFile(of);
      say("LLVMMoveToNextSection(section iterator) of the freed object file");
      LLVMMoveToNextSection(si);
      // CHECK-object_file_sections: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMSectionIteratorRef {{0x[0-9a-f]+}} (section iterator {{0x[0-9a-f]+}} in object file {{0x[0-9a-f]+}}){{$}}
      // CHECK-object_file_sections-NEXT: passed as argument 1 of LLVMMoveToNextSection on thread T0:
      // CHECK-object_file_sections: freed by LLVMDisposeObjectFile(object file {{0x[0-9a-f]+}}) on thread T0, because it belonged to that object file:
      // CHECK-object_file_sections: created by LLVMGetSections on thread T0:
      // CHECK-object_file_sections: SUMMARY: OwnSan: use-after-free in LLVMMoveToNextSection (
      return 0;
    }
    LLVMDisposeSectionIterator(si);
  }
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  return 0;
}
// COVERS-object_file_sections: LLVMDisposeObjectFile LLVMGetSections
CASE(object_file_sections) { return object_file_iterator_case(bad, 0); }
// COVERS-object_file_iterator_twice: LLVMDisposeSectionIterator
CASE(object_file_iterator_twice) {
  /* Disposing an iterator after its object file is fine once. */
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  LLVMSectionIteratorRef si = LLVMGetSections(of);
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  say("LLVMDisposeSectionIterator(section iterator) of the freed object file");
  LLVMDisposeSectionIterator(si);
  if (bad) {
    say("LLVMDisposeSectionIterator(section iterator) again");
    LLVMDisposeSectionIterator(si);
    // CHECK-object_file_iterator_twice: ==[[PID]]==ERROR: OwnSan: double-free on LLVMSectionIteratorRef {{0x[0-9a-f]+}} (section iterator {{0x[0-9a-f]+}} in object file {{0x[0-9a-f]+}}){{$}}
    // CHECK-object_file_iterator_twice-NEXT: passed as argument 1 of LLVMDisposeSectionIterator on thread T0:
    // CHECK-object_file_iterator_twice: freed by LLVMDisposeObjectFile(object file {{0x[0-9a-f]+}}) on thread T0, because it belonged to that object file:
    // CHECK-object_file_iterator_twice: created by LLVMGetSections on thread T0:
    // CHECK-object_file_iterator_twice: SUMMARY: OwnSan: double-free in LLVMDisposeSectionIterator (
  }
  return 0;
}
// COVERS-object_file_symbols: LLVMDisposeObjectFile LLVMGetSymbols
CASE(object_file_symbols) { return object_file_iterator_case(bad, 1); }

/* Disassembler contexts (X86: `nop; ret`). */
static int disasm_case(int bad, int which) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  const char *triple = "x86_64-pc-linux-gnu";
  LLVMDisasmContextRef dc =
      which == 0   ? LLVMCreateDisasm(triple, NULL, 0, NULL, NULL)
      : which == 1 ? LLVMCreateDisasmCPU(triple, "x86-64", NULL, 0, NULL, NULL)
                   : LLVMCreateDisasmCPUFeatures(triple, "x86-64", "+sse2",
                                                 NULL, 0, NULL, NULL);
  if (!dc) {
    say("no X86 disassembler");
    return EXIT_NOT_AVAILABLE;
  }
  uint8_t code[] = {0x90, 0xc3};
  char text[64];
  size_t n = LLVMDisasmInstruction(dc, code, sizeof code, 0, text, sizeof text);
  printf("decoded %zu byte(s)\n", n);
  say("LLVMDisasmDispose(disassembler)");
  LLVMDisasmDispose(dc);
  if (bad && which == 0) {
    say("LLVMDisasmInstruction(disassembler) after dispose");
    LLVMDisasmInstruction(dc, code + 1, 1, 1, text, sizeof text);
    // CHECK-disasm: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMDisasmContextRef {{0x[0-9a-f]+}} (disasm context {{0x[0-9a-f]+}}){{$}}
    // CHECK-disasm-NEXT: passed as argument 1 of LLVMDisasmInstruction on thread T0:
    // CHECK-disasm: freed by LLVMDisasmDispose(disasm context {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-disasm: created by LLVMCreateDisasm on thread T0:
    // CHECK-disasm: SUMMARY: OwnSan: use-after-free in LLVMDisasmInstruction (
  } else if (bad) {
    say("LLVMDisasmDispose(disassembler) again");
    LLVMDisasmDispose(dc);
  }
  return 0;
}
// COVERS-disasm: LLVMCreateDisasm LLVMDisasmDispose
CASE(disasm) { return disasm_case(bad, 0); }
// COVERS-disasm_cpu: LLVMCreateDisasmCPU LLVMDisasmDispose
CASE(disasm_cpu) { return disasm_case(bad, 1); }
// CHECK-disasm_cpu: ==[[PID]]==ERROR: OwnSan: double-free on LLVMDisasmContextRef {{0x[0-9a-f]+}} (disasm context {{0x[0-9a-f]+}}){{$}}
// CHECK-disasm_cpu-NEXT: passed as argument 1 of LLVMDisasmDispose on thread T0:
// CHECK-disasm_cpu: freed by LLVMDisasmDispose(disasm context {{0x[0-9a-f]+}}) on thread T0:
// CHECK-disasm_cpu: created by LLVMCreateDisasmCPU on thread T0:
// CHECK-disasm_cpu: SUMMARY: OwnSan: double-free in LLVMDisasmDispose (
// COVERS-disasm_cpu_features: LLVMCreateDisasmCPUFeatures
CASE(disasm_cpu_features) { return disasm_case(bad, 2); }
// CHECK-disasm_cpu_features: ==[[PID]]==ERROR: OwnSan: double-free on LLVMDisasmContextRef {{0x[0-9a-f]+}} (disasm context {{0x[0-9a-f]+}}){{$}}
// CHECK-disasm_cpu_features-NEXT: passed as argument 1 of LLVMDisasmDispose on thread T0:
// CHECK-disasm_cpu_features: freed by LLVMDisasmDispose(disasm context {{0x[0-9a-f]+}}) on thread T0:
// CHECK-disasm_cpu_features: created by LLVMCreateDisasmCPUFeatures on thread T0:
// CHECK-disasm_cpu_features: SUMMARY: OwnSan: double-free in LLVMDisasmDispose (

/* Metadata-entry arrays: malloc'ed plain structs with their own disposer. */
// COVERS-module_flags: LLVMCopyModuleFlagsMetadata LLVMDisposeModuleFlagsMetadata
CASE(module_flags) {
  struct ir t = make_ir("m");
  LLVMAddModuleFlag(t.mod, LLVMModuleFlagBehaviorWarning, "answer", 6,
                    LLVMValueAsMetadata(LLVMConstInt(t.i32, 42, 0)));
  size_t n = 0, len = 0;
  say("LLVMCopyModuleFlagsMetadata(module)");
  LLVMModuleFlagEntry *flags = LLVMCopyModuleFlagsMetadata(t.mod, &n);
  const char *key = LLVMModuleFlagEntriesGetKey(flags, 0, &len);
  printf("%zu flag(s), key %.*s\n", n, (int)len, key);
  say("LLVMDisposeModuleFlagsMetadata(flags)");
  LLVMDisposeModuleFlagsMetadata(flags);
  if (bad) {
    say("LLVMModuleFlagEntriesGetKey(flags) after dispose");
    LLVMModuleFlagEntriesGetKey(flags, 0, &len);
    // CHECK-module_flags: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleFlagEntry {{0x[0-9a-f]+}} (module flag entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-module_flags-NEXT: passed as argument 1 of LLVMModuleFlagEntriesGetKey on thread T0:
    // CHECK-module_flags: freed by LLVMDisposeModuleFlagsMetadata(module flag entry {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-module_flags: created by LLVMCopyModuleFlagsMetadata on thread T0:
    // CHECK-module_flags: SUMMARY: OwnSan: use-after-free in LLVMModuleFlagEntriesGetKey (
  }
  drop_ir(&t);
  return 0;
}
static int value_metadata_case(int bad, int instruction) {
  struct ir t = make_ir("m");
  unsigned kind = LLVMGetMDKindIDInContext(t.ctx, "ownsan", 6);
  LLVMMetadataRef md = LLVMMDStringInContext2(t.ctx, "x", 1);
  LLVMValueMetadataEntry *entries;
  size_t n = 0;
  if (instruction) {
    LLVMSetMetadata(
        t.sum, kind,
        LLVMMetadataAsValue(t.ctx, LLVMMDNodeInContext2(t.ctx, &md, 1)));
    say("LLVMInstructionGetAllMetadataOtherThanDebugLoc(%sum)");
    entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(t.sum, &n);
  } else {
    LLVMValueRef g = LLVMAddGlobal(t.mod, t.i32, "g");
    LLVMGlobalSetMetadata(g, kind, LLVMMDNodeInContext2(t.ctx, &md, 1));
    say("LLVMGlobalCopyAllMetadata(@g)");
    entries = LLVMGlobalCopyAllMetadata(g, &n);
  }
  printf("%zu entr%s, kind ok %d\n", n, n == 1 ? "y" : "ies",
         n > 0 && LLVMValueMetadataEntriesGetKind(entries, 0) == kind);
  say("LLVMDisposeValueMetadataEntries(entries)");
  LLVMDisposeValueMetadataEntries(entries);
  if (bad && instruction) {
    say("LLVMValueMetadataEntriesGetMetadata(entries) after dispose");
    LLVMValueMetadataEntriesGetMetadata(entries, 0);
    // CHECK-instruction_metadata: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueMetadataEntry {{0x[0-9a-f]+}} (value metadata entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-instruction_metadata-NEXT: passed as argument 1 of LLVMValueMetadataEntriesGetMetadata on thread T0:
    // CHECK-instruction_metadata: freed by LLVMDisposeValueMetadataEntries(value metadata entry {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-instruction_metadata: created by LLVMInstructionGetAllMetadataOtherThanDebugLoc on thread T0:
    // CHECK-instruction_metadata: SUMMARY: OwnSan: use-after-free in LLVMValueMetadataEntriesGetMetadata (
  } else if (bad) {
    say("LLVMDisposeValueMetadataEntries(entries) again");
    LLVMDisposeValueMetadataEntries(entries);
    // CHECK-global_metadata: ==[[PID]]==ERROR: OwnSan: double-free on LLVMValueMetadataEntry {{0x[0-9a-f]+}} (value metadata entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-global_metadata-NEXT: passed as argument 1 of LLVMDisposeValueMetadataEntries on thread T0:
    // CHECK-global_metadata: freed by LLVMDisposeValueMetadataEntries(value metadata entry {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-global_metadata: created by LLVMGlobalCopyAllMetadata on thread T0:
    // CHECK-global_metadata: SUMMARY: OwnSan: double-free in LLVMDisposeValueMetadataEntries (
  }
  drop_ir(&t);
  return 0;
}
// COVERS-global_metadata: LLVMGlobalCopyAllMetadata LLVMDisposeValueMetadataEntries
CASE(global_metadata) { return value_metadata_case(bad, 0); }
// COVERS-instruction_metadata: LLVMInstructionGetAllMetadataOtherThanDebugLoc LLVMDisposeValueMetadataEntries
CASE(instruction_metadata) { return value_metadata_case(bad, 1); }

/* Temporary metadata nodes: the caller's until disposed or RAUW'd. */
// COVERS-temporary_md_node: LLVMTemporaryMDNode LLVMDisposeTemporaryMDNode
CASE(temporary_md_node) {
  LLVMContextRef ctx = LLVMContextCreate();
  say("LLVMTemporaryMDNode(context)");
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
  say("LLVMDisposeTemporaryMDNode(temporary)");
  LLVMDisposeTemporaryMDNode(tmp);
  if (bad) {
    say("LLVMDisposeTemporaryMDNode(temporary) again");
    LLVMDisposeTemporaryMDNode(tmp);
    // CHECK-temporary_md_node: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMetadataRef {{0x[0-9a-f]+}} (metadata {{0x[0-9a-f]+}}){{$}}
    // CHECK-temporary_md_node-NEXT: passed as argument 1 of LLVMDisposeTemporaryMDNode on thread T0:
    // CHECK-temporary_md_node: freed by LLVMDisposeTemporaryMDNode(metadata {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-temporary_md_node: created by LLVMTemporaryMDNode on thread T0:
    // CHECK-temporary_md_node: SUMMARY: OwnSan: double-free in LLVMDisposeTemporaryMDNode (
  }
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-temporary_md_rauw: LLVMTemporaryMDNode LLVMMetadataReplaceAllUsesWith
CASE(temporary_md_rauw) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
  LLVMMetadataRef user = LLVMMDNodeInContext2(ctx, &tmp, 1); /* a use of it */
  LLVMMetadataRef s = LLVMMDStringInContext2(ctx, "r", 1);
  LLVMMetadataRef repl = LLVMMDNodeInContext2(ctx, &s, 1);
  say("LLVMMetadataReplaceAllUsesWith(temporary, node)");
  LLVMMetadataReplaceAllUsesWith(tmp, repl);
  printf("user is a node %d\n",
         LLVMGetMDNodeNumOperands(LLVMMetadataAsValue(ctx, user)) == 1);
  if (bad) {
    say("LLVMDisposeTemporaryMDNode(temporary) after RAUW");
    LLVMDisposeTemporaryMDNode(tmp);
    // CHECK-temporary_md_rauw: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMetadataRef {{0x[0-9a-f]+}} (metadata {{0x[0-9a-f]+}}){{$}}
    // CHECK-temporary_md_rauw-NEXT: passed as argument 1 of LLVMDisposeTemporaryMDNode on thread T0:
    // CHECK-temporary_md_rauw: freed by LLVMMetadataReplaceAllUsesWith(metadata {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-temporary_md_rauw: created by LLVMTemporaryMDNode on thread T0:
    // CHECK-temporary_md_rauw: SUMMARY: OwnSan: double-free in LLVMDisposeTemporaryMDNode (
  }
  LLVMContextDispose(ctx);
  return 0;
}
static int di_temporary_case(int bad, int global) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  LLVMMetadataRef file = LLVMDIBuilderCreateFile(d, "a.c", 3, ".", 1);
  if (global) {
    LLVMMetadataRef ity = LLVMDIBuilderCreateBasicType(d, "int", 3, 32, 5, 0);
    say("LLVMDIBuilderCreateTempGlobalVariableFwdDecl(dibuilder)");
    LLVMMetadataRef tmp = LLVMDIBuilderCreateTempGlobalVariableFwdDecl(
        d, file, "g", 1, "g", 1, file, 1, ity, 0, NULL, 0);
    say("LLVMDisposeTemporaryMDNode(forward declaration)");
    LLVMDisposeTemporaryMDNode(tmp);
    if (bad) {
      say("LLVMDisposeTemporaryMDNode(forward declaration) again");
      LLVMDisposeTemporaryMDNode(tmp);
      // CHECK-temp_global_variable_fwd_decl: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMetadataRef {{0x[0-9a-f]+}} (metadata {{0x[0-9a-f]+}}){{$}}
      // CHECK-temp_global_variable_fwd_decl-NEXT: passed as argument 1 of LLVMDisposeTemporaryMDNode on thread T0:
      // CHECK-temp_global_variable_fwd_decl: freed by LLVMDisposeTemporaryMDNode(metadata {{0x[0-9a-f]+}}) on thread T0:
      // CHECK-temp_global_variable_fwd_decl: created by LLVMDIBuilderCreateTempGlobalVariableFwdDecl on thread T0:
      // CHECK-temp_global_variable_fwd_decl: SUMMARY: OwnSan: double-free in LLVMDisposeTemporaryMDNode (
    }
  } else {
    say("LLVMDIBuilderCreateReplaceableCompositeType(dibuilder)");
    LLVMMetadataRef tmp = LLVMDIBuilderCreateReplaceableCompositeType(
        d, 0x13 /* DW_TAG_structure_type */, "S", 1, file, file, 1, 0, 0, 0,
        LLVMDIFlagFwdDecl, "", 0);
    LLVMMetadataRef real = LLVMDIBuilderCreateStructType(
        d, file, "S", 1, file, 1, 0, 0, LLVMDIFlagZero, NULL, NULL, 0, 0, NULL,
        "", 0);
    say("LLVMMetadataReplaceAllUsesWith(forward type, struct type)");
    LLVMMetadataReplaceAllUsesWith(tmp, real);
    if (bad) {
      say("LLVMMetadataReplaceAllUsesWith(forward type) again");
      LLVMMetadataReplaceAllUsesWith(tmp, real);
      // CHECK-replaceable_composite_type: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMetadataRef {{0x[0-9a-f]+}} (metadata {{0x[0-9a-f]+}}){{$}}
      // CHECK-replaceable_composite_type-NEXT: passed as argument 1 of LLVMMetadataReplaceAllUsesWith on thread T0:
      // CHECK-replaceable_composite_type: freed by LLVMMetadataReplaceAllUsesWith(metadata {{0x[0-9a-f]+}}) on thread T0:
      // CHECK-replaceable_composite_type: created by LLVMDIBuilderCreateReplaceableCompositeType on thread T0:
      // CHECK-replaceable_composite_type: SUMMARY: OwnSan: double-free in LLVMMetadataReplaceAllUsesWith (
    }
  }
  LLVMDisposeDIBuilder(d);
  drop_ir(&t);
  return 0;
}
// COVERS-replaceable_composite_type: LLVMDIBuilderCreateReplaceableCompositeType LLVMMetadataReplaceAllUsesWith
CASE(replaceable_composite_type) { return di_temporary_case(bad, 0); }
// COVERS-temp_global_variable_fwd_decl: LLVMDIBuilderCreateTempGlobalVariableFwdDecl LLVMDisposeTemporaryMDNode
CASE(temp_global_variable_fwd_decl) { return di_temporary_case(bad, 1); }

/* Remarks (YAML): entries outlive the parser; their handles die with them. */
static const char kRemarks[] = "--- !Missed\n"
                               "Pass: inline\n"
                               "Name: NoDefinition\n"
                               "DebugLoc: { File: a.c, Line: 3, Column: 4 }\n"
                               "Function: foo\n"
                               "Args:\n"
                               "  - Callee: bar\n"
                               "  - String: ' will not be inlined'\n"
                               "...\n";
static void print_remark_string(const char *what, LLVMRemarkStringRef s) {
  printf("%s %.*s\n", what, (int)LLVMRemarkStringGetLen(s),
         LLVMRemarkStringGetData(s));
}
// COVERS-remark_parser: LLVMRemarkParserCreateYAML LLVMRemarkParserDispose
CASE(remark_parser) {
  say("LLVMRemarkParserCreateYAML(remarks)");
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateYAML(kRemarks, sizeof kRemarks - 1);
  int n = 0;
  LLVMRemarkEntryRef e;
  while ((e = LLVMRemarkParserGetNext(p))) {
    ++n;
    LLVMRemarkEntryDispose(e);
  }
  printf("%d remark(s), error %d\n", n, (int)LLVMRemarkParserHasError(p));
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  if (bad) {
    say("LLVMRemarkParserGetNext(parser) after dispose");
    LLVMRemarkParserGetNext(p);
    // CHECK-remark_parser: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkParserRef {{0x[0-9a-f]+}} (remark parser {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_parser-NEXT: passed as argument 1 of LLVMRemarkParserGetNext on thread T0:
    // CHECK-remark_parser: freed by LLVMRemarkParserDispose(remark parser {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-remark_parser: created by LLVMRemarkParserCreateYAML on thread T0:
    // CHECK-remark_parser: SUMMARY: OwnSan: use-after-free in LLVMRemarkParserGetNext (
  }
  return 0;
}
// COVERS-remark_parser_bitstream: LLVMRemarkParserCreateBitstream LLVMRemarkParserDispose
CASE(remark_parser_bitstream) {
  static const char junk[] = "not a bitstream";
  say("LLVMRemarkParserCreateBitstream(junk)");
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateBitstream(junk, sizeof junk - 1);
  LLVMRemarkEntryRef e = LLVMRemarkParserGetNext(p);
  printf("remark %s, error %d\n", e ? "read" : "none",
         (int)LLVMRemarkParserHasError(p));
  if (e)
    LLVMRemarkEntryDispose(e);
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  if (bad) {
    say("LLVMRemarkParserDispose(parser) again");
    LLVMRemarkParserDispose(p);
    // CHECK-remark_parser_bitstream: ==[[PID]]==ERROR: OwnSan: double-free on LLVMRemarkParserRef {{0x[0-9a-f]+}} (remark parser {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_parser_bitstream-NEXT: passed as argument 1 of LLVMRemarkParserDispose on thread T0:
    // CHECK-remark_parser_bitstream: freed by LLVMRemarkParserDispose(remark parser {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-remark_parser_bitstream: created by LLVMRemarkParserCreateBitstream on thread T0:
    // CHECK-remark_parser_bitstream: SUMMARY: OwnSan: double-free in LLVMRemarkParserDispose (
  }
  return 0;
}
/* which: the handle used after LLVMRemarkEntryDispose (bad). */
static int remark_entry_case(int bad, int which) {
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateYAML(kRemarks, sizeof kRemarks - 1);
  say("LLVMRemarkParserGetNext(parser)");
  LLVMRemarkEntryRef e = LLVMRemarkParserGetNext(p);
  if (!e) {
    printf("no remark: %s\n", LLVMRemarkParserGetErrorMessage(p));
    return 1;
  }
  /* The entry outlives its parser. */
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  LLVMRemarkStringRef pass = LLVMRemarkEntryGetPassName(e);
  LLVMRemarkStringRef name = LLVMRemarkEntryGetRemarkName(e);
  LLVMRemarkStringRef fn = LLVMRemarkEntryGetFunctionName(e);
  LLVMRemarkDebugLocRef loc = LLVMRemarkEntryGetDebugLoc(e);
  LLVMRemarkArgRef first = LLVMRemarkEntryGetFirstArg(e);
  LLVMRemarkArgRef second = LLVMRemarkEntryGetNextArg(first, e);
  LLVMRemarkStringRef value = LLVMRemarkArgGetValue(second);
  printf("type %d line %u args %u\n", (int)LLVMRemarkEntryGetType(e),
         LLVMRemarkDebugLocGetSourceLine(loc), LLVMRemarkEntryGetNumArgs(e));
  print_remark_string("pass", pass);
  print_remark_string("name", name);
  print_remark_string("function", fn);
  print_remark_string("first key", LLVMRemarkArgGetKey(first));
  print_remark_string("second value", value);
  say("LLVMRemarkEntryDispose(entry)");
  LLVMRemarkEntryDispose(e);
  if (!bad)
    return 0;
  switch (which) {
  case 0:
    say("LLVMRemarkStringGetLen(pass name)");
    LLVMRemarkStringGetLen(pass);
    // CHECK-remark_pass_name: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkStringRef {{0x[0-9a-f]+}} (remark string {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_pass_name-NEXT: passed as argument 1 of LLVMRemarkStringGetLen on thread T0:
    // CHECK-remark_pass_name: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_pass_name: created by LLVMRemarkEntryGetPassName on thread T0:
    // CHECK-remark_pass_name: SUMMARY: OwnSan: use-after-free in LLVMRemarkStringGetLen (
    break;
  case 1:
    say("LLVMRemarkStringGetLen(remark name)");
    LLVMRemarkStringGetLen(name);
    // CHECK-remark_remark_name: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkStringRef {{0x[0-9a-f]+}} (remark string {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_remark_name-NEXT: passed as argument 1 of LLVMRemarkStringGetLen on thread T0:
    // CHECK-remark_remark_name: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_remark_name: created by LLVMRemarkEntryGetRemarkName on thread T0:
    // CHECK-remark_remark_name: SUMMARY: OwnSan: use-after-free in LLVMRemarkStringGetLen (
    break;
  case 2:
    say("LLVMRemarkStringGetLen(function name)");
    LLVMRemarkStringGetLen(fn);
    // CHECK-remark_function_name: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkStringRef {{0x[0-9a-f]+}} (remark string {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_function_name-NEXT: passed as argument 1 of LLVMRemarkStringGetLen on thread T0:
    // CHECK-remark_function_name: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_function_name: created by LLVMRemarkEntryGetFunctionName on thread T0:
    // CHECK-remark_function_name: SUMMARY: OwnSan: use-after-free in LLVMRemarkStringGetLen (
    break;
  case 3:
    say("LLVMRemarkDebugLocGetSourceLine(location)");
    LLVMRemarkDebugLocGetSourceLine(loc);
    // CHECK-remark_debug_loc: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkDebugLocRef {{0x[0-9a-f]+}} (remark debug loc {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_debug_loc-NEXT: passed as argument 1 of LLVMRemarkDebugLocGetSourceLine on thread T0:
    // CHECK-remark_debug_loc: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_debug_loc: created by LLVMRemarkEntryGetDebugLoc on thread T0:
    // CHECK-remark_debug_loc: SUMMARY: OwnSan: use-after-free in LLVMRemarkDebugLocGetSourceLine (
    break;
  case 4:
    say("LLVMRemarkArgGetKey(first argument)");
    LLVMRemarkArgGetKey(first);
    // CHECK-remark_first_arg: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkArgRef {{0x[0-9a-f]+}} (remark arg {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_first_arg-NEXT: passed as argument 1 of LLVMRemarkArgGetKey on thread T0:
    // CHECK-remark_first_arg: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_first_arg: created by LLVMRemarkEntryGetFirstArg on thread T0:
    // CHECK-remark_first_arg: SUMMARY: OwnSan: use-after-free in LLVMRemarkArgGetKey (
    break;
  case 5:
    say("LLVMRemarkArgGetValue(second argument)");
    LLVMRemarkArgGetValue(second);
    // CHECK-remark_next_arg: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkArgRef {{0x[0-9a-f]+}} (remark arg {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_next_arg-NEXT: passed as argument 1 of LLVMRemarkArgGetValue on thread T0:
    // CHECK-remark_next_arg: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_next_arg: created by LLVMRemarkEntryGetNextArg on thread T0:
    // CHECK-remark_next_arg: SUMMARY: OwnSan: use-after-free in LLVMRemarkArgGetValue (
    break;
  case 6:
    say("LLVMRemarkStringGetData(second value)");
    LLVMRemarkStringGetData(value);
    // CHECK-remark_arg_value: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMRemarkStringRef {{0x[0-9a-f]+}} (remark string {{0x[0-9a-f]+}} in remark arg {{0x[0-9a-f]+}} in remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_arg_value-NEXT: passed as argument 1 of LLVMRemarkStringGetData on thread T0:
    // CHECK-remark_arg_value: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0, because it belonged to that remark entry:
    // CHECK-remark_arg_value: created by LLVMRemarkArgGetValue on thread T0:
    // CHECK-remark_arg_value: SUMMARY: OwnSan: use-after-free in LLVMRemarkStringGetData (
    break;
  case 7:
    say("LLVMRemarkEntryDispose(entry) again");
    LLVMRemarkEntryDispose(e);
    // CHECK-remark_entry: ==[[PID]]==ERROR: OwnSan: double-free on LLVMRemarkEntryRef {{0x[0-9a-f]+}} (remark entry {{0x[0-9a-f]+}}){{$}}
    // CHECK-remark_entry-NEXT: passed as argument 1 of LLVMRemarkEntryDispose on thread T0:
    // CHECK-remark_entry: freed by LLVMRemarkEntryDispose(remark entry {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-remark_entry: created by LLVMRemarkParserGetNext on thread T0:
    // CHECK-remark_entry: SUMMARY: OwnSan: double-free in LLVMRemarkEntryDispose (
    break;
  }
  return 0;
}
// COVERS-remark_entry: LLVMRemarkParserGetNext LLVMRemarkEntryDispose
CASE(remark_entry) { return remark_entry_case(bad, 7); }
// COVERS-remark_pass_name: LLVMRemarkEntryGetPassName
CASE(remark_pass_name) { return remark_entry_case(bad, 0); }
// COVERS-remark_remark_name: LLVMRemarkEntryGetRemarkName
CASE(remark_remark_name) { return remark_entry_case(bad, 1); }
// COVERS-remark_function_name: LLVMRemarkEntryGetFunctionName
CASE(remark_function_name) { return remark_entry_case(bad, 2); }
// COVERS-remark_debug_loc: LLVMRemarkEntryGetDebugLoc
CASE(remark_debug_loc) { return remark_entry_case(bad, 3); }
// COVERS-remark_first_arg: LLVMRemarkEntryGetFirstArg
CASE(remark_first_arg) { return remark_entry_case(bad, 4); }
// COVERS-remark_next_arg: LLVMRemarkEntryGetNextArg
CASE(remark_next_arg) { return remark_entry_case(bad, 5); }
// COVERS-remark_arg_value: LLVMRemarkArgGetValue
CASE(remark_arg_value) { return remark_entry_case(bad, 6); }

/* Legacy pass manager builder (LLVM 14 to 16; removed in 17). */
// COVERS-pass_manager_builder: LLVMPassManagerBuilderCreate LLVMPassManagerBuilderDispose
CASE(pass_manager_builder) {
#if LLVM_VERSION_MAJOR <= 16
  LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
  LLVMPassManagerBuilderSetOptLevel(pmb, 2);
  say("LLVMPassManagerBuilderDispose(builder)");
  LLVMPassManagerBuilderDispose(pmb);
  if (bad) {
    say("LLVMPassManagerBuilderDispose(builder) again");
    LLVMPassManagerBuilderDispose(pmb);
    // CHECK-pass_manager_builder: ==[[PID]]==ERROR: OwnSan: double-free on LLVMPassManagerBuilderRef {{0x[0-9a-f]+}} (pass manager builder {{0x[0-9a-f]+}}){{$}}
    // CHECK-pass_manager_builder-NEXT: passed as argument 1 of LLVMPassManagerBuilderDispose on thread T0:
    // CHECK-pass_manager_builder: freed by LLVMPassManagerBuilderDispose(pass manager builder {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-pass_manager_builder: created by LLVMPassManagerBuilderCreate on thread T0:
    // CHECK-pass_manager_builder: SUMMARY: OwnSan: double-free in LLVMPassManagerBuilderDispose (
  }
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
// COVERS-pass_manager_builder_use: LLVMPassManagerBuilderDispose
CASE(pass_manager_builder_use) {
#if LLVM_VERSION_MAJOR <= 16
  LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
  if (!bad) {
    say("LLVMPassManagerBuilderSetSizeLevel(builder, 1)");
    LLVMPassManagerBuilderSetSizeLevel(pmb, 1);
  }
  say("LLVMPassManagerBuilderDispose(builder)");
  LLVMPassManagerBuilderDispose(pmb);
  if (bad) {
    say("LLVMPassManagerBuilderSetSizeLevel(builder, 1) after dispose");
    LLVMPassManagerBuilderSetSizeLevel(pmb, 1);
    // CHECK-pass_manager_builder_use: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMPassManagerBuilderRef {{0x[0-9a-f]+}} (pass manager builder {{0x[0-9a-f]+}}){{$}}
    // CHECK-pass_manager_builder_use-NEXT: passed as argument 1 of LLVMPassManagerBuilderSetSizeLevel on thread T0:
    // CHECK-pass_manager_builder_use: freed by LLVMPassManagerBuilderDispose(pass manager builder {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-pass_manager_builder_use: created by LLVMPassManagerBuilderCreate on thread T0:
    // CHECK-pass_manager_builder_use: SUMMARY: OwnSan: use-after-free in LLVMPassManagerBuilderSetSizeLevel (
  }
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* MCJIT memory managers: the caller's until an engine takes one. */
static uint8_t *mm_alloc_code(void *o, uintptr_t size, unsigned align,
                              unsigned id, const char *name) {
  (void)o;
  (void)size;
  (void)align;
  (void)id;
  (void)name;
  return NULL;
}
static uint8_t *mm_alloc_data(void *o, uintptr_t size, unsigned align,
                              unsigned id, const char *name, LLVMBool ro) {
  (void)o;
  (void)size;
  (void)align;
  (void)id;
  (void)name;
  (void)ro;
  return NULL;
}
static LLVMBool mm_finalize(void *o, char **err) {
  (void)o;
  (void)err;
  return 0;
}
static void mm_destroy(void *o) {
  (void)o;
  say("memory manager destroyed");
}
static LLVMMCJITMemoryManagerRef make_mm(void) {
  return LLVMCreateSimpleMCJITMemoryManager(NULL, mm_alloc_code, mm_alloc_data,
                                            mm_finalize, mm_destroy);
}
// COVERS-mcjit_memory_manager: LLVMCreateSimpleMCJITMemoryManager LLVMDisposeMCJITMemoryManager
CASE(mcjit_memory_manager) {
  say("LLVMCreateSimpleMCJITMemoryManager()");
  LLVMMCJITMemoryManagerRef mm = make_mm();
  say("LLVMDisposeMCJITMemoryManager(manager)");
  LLVMDisposeMCJITMemoryManager(mm);
  if (bad) {
    say("LLVMDisposeMCJITMemoryManager(manager) again");
    LLVMDisposeMCJITMemoryManager(mm);
    // CHECK-mcjit_memory_manager: ==[[PID]]==ERROR: OwnSan: double-free on LLVMMCJITMemoryManagerRef {{0x[0-9a-f]+}} (mcjit memory manager {{0x[0-9a-f]+}}){{$}}
    // CHECK-mcjit_memory_manager-NEXT: passed as argument 1 of LLVMDisposeMCJITMemoryManager on thread T0:
    // CHECK-mcjit_memory_manager: freed by LLVMDisposeMCJITMemoryManager(mcjit memory manager {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-mcjit_memory_manager: created by LLVMCreateSimpleMCJITMemoryManager on thread T0:
    // CHECK-mcjit_memory_manager: SUMMARY: OwnSan: double-free in LLVMDisposeMCJITMemoryManager (
  }
  return 0;
}
/* with_target: an engine is made and owns the manager; without a native
 * target creation fails and the builder destroys it. */
static int mcjit_mm_case(int bad, int with_target) {
  if (with_target) {
    LLVMLinkInMCJIT();
    have_x86();
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMMCJITMemoryManagerRef mm = make_mm();
  struct LLVMMCJITCompilerOptions o;
  LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
  o.MCJMM = mm;
  LLVMExecutionEngineRef ee = NULL;
  char *err = NULL;
  say("LLVMCreateMCJITCompilerForModule(&engine, module, {.MCJMM = manager})");
  if (LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err)) {
    say("failed");
    LLVMDisposeMessage(err);
    if (with_target) {
      LLVMContextDispose(ctx);
      return EXIT_NOT_AVAILABLE;
    }
    if (bad) {
      say("LLVMDisposeMCJITMemoryManager(manager) destroyed by the failed "
          "call");
      LLVMDisposeMCJITMemoryManager(mm);
      // CHECK-mcjit_failed_memory_manager: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMCJITMemoryManagerRef {{0x[0-9a-f]+}} (mcjit memory manager {{0x[0-9a-f]+}}){{$}}
      // CHECK-mcjit_failed_memory_manager-NEXT: passed as argument 1 of LLVMDisposeMCJITMemoryManager on thread T0:
      // CHECK-mcjit_failed_memory_manager: consumed during LLVMCreateMCJITCompilerForModule on thread T0, by LLVM itself:
      // CHECK-mcjit_failed_memory_manager: SUMMARY: OwnSan: use-after-consume in LLVMDisposeMCJITMemoryManager (
    }
    LLVMContextDispose(ctx);
    return 0;
  }
  if (!with_target) {
    say("unexpectedly created");
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    return 0;
  }
  if (bad) {
    say("LLVMDisposeMCJITMemoryManager(manager) owned by the engine");
    LLVMDisposeMCJITMemoryManager(mm);
    // CHECK-mcjit_owns_memory_manager: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMMCJITMemoryManagerRef {{0x[0-9a-f]+}} (mcjit memory manager {{0x[0-9a-f]+}} in execution engine {{0x[0-9a-f]+}}){{$}}
    // CHECK-mcjit_owns_memory_manager-NEXT: LLVMDisposeMCJITMemoryManager frees an object the caller gave away: execution engine {{0x[0-9a-f]+}} owns it since LLVMCreateMCJITCompilerForModule and frees it itself
    // CHECK-mcjit_owns_memory_manager-NEXT: passed as argument 1 of LLVMDisposeMCJITMemoryManager on thread T0:
    // CHECK-mcjit_owns_memory_manager: SUMMARY: OwnSan: invalid-free in LLVMDisposeMCJITMemoryManager (
  }
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(ee);
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-mcjit_owns_memory_manager: LLVMCreateMCJITCompilerForModule LLVMDisposeMCJITMemoryManager
CASE(mcjit_owns_memory_manager) { return mcjit_mm_case(bad, 1); }
// COVERS-mcjit_failed_memory_manager: LLVMCreateMCJITCompilerForModule
CASE(mcjit_failed_memory_manager) { return mcjit_mm_case(bad, 0); }

/* Other caller-owned objects: ok disposes once, bad twice. */
#define DOUBLE_DISPOSE(obj, dispose, what)                                     \
  do {                                                                         \
    say(what);                                                                 \
    dispose(obj);                                                              \
    if (bad) {                                                                 \
      say("again");                                                            \
      dispose(obj);                                                            \
    }                                                                          \
  } while (0)
// COVERS-target_machine: LLVMCreateTargetMachine LLVMDisposeTargetMachine
CASE(target_machine) {
  LLVMTargetMachineRef tm = make_tm();
  DOUBLE_DISPOSE(tm, LLVMDisposeTargetMachine, "LLVMDisposeTargetMachine(tm)");
  // CHECK-target_machine: ==[[PID]]==ERROR: OwnSan: double-free on LLVMTargetMachineRef {{0x[0-9a-f]+}} (target machine {{0x[0-9a-f]+}}){{$}}
  // CHECK-target_machine-NEXT: passed as argument 1 of LLVMDisposeTargetMachine on thread T0:
  // CHECK-target_machine: freed by LLVMDisposeTargetMachine(target machine {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-target_machine: created by LLVMCreateTargetMachine on thread T0:
  // CHECK-target_machine: SUMMARY: OwnSan: double-free in LLVMDisposeTargetMachine (
  return 0;
}
// COVERS-target_machine_options: LLVMCreateTargetMachineWithOptions
CASE(target_machine_options) {
#if LLVM_VERSION_MAJOR >= 19
  have_x86();
  LLVMTargetRef t;
  char *err = NULL;
  if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &t, &err))
    return EXIT_NOT_AVAILABLE;
  LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
  LLVMTargetMachineRef tm =
      LLVMCreateTargetMachineWithOptions(t, "x86_64-pc-linux-gnu", o);
  LLVMDisposeTargetMachineOptions(o);
  DOUBLE_DISPOSE(tm, LLVMDisposeTargetMachine,
                 "LLVMDisposeTargetMachine(tm with options)");
  // CHECK-target_machine_options: ==[[PID]]==ERROR: OwnSan: double-free on LLVMTargetMachineRef {{0x[0-9a-f]+}} (target machine {{0x[0-9a-f]+}}){{$}}
  // CHECK-target_machine_options-NEXT: passed as argument 1 of LLVMDisposeTargetMachine on thread T0:
  // CHECK-target_machine_options: freed by LLVMDisposeTargetMachine(target machine {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-target_machine_options: created by LLVMCreateTargetMachineWithOptions on thread T0:
  // CHECK-target_machine_options: SUMMARY: OwnSan: double-free in LLVMDisposeTargetMachine (
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
// COVERS-target_machine_options_dispose: LLVMCreateTargetMachineOptions LLVMDisposeTargetMachineOptions
CASE(target_machine_options_dispose) {
#if LLVM_VERSION_MAJOR >= 19
  LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
  DOUBLE_DISPOSE(o, LLVMDisposeTargetMachineOptions,
                 "LLVMDisposeTargetMachineOptions(options)");
  // CHECK-target_machine_options_dispose: ==[[PID]]==ERROR: OwnSan: double-free on LLVMTargetMachineOptionsRef {{0x[0-9a-f]+}} (target machine options {{0x[0-9a-f]+}}){{$}}
  // CHECK-target_machine_options_dispose-NEXT: passed as argument 1 of LLVMDisposeTargetMachineOptions on thread T0:
  // CHECK-target_machine_options_dispose: freed by LLVMDisposeTargetMachineOptions(target machine options {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-target_machine_options_dispose: created by LLVMCreateTargetMachineOptions on thread T0:
  // CHECK-target_machine_options_dispose: SUMMARY: OwnSan: double-free in LLVMDisposeTargetMachineOptions (
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
// COVERS-target_data_layout: LLVMCreateTargetDataLayout LLVMDisposeTargetData
CASE(target_data_layout) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMDisposeTargetMachine(tm);
  DOUBLE_DISPOSE(td, LLVMDisposeTargetData,
                 "LLVMDisposeTargetData(data layout)");
  // CHECK-target_data_layout: ==[[PID]]==ERROR: OwnSan: double-free on LLVMTargetDataRef {{0x[0-9a-f]+}} (target data {{0x[0-9a-f]+}}){{$}}
  // CHECK-target_data_layout-NEXT: passed as argument 1 of LLVMDisposeTargetData on thread T0:
  // CHECK-target_data_layout: freed by LLVMDisposeTargetData(target data {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-target_data_layout: created by LLVMCreateTargetDataLayout on thread T0:
  // CHECK-target_data_layout: SUMMARY: OwnSan: double-free in LLVMDisposeTargetData (
  return 0;
}
// COVERS-pass_manager: LLVMCreatePassManager LLVMDisposePassManager
CASE(pass_manager) {
  LLVMPassManagerRef pm = LLVMCreatePassManager();
  DOUBLE_DISPOSE(pm, LLVMDisposePassManager, "LLVMDisposePassManager(pm)");
  // CHECK-pass_manager: ==[[PID]]==ERROR: OwnSan: double-free on LLVMPassManagerRef {{0x[0-9a-f]+}} (pass manager {{0x[0-9a-f]+}}){{$}}
  // CHECK-pass_manager-NEXT: passed as argument 1 of LLVMDisposePassManager on thread T0:
  // CHECK-pass_manager: freed by LLVMDisposePassManager(pass manager {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-pass_manager: created by LLVMCreatePassManager on thread T0:
  // CHECK-pass_manager: SUMMARY: OwnSan: double-free in LLVMDisposePassManager (
  return 0;
}
// COVERS-function_pass_manager: LLVMCreateFunctionPassManagerForModule
CASE(function_pass_manager) {
  struct ir t = make_ir("m");
  LLVMPassManagerRef pm = LLVMCreateFunctionPassManagerForModule(t.mod);
  DOUBLE_DISPOSE(pm, LLVMDisposePassManager,
                 "LLVMDisposePassManager(function pm)");
  // CHECK-function_pass_manager: ==[[PID]]==ERROR: OwnSan: double-free on LLVMPassManagerRef {{0x[0-9a-f]+}} (pass manager {{0x[0-9a-f]+}}){{$}}
  // CHECK-function_pass_manager-NEXT: passed as argument 1 of LLVMDisposePassManager on thread T0:
  // CHECK-function_pass_manager: freed by LLVMDisposePassManager(pass manager {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-function_pass_manager: created by LLVMCreateFunctionPassManagerForModule on thread T0:
  // CHECK-function_pass_manager: SUMMARY: OwnSan: double-free in LLVMDisposePassManager (
  drop_ir(&t);
  return 0;
}
// COVERS-pass_builder_options: LLVMCreatePassBuilderOptions LLVMDisposePassBuilderOptions
CASE(pass_builder_options) {
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  DOUBLE_DISPOSE(o, LLVMDisposePassBuilderOptions,
                 "LLVMDisposePassBuilderOptions(options)");
  // CHECK-pass_builder_options: ==[[PID]]==ERROR: OwnSan: double-free on LLVMPassBuilderOptionsRef {{0x[0-9a-f]+}} (pass builder options {{0x[0-9a-f]+}}){{$}}
  // CHECK-pass_builder_options-NEXT: passed as argument 1 of LLVMDisposePassBuilderOptions on thread T0:
  // CHECK-pass_builder_options: freed by LLVMDisposePassBuilderOptions(pass builder options {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-pass_builder_options: created by LLVMCreatePassBuilderOptions on thread T0:
  // CHECK-pass_builder_options: SUMMARY: OwnSan: double-free in LLVMDisposePassBuilderOptions (
  return 0;
}
// COVERS-dibuilder: LLVMCreateDIBuilder LLVMDisposeDIBuilder
CASE(dibuilder) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  DOUBLE_DISPOSE(d, LLVMDisposeDIBuilder, "LLVMDisposeDIBuilder(dibuilder)");
  // CHECK-dibuilder: ==[[PID]]==ERROR: OwnSan: double-free on LLVMDIBuilderRef {{0x[0-9a-f]+}} (di builder {{0x[0-9a-f]+}}){{$}}
  // CHECK-dibuilder-NEXT: passed as argument 1 of LLVMDisposeDIBuilder on thread T0:
  // CHECK-dibuilder: freed by LLVMDisposeDIBuilder(di builder {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-dibuilder: created by LLVMCreateDIBuilder on thread T0:
  // CHECK-dibuilder: SUMMARY: OwnSan: double-free in LLVMDisposeDIBuilder (
  drop_ir(&t);
  return 0;
}
// COVERS-dibuilder_disallow_unresolved: LLVMCreateDIBuilderDisallowUnresolved
CASE(dibuilder_disallow_unresolved) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilderDisallowUnresolved(t.mod);
  DOUBLE_DISPOSE(d, LLVMDisposeDIBuilder, "LLVMDisposeDIBuilder(dibuilder)");
  // CHECK-dibuilder_disallow_unresolved: ==[[PID]]==ERROR: OwnSan: double-free on LLVMDIBuilderRef {{0x[0-9a-f]+}} (di builder {{0x[0-9a-f]+}}){{$}}
  // CHECK-dibuilder_disallow_unresolved-NEXT: passed as argument 1 of LLVMDisposeDIBuilder on thread T0:
  // CHECK-dibuilder_disallow_unresolved: freed by LLVMDisposeDIBuilder(di builder {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-dibuilder_disallow_unresolved: created by LLVMCreateDIBuilderDisallowUnresolved on thread T0:
  // CHECK-dibuilder_disallow_unresolved: SUMMARY: OwnSan: double-free in LLVMDisposeDIBuilder (
  drop_ir(&t);
  return 0;
}
// COVERS-generic_value_int: LLVMCreateGenericValueOfInt LLVMDisposeGenericValue
CASE(generic_value_int) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMGenericValueRef g =
      LLVMCreateGenericValueOfInt(LLVMInt32TypeInContext(ctx), 3, 0);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue, "LLVMDisposeGenericValue(int)");
  // CHECK-generic_value_int: ==[[PID]]==ERROR: OwnSan: double-free on LLVMGenericValueRef {{0x[0-9a-f]+}} (generic value {{0x[0-9a-f]+}}){{$}}
  // CHECK-generic_value_int-NEXT: passed as argument 1 of LLVMDisposeGenericValue on thread T0:
  // CHECK-generic_value_int: freed by LLVMDisposeGenericValue(generic value {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-generic_value_int: created by LLVMCreateGenericValueOfInt on thread T0:
  // CHECK-generic_value_int: SUMMARY: OwnSan: double-free in LLVMDisposeGenericValue (
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-generic_value_pointer: LLVMCreateGenericValueOfPointer
CASE(generic_value_pointer) {
  static int x;
  LLVMGenericValueRef g = LLVMCreateGenericValueOfPointer(&x);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue,
                 "LLVMDisposeGenericValue(pointer)");
  // CHECK-generic_value_pointer: ==[[PID]]==ERROR: OwnSan: double-free on LLVMGenericValueRef {{0x[0-9a-f]+}} (generic value {{0x[0-9a-f]+}}){{$}}
  // CHECK-generic_value_pointer-NEXT: passed as argument 1 of LLVMDisposeGenericValue on thread T0:
  // CHECK-generic_value_pointer: freed by LLVMDisposeGenericValue(generic value {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-generic_value_pointer: created by LLVMCreateGenericValueOfPointer on thread T0:
  // CHECK-generic_value_pointer: SUMMARY: OwnSan: double-free in LLVMDisposeGenericValue (
  return 0;
}
// COVERS-generic_value_float: LLVMCreateGenericValueOfFloat
CASE(generic_value_float) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMGenericValueRef g =
      LLVMCreateGenericValueOfFloat(LLVMDoubleTypeInContext(ctx), 1.5);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue, "LLVMDisposeGenericValue(float)");
  // CHECK-generic_value_float: ==[[PID]]==ERROR: OwnSan: double-free on LLVMGenericValueRef {{0x[0-9a-f]+}} (generic value {{0x[0-9a-f]+}}){{$}}
  // CHECK-generic_value_float-NEXT: passed as argument 1 of LLVMDisposeGenericValue on thread T0:
  // CHECK-generic_value_float: freed by LLVMDisposeGenericValue(generic value {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-generic_value_float: created by LLVMCreateGenericValueOfFloat on thread T0:
  // CHECK-generic_value_float: SUMMARY: OwnSan: double-free in LLVMDisposeGenericValue (
  LLVMContextDispose(ctx);
  return 0;
}
// COVERS-operand_bundle: LLVMCreateOperandBundle LLVMDisposeOperandBundle
CASE(operand_bundle) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMValueRef arg = LLVMConstInt(t.i32, 1, 0);
  LLVMOperandBundleRef ob = LLVMCreateOperandBundle("tag", 3, &arg, 1);
  DOUBLE_DISPOSE(ob, LLVMDisposeOperandBundle,
                 "LLVMDisposeOperandBundle(bundle)");
  // CHECK-operand_bundle: ==[[PID]]==ERROR: OwnSan: double-free on LLVMOperandBundleRef {{0x[0-9a-f]+}} (operand bundle {{0x[0-9a-f]+}}){{$}}
  // CHECK-operand_bundle-NEXT: passed as argument 1 of LLVMDisposeOperandBundle on thread T0:
  // CHECK-operand_bundle: freed by LLVMDisposeOperandBundle(operand bundle {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-operand_bundle: created by LLVMCreateOperandBundle on thread T0:
  // CHECK-operand_bundle: SUMMARY: OwnSan: double-free in LLVMDisposeOperandBundle (
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
// COVERS-operand_bundle_at_index: LLVMGetOperandBundleAtIndex
CASE(operand_bundle_at_index) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMValueRef arg = LLVMConstInt(t.i32, 1, 0);
  LLVMOperandBundleRef ob = LLVMCreateOperandBundle("tag", 3, &arg, 1);
  LLVMPositionBuilderBefore(t.b, t.ret);
  LLVMValueRef call = LLVMBuildCallWithOperandBundles(t.b, t.fn_type, t.fn,
                                                      &arg, 1, &ob, 1, "");
  LLVMDisposeOperandBundle(ob);
  LLVMOperandBundleRef copy = LLVMGetOperandBundleAtIndex(call, 0);
  size_t n;
  printf("tag %s\n", LLVMGetOperandBundleTag(copy, &n));
  DOUBLE_DISPOSE(copy, LLVMDisposeOperandBundle,
                 "LLVMDisposeOperandBundle(copy)");
  // CHECK-operand_bundle_at_index: ==[[PID]]==ERROR: OwnSan: double-free on LLVMOperandBundleRef {{0x[0-9a-f]+}} (operand bundle {{0x[0-9a-f]+}}){{$}}
  // CHECK-operand_bundle_at_index-NEXT: passed as argument 1 of LLVMDisposeOperandBundle on thread T0:
  // CHECK-operand_bundle_at_index: freed by LLVMDisposeOperandBundle(operand bundle {{0x[0-9a-f]+}}) on thread T0:
  // CHECK-operand_bundle_at_index: created by LLVMGetOperandBundleAtIndex on thread T0:
  // CHECK-operand_bundle_at_index: SUMMARY: OwnSan: double-free in LLVMDisposeOperandBundle (
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

#include "orc_cases.inc"

static int run_case(const char *name, int bad) {
  for (size_t i = 0; i < num_cases; ++i)
    if (strcmp(cases[i].name, name) == 0) {
      int r = cases[i].fn(bad);
      if (r == EXIT_NOT_AVAILABLE)
        printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
      fflush(stdout);
      return r;
    }
  fprintf(stderr, "unknown case %s\n", name);
  return 2;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < num_cases; ++i)
      printf("%s\n", cases[i].name);
    return 0;
  }
  /* --ok CASE...: the correct use of each case in turn, in one process
   * (check_spec.py --ok-runs); a case not in this LLVM is said and passed
   * over. The exit status is the first failing case's. */
  if (argc >= 2 && strcmp(argv[1], "--ok") == 0) {
    for (int a = 2; a < argc; ++a) {
      printf("== %s\n", argv[a]);
      fflush(stdout);
      int r = run_case(argv[a], 0);
      if (r != 0 && r != EXIT_NOT_AVAILABLE)
        return r;
    }
    return 0;
  }
  if (argc != 3 || (strcmp(argv[2], "ok") && strcmp(argv[2], "bad"))) {
    fprintf(stderr, "usage: %s CASE ok|bad | --ok CASE... | --list\n", argv[0]);
    return 2;
  }
  return run_case(argv[1], strcmp(argv[2], "bad") == 0);
}
