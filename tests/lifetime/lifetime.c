/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Seeded programs for values LLVM frees by itself, address reuse, the
 * quarantine and builders left pointing into freed IR.
 *
 * usage: lifetime CASE [--fixed]
 * Each case prints what it does; the seeded misuse is the last step. With
 * --fixed the misuse is left out and the program must exit 0 with no
 * report. Cases that need an API missing from this LLVM exit 77.
 */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR < 17 // (the legacy passes, gone in LLVM 17)
#include <llvm-c/Initialization.h>
#include <llvm-c/Transforms/Scalar.h>
#endif

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static int fixed;

static void step(const char *what) {
  printf("%s\n", what);
  fflush(stdout);
}

/* ---- passes -------------------------------------------------------------
 * define internal void @unused() { ret void }
 * define i32 @f(i32 %x) {
 * entry: %dead = add i32 %x, 7 ; %live = mul i32 %x, 3 ; br label %next
 * next:  %r = add i32 %live, 1 ; ret i32 %r }
 */
struct pass_module {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMValueRef unused, f, dead, live, r;
  LLVMBasicBlockRef entry, next;
};

NOINLINE static void build_pass_module(struct pass_module *p) {
  p->ctx = LLVMContextCreate();
  p->mod = LLVMModuleCreateWithNameInContext("m", p->ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(p->ctx);
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(p->ctx), NULL, 0, 0);
  p->unused = LLVMAddFunction(p->mod, "unused", vty);
  LLVMSetLinkage(p->unused, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
  LLVMPositionBuilderAtEnd(
      b, LLVMAppendBasicBlockInContext(p->ctx, p->unused, "e"));
  LLVMBuildRetVoid(b);
  LLVMTypeRef fty = LLVMFunctionType(i32, &i32, 1, 0);
  p->f = LLVMAddFunction(p->mod, "f", fty);
  LLVMValueRef x = LLVMGetParam(p->f, 0);
  p->entry = LLVMAppendBasicBlockInContext(p->ctx, p->f, "entry");
  p->next = LLVMAppendBasicBlockInContext(p->ctx, p->f, "next");
  LLVMPositionBuilderAtEnd(b, p->entry);
  p->dead = LLVMBuildAdd(b, x, LLVMConstInt(i32, 7, 0), "dead");
  p->live = LLVMBuildMul(b, x, LLVMConstInt(i32, 3, 0), "live");
  LLVMBuildBr(b, p->next);
  LLVMPositionBuilderAtEnd(b, p->next);
  p->r = LLVMBuildAdd(b, p->live, LLVMConstInt(i32, 1, 0), "r");
  LLVMBuildRet(b, p->r);
  LLVMDisposeBuilder(b);
}

NOINLINE static void run_pipeline(LLVMModuleRef m, const char *pipeline) {
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, pipeline, NULL, opts);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    fprintf(stderr, "LLVMRunPasses: %s\n", msg);
    LLVMDisposeErrorMessage(msg);
    exit(2);
  }
  LLVMDisposePassBuilderOptions(opts);
}

NOINLINE static void use_value_name(LLVMValueRef v) {
  size_t len;
  const char *n = LLVMGetValueName2(v, &len);
  printf("name: %.*s\n", (int)len, n);
}

NOINLINE static void use_block_name(LLVMBasicBlockRef bb) {
  printf("block: %s\n", LLVMGetBasicBlockName(bb));
}

static void finish(struct pass_module *p) {
  LLVMDisposeModule(p->mod);
  LLVMContextDispose(p->ctx);
}

static int case_pass(const char *pipeline) {
  struct pass_module p;
  build_pass_module(&p);
  step(pipeline);
  run_pipeline(p.mod, pipeline);
  /* What the passes keep stays usable. */
  use_value_name(p.f);
  use_value_name(p.live);
  use_value_name(p.r);
  use_block_name(p.entry);
  if (!fixed) {
    step("use what the pass deleted");
    if (!strcmp(pipeline, "dce")) {
      // RUN-pass_dce: sanitized asan
      use_value_name(p.dead);
      // CHECK-pass_dce: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[DEAD:0x[0-9a-f]+]] (instruction %dead in block %entry of function @f in module "m"){{$}}
      // CHECK-pass_dce-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
      // CHECK-pass_dce-NEXT: #0 {{.*}} in use_value_name {{.*}}lifetime.c:
      // CHECK-pass_dce-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:[[@LINE-4]]:
      // CHECK-pass_dce: freed during LLVMRunPasses("dce") on thread T0, by LLVM itself:
      // CHECK-pass_dce-NEXT: #0 {{.*}} in run_pipeline {{.*}}lifetime.c:
      // CHECK-pass_dce-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:
      // CHECK-pass_dce: created by LLVMBuildAdd on thread T0:
      // CHECK-pass_dce-NEXT: #0 {{.*}} in build_pass_module {{.*}}lifetime.c:
      // CHECK-pass_dce: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @f -> block %entry -> instruction %dead{{$}}
      // CHECK-pass_dce-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_value_name{{$}}
    } else if (!strcmp(pipeline, "simplifycfg")) {
      // RUN-pass_simplifycfg: sanitized asan
      use_block_name(p.next);
      // CHECK-pass_simplifycfg: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[NEXT:0x[0-9a-f]+]] (block %next of function @f in module "m"){{$}}
      // CHECK-pass_simplifycfg-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
      // CHECK-pass_simplifycfg-NEXT: #0 {{.*}} in use_block_name {{.*}}lifetime.c:
      // CHECK-pass_simplifycfg-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:[[@LINE-4]]:
      // CHECK-pass_simplifycfg: freed during LLVMRunPasses("simplifycfg") on thread T0, by LLVM itself:
      // CHECK-pass_simplifycfg-NEXT: #0 {{.*}} in run_pipeline {{.*}}lifetime.c:
      // CHECK-pass_simplifycfg-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:
      // CHECK-pass_simplifycfg: created by LLVMAppendBasicBlockInContext on thread T0:
      // CHECK-pass_simplifycfg-NEXT: #0 {{.*}} in build_pass_module {{.*}}lifetime.c:
      // CHECK-pass_simplifycfg: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @f -> block %next{{$}}
      // CHECK-pass_simplifycfg-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_block_name{{$}}
    } else {
      // RUN-pass_globaldce: sanitized
      use_value_name(p.unused);
      // CHECK-pass_globaldce: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[UNUSED:0x[0-9a-f]+]] (function @unused in module "m"){{$}}
      // CHECK-pass_globaldce-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
      // CHECK-pass_globaldce-NEXT: #0 {{.*}} in use_value_name {{.*}}lifetime.c:
      // CHECK-pass_globaldce-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:[[@LINE-4]]:
      // CHECK-pass_globaldce: freed during LLVMRunPasses("globaldce") on thread T0, by LLVM itself:
      // CHECK-pass_globaldce-NEXT: #0 {{.*}} in run_pipeline {{.*}}lifetime.c:
      // CHECK-pass_globaldce-NEXT: #1 {{.*}} in case_pass {{.*}}lifetime.c:
      // CHECK-pass_globaldce: created by LLVMAddFunction on thread T0:
      // CHECK-pass_globaldce-NEXT: #0 {{.*}} in build_pass_module {{.*}}lifetime.c:
      // CHECK-pass_globaldce: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @unused{{$}}
      // CHECK-pass_globaldce-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_value_name{{$}}
    }
  }
  finish(&p);
  return 0;
}

static int case_legacy_dce(void) {
#if LLVM_VERSION_MAJOR < 17
  // (Registered by hand: LLVM linked in statically registers no legacy
  // pass until asked, and the pass manager then crashes, tests/link.)
  LLVMPassRegistryRef registry = LLVMGetGlobalPassRegistry();
  LLVMInitializeCore(registry);
  LLVMInitializeScalarOpts(registry);
  struct pass_module p;
  build_pass_module(&p);
  LLVMPassManagerRef pm = LLVMCreateFunctionPassManagerForModule(p.mod);
  LLVMAddDCEPass(pm);
  LLVMInitializeFunctionPassManager(pm);
  step("legacy dce");
  LLVMRunFunctionPassManager(pm, p.f);
  LLVMFinalizeFunctionPassManager(pm);
  LLVMDisposePassManager(pm);
  use_value_name(p.live);
  if (!fixed) {
    step("use what the pass deleted");
    // RUN-legacy_dce: may_skip
    use_value_name(p.dead);
    // CHECK-legacy_dce: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[DEAD:0x[0-9a-f]+]] (instruction %dead in block %entry of function @f in module "m"){{$}}
    // CHECK-legacy_dce-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-legacy_dce-NEXT: #0 {{.*}} in use_value_name {{.*}}lifetime.c:
    // CHECK-legacy_dce-NEXT: #1 {{.*}} in case_legacy_dce {{.*}}lifetime.c:[[@LINE-4]]:
    // CHECK-legacy_dce: freed during LLVMRunFunctionPassManager on thread T0, by LLVM itself:
    // CHECK-legacy_dce-NEXT: #0 {{.*}} in case_legacy_dce {{.*}}lifetime.c:
    // CHECK-legacy_dce: created by LLVMBuildAdd on thread T0:
    // CHECK-legacy_dce: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}} in use_value_name{{$}}
  }
  finish(&p);
  return 0;
#else
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return 77;
#endif
}

/* ---- reuse: free one object, create 10,000 of its kind, use the stale -- */
enum { kNew = 10000 };

struct reuse_env {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTypeRef i32;
  LLVMValueRef fn;
  LLVMBasicBlockRef bb;
  LLVMBuilderRef b;
};

static void reuse_env_init(struct reuse_env *e) {
  e->ctx = LLVMContextCreate();
  e->mod = LLVMModuleCreateWithNameInContext("m", e->ctx);
  e->i32 = LLVMInt32TypeInContext(e->ctx);
  e->fn =
      LLVMAddFunction(e->mod, "host", LLVMFunctionType(e->i32, &e->i32, 1, 0));
  e->bb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
  e->b = LLVMCreateBuilderInContext(e->ctx);
  LLVMPositionBuilderAtEnd(e->b, e->bb);
}

NOINLINE static void *make_one(struct reuse_env *e, const char *kind, int i) {
  char name[32];
  snprintf(name, sizeof name, "%s%d", kind, i);
  if (!strcmp(kind, "instruction"))
    return LLVMBuildAdd(e->b, LLVMGetParam(e->fn, 0),
                        LLVMConstInt(e->i32, (unsigned)i, 0), name);
  if (!strcmp(kind, "block"))
    return LLVMAppendBasicBlockInContext(e->ctx, e->fn, name);
  if (!strcmp(kind, "function"))
    return LLVMAddFunction(e->mod, name,
                           LLVMFunctionType(e->i32, &e->i32, 1, 0));
  if (!strcmp(kind, "global"))
    return LLVMAddGlobal(e->mod, e->i32, name);
  if (!strcmp(kind, "module"))
    return LLVMModuleCreateWithNameInContext(name, e->ctx);
  if (!strcmp(kind, "builder"))
    return LLVMCreateBuilderInContext(e->ctx);
  /* memory buffer */
  return LLVMCreateMemoryBufferWithMemoryRangeCopy("0123456789", 10, name);
}

NOINLINE static void free_one(const char *kind, void *h) {
  if (!strcmp(kind, "instruction"))
    LLVMInstructionEraseFromParent(h);
  else if (!strcmp(kind, "block"))
    LLVMDeleteBasicBlock(h);
  else if (!strcmp(kind, "function"))
    LLVMDeleteFunction(h);
  else if (!strcmp(kind, "global"))
    LLVMDeleteGlobal(h);
  else if (!strcmp(kind, "module"))
    LLVMDisposeModule(h);
  else if (!strcmp(kind, "builder"))
    LLVMDisposeBuilder(h);
  else
    LLVMDisposeMemoryBuffer(h);
}

/* The reports of the reuse_KIND cases: the stale handle's use is reported
 * in every run (the quarantine keeps its address from reuse), with its own
 * free and creation; they run --reuse-repeat times (RUN-...: repeat=reuse). */
NOINLINE static void use_stale(const char *kind, void *h) {
  size_t len;
  if (!strcmp(kind, "instruction")) {
    printf("%d\n", (int)LLVMGetInstructionOpcode(h));
    // RUN-reuse_instruction: repeat=reuse sanitized asan
    // CHECK-reuse_instruction: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_instruction: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[STALE]] (instruction %instruction-1 in block %entry of function @host in module "m"){{$}}
    // CHECK-reuse_instruction-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
    // CHECK-reuse_instruction-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_instruction-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_instruction: freed by LLVMInstructionEraseFromParent(instruction %instruction-1 in block %entry of function @host in module "m") on thread T0:
    // CHECK-reuse_instruction-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_instruction-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_instruction: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_instruction-NEXT: created by LLVMBuildAdd on thread T0:
    // CHECK-reuse_instruction-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_instruction-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_instruction: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @host -> block %entry -> instruction %instruction-1{{$}}
    // CHECK-reuse_instruction-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else if (!strcmp(kind, "block")) {
    printf("%s\n", LLVMGetBasicBlockName(h));
    // RUN-reuse_block: repeat=reuse sanitized
    // CHECK-reuse_block: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_block: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[STALE]] (block %block-1 of function @host in module "m"){{$}}
    // CHECK-reuse_block-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-reuse_block-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_block-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_block: freed by LLVMDeleteBasicBlock(block %block-1 of function @host in module "m") on thread T0:
    // CHECK-reuse_block-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_block-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_block: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_block-NEXT: created by LLVMAppendBasicBlockInContext on thread T0:
    // CHECK-reuse_block-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_block-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_block: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @host -> block %block-1{{$}}
    // CHECK-reuse_block-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else if (!strcmp(kind, "function")) {
    printf("%s\n", LLVMGetValueName2(h, &len));
    // RUN-reuse_function: repeat=reuse sanitized asan
    // CHECK-reuse_function: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[STALE]] (function @function-1 in module "m"){{$}}
    // CHECK-reuse_function-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-reuse_function-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_function-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_function: freed by LLVMDeleteFunction(function @function-1 in module "m") on thread T0:
    // CHECK-reuse_function-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_function-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_function: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_function-NEXT: created by LLVMAddFunction on thread T0:
    // CHECK-reuse_function-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_function-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_function: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @function-1{{$}}
    // CHECK-reuse_function-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else if (!strcmp(kind, "global")) {
    printf("%s\n", LLVMGetValueName2(h, &len));
    // RUN-reuse_global: repeat=reuse sanitized
    // CHECK-reuse_global: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_global: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[STALE]] (global @global-1 in module "m"){{$}}
    // CHECK-reuse_global-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-reuse_global-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_global-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_global: freed by LLVMDeleteGlobal(global @global-1 in module "m") on thread T0:
    // CHECK-reuse_global-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_global-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_global: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_global-NEXT: created by LLVMAddGlobal on thread T0:
    // CHECK-reuse_global-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_global-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_global: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> global @global-1{{$}}
    // CHECK-reuse_global-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else if (!strcmp(kind, "module")) {
    printf("%s\n", LLVMGetModuleIdentifier(h, &len));
    // RUN-reuse_module: repeat=reuse sanitized asan
    // CHECK-reuse_module: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_module: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMModuleRef [[STALE]] (module "module-1"){{$}}
    // CHECK-reuse_module-NEXT: passed as argument 1 of LLVMGetModuleIdentifier on thread T0:
    // CHECK-reuse_module-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_module-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_module: freed by LLVMDisposeModule(module "module-1") on thread T0:
    // CHECK-reuse_module-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_module-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_module: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_module-NEXT: created by LLVMModuleCreateWithNameInContext on thread T0:
    // CHECK-reuse_module-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_module-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_module: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "module-1"{{$}}
    // CHECK-reuse_module-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetModuleIdentifier {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else if (!strcmp(kind, "builder")) {
    printf("%p\n", (void *)LLVMGetInsertBlock(h));
    // RUN-reuse_builder: repeat=reuse sanitized asan
    // CHECK-reuse_builder: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_builder: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBuilderRef [[STALE]] (builder [[STALE]]){{$}}
    // CHECK-reuse_builder-NEXT: passed as argument 1 of LLVMGetInsertBlock on thread T0:
    // CHECK-reuse_builder-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_builder-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_builder: freed by LLVMDisposeBuilder(builder [[STALE]]) on thread T0:
    // CHECK-reuse_builder-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_builder-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_builder: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_builder-NEXT: created by LLVMCreateBuilderInContext on thread T0:
    // CHECK-reuse_builder-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_builder-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_builder: ownership chain when freed: builder [[STALE]]{{$}}
    // CHECK-reuse_builder-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetInsertBlock {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  } else {
    printf("%zu\n", LLVMGetBufferSize(h));
    // RUN-reuse_memory_buffer: repeat=reuse sanitized asan
    // CHECK-reuse_memory_buffer: lifetime: stale = [[STALE:0x[0-9a-f]+]]
    // CHECK-reuse_memory_buffer: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMMemoryBufferRef [[STALE]] (memory buffer [[STALE]]){{$}}
    // CHECK-reuse_memory_buffer-NEXT: passed as argument 1 of LLVMGetBufferSize on thread T0:
    // CHECK-reuse_memory_buffer-NEXT: #0 {{.*}} in use_stale {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-reuse_memory_buffer-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_memory_buffer: freed by LLVMDisposeMemoryBuffer(memory buffer [[STALE]]) on thread T0:
    // CHECK-reuse_memory_buffer-NEXT: #0 {{.*}} in free_one {{.*}}lifetime.c:
    // CHECK-reuse_memory_buffer-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_memory_buffer: identity: [[STALE]]#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-reuse_memory_buffer-NEXT: created by LLVMCreateMemoryBufferWithMemoryRangeCopy on thread T0:
    // CHECK-reuse_memory_buffer-NEXT: #0 {{.*}} in make_one {{.*}}lifetime.c:
    // CHECK-reuse_memory_buffer-NEXT: #1 {{.*}} in case_reuse {{.*}}lifetime.c:
    // CHECK-reuse_memory_buffer: ownership chain when freed: memory buffer [[STALE]]{{$}}
    // CHECK-reuse_memory_buffer-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBufferSize {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_stale{{$}}
  }
}

static int case_reuse(const char *kind) {
  struct reuse_env e;
  reuse_env_init(&e);
  void *stale = make_one(&e, kind, -1);
  fprintf(stderr, "lifetime: stale = %p\n", stale);
  step("free it");
  free_one(kind, stale);
  static void *fresh[kNew];
  int same = 0;
  for (int i = 0; i < kNew; ++i) {
    fresh[i] = make_one(&e, kind, i);
    same += fresh[i] == stale;
  }
  printf("created %d new %s objects\n", kNew, kind);
  fprintf(stderr, "lifetime: new objects at the stale address: %d\n", same);
  if (!fixed) {
    step("use the stale handle");
    use_stale(kind, stale);
  }
  for (int i = 0; i < kNew; ++i) {
    if (!strcmp(kind, "module"))
      LLVMDisposeModule(fresh[i]);
    else if (!strcmp(kind, "builder"))
      LLVMDisposeBuilder(fresh[i]);
    else if (!strcmp(kind, "memory_buffer"))
      LLVMDisposeMemoryBuffer(fresh[i]);
  }
  LLVMDisposeBuilder(e.b);
  LLVMDisposeModule(e.mod);
  LLVMContextDispose(e.ctx);
  return 0;
}

/* A freed builder's memory taken over by a memory buffer (run with
 * quarantine_size_mb=0): the stale builder handle now points at a live
 * object of another kind, which no valid LLVMBuilderRef can. */
static int case_reuse_other_kind(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMBuilderRef stale = LLVMCreateBuilderInContext(ctx);
  size_t size = malloc_usable_size(stale);
  step("free the builder");
  LLVMDisposeBuilder(stale);
  LLVMMemoryBufferRef taker = NULL;
  static char name[4096];
  /* Buffers of every size up to the builder's, kept alive so that each
   * round takes other free chunks first, until one lands on the builder's
   * chunk (allocator-dependent, hence the rounds). */
  static LLVMMemoryBufferRef keep[40000];
  int kept = 0;
  for (int round = 0; round < 64 && !taker; ++round) {
    for (size_t len = 0; len < size && len < sizeof name - 1 && !taker; ++len) {
      memset(name, 'n', len);
      name[len] = 0;
      LLVMMemoryBufferRef mb =
          LLVMCreateMemoryBufferWithMemoryRange("data", 4, name, 0);
      if ((void *)mb == (void *)stale)
        taker = mb;
      else if (kept < (int)(sizeof keep / sizeof keep[0]))
        keep[kept++] = mb;
      else
        LLVMDisposeMemoryBuffer(mb);
    }
  }
  for (int i = 0; i < kept; ++i)
    LLVMDisposeMemoryBuffer(keep[i]);
  if (!taker) {
    printf("no memory buffer landed on the freed builder\n");
    return 3;
  }
  printf("a memory buffer now lives at the freed builder's address\n");
  if (!fixed) {
    step("use the stale builder");
    printf("%p\n", (void *)LLVMGetInsertBlock(stale));
    // RUN-reuse_other_kind: repeat=5 OWNSAN_OPTIONS=quarantine_size_mb=0
    // CHECK-reuse_other_kind: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBuilderRef [[B:0x[0-9a-f]+]] (builder [[B]]){{$}}
    // CHECK-reuse_other_kind-NEXT: passed as argument 1 of LLVMGetInsertBlock on thread T0:
    // CHECK-reuse_other_kind-NEXT: #0 {{.*}} in case_reuse_other_kind {{.*}}lifetime.c:[[@LINE-4]]:
    // CHECK-reuse_other_kind: freed by LLVMDisposeBuilder(builder [[B]]) on thread T0:
    // CHECK-reuse_other_kind-NEXT: #0 {{.*}} in case_reuse_other_kind {{.*}}lifetime.c:
    // CHECK-reuse_other_kind: identity: [[B]]#1 (address#generation), freed; the address now belongs to memory buffer [[B]] ([[B]]#2), created by LLVMCreateMemoryBufferWithMemoryRange on thread T0:
    // CHECK-reuse_other_kind: created by LLVMCreateBuilderInContext on thread T0:
    // CHECK-reuse_other_kind: SUMMARY: OwnSan: use-after-free in LLVMGetInsertBlock {{.*}} in case_reuse_other_kind{{$}}
  }
  LLVMDisposeMemoryBuffer(taker);
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- quarantine bound: dispose 100,000 objects -------------------------- */
static int case_quarantine_bound(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 100000; ++i) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMDisposeBuilder(b);
  }
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, bb);
  for (int i = 0; i < 100000; ++i) {
    LLVMValueRef v = LLVMBuildAdd(b, LLVMGetParam(fn, 0),
                                  LLVMConstInt(i32, (unsigned)i, 0), "v");
    LLVMInstructionEraseFromParent(v);
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  printf("disposed 200000 objects\n");
  return 0;
}

/* ---- history bound: a stale function whose record was evicted ------------
 * Run with history_size_mb=1: the 60,000 globals disposed after @f push its
 * record out of the history, while the quarantine keeps its address from
 * reuse; the use of the stale handle is still reported. */
static int case_history_evicted(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  step("dispose the module of @f");
  LLVMDisposeModule(m);
  step("create and dispose 600 modules of 100 globals");
  for (int i = 0; i < 600; ++i) {
    LLVMModuleRef churn = LLVMModuleCreateWithNameInContext("churn", ctx);
    for (int g = 0; g < 100; ++g)
      LLVMAddGlobal(churn, i32, "");
    LLVMDisposeModule(churn);
  }
  if (!fixed) {
    step("use the stale function");
    size_t len;
    printf("%s\n", LLVMGetValueName2(f, &len));
    // RUN-history_evicted: OWNSAN_OPTIONS=history_size_mb=1 sanitized
    // CHECK-history_evicted: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (function, history evicted){{$}}
    // CHECK-history_evicted-NEXT: its history is gone: it was freed long enough ago that its record was evicted to keep the history of freed objects within history_size_mb=1; a larger history_size_mb keeps more
    // CHECK-history_evicted-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-history_evicted-NEXT: #0 {{.*}} in case_history_evicted {{.*}}lifetime.c:[[@LINE-5]]:
    // CHECK-history_evicted-NOT: {{freed|created}}
    // CHECK-history_evicted: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in case_history_evicted{{$}}
  }
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- history bound: the last deaths evict nothing -------------------------
 * Run with history_size_mb=1: disposing a module of 30,000 globals puts
 * about 3 MB of freed records in the history, but no object is registered
 * after it, so no record needs the room: none is evicted, and the use of
 * the first global is reported with its whole history. */
static int case_history_kept_at_end(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMValueRef first = LLVMAddGlobal(m, i32, "first");
  for (int g = 0; g < 30000; ++g)
    LLVMAddGlobal(m, i32, "");
  step("dispose the module of 30,001 globals");
  LLVMDisposeModule(m);
  if (!fixed) {
    step("use its first global");
    size_t len;
    printf("%s\n", LLVMGetValueName2(first, &len));
    // RUN-history_kept_at_end: OWNSAN_OPTIONS=history_size_mb=1 sanitized
    // CHECK-history_kept_at_end: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef {{0x[0-9a-f]+}} (global @first in module "m"){{$}}
    // CHECK-history_kept_at_end-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-history_kept_at_end-NEXT: #0 {{.*}} in case_history_kept_at_end {{.*}}lifetime.c:[[@LINE-4]]:
    // CHECK-history_kept_at_end-NOT: history is gone
    // CHECK-history_kept_at_end: freed by LLVMDisposeModule(module "m") on thread T0, because it belonged to that module:
    // CHECK-history_kept_at_end-NEXT: #0 {{.*}} in case_history_kept_at_end {{.*}}lifetime.c:
    // CHECK-history_kept_at_end: identity: {{0x[0-9a-f]+}}#1 (address#generation); no object has been created at this address since it was freed
    // CHECK-history_kept_at_end-NEXT: created by LLVMAddGlobal on thread T0:
    // CHECK-history_kept_at_end-NEXT: #0 {{.*}} in case_history_kept_at_end {{.*}}lifetime.c:
    // CHECK-history_kept_at_end: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> global @first{{$}}
    // CHECK-history_kept_at_end-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in case_history_kept_at_end{{$}}
  }
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- the C++ helper, libownsan_observer.so, is loaded when the first
 * memory buffer is given away (ownsan hands LLVM a copy), not at start-up:
 * a process that gives none away never maps it. (In link mode it is part
 * of the program: mapped as a library neither before nor after.) */
static int observer_mapped(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int mapped = 0;
  while (maps && fgets(line, sizeof line, maps))
    mapped |= strstr(line, "libownsan_observer") != NULL;
  if (maps)
    fclose(maps);
  return mapped;
}

static int case_observer_on_demand(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMDisposeModule(LLVMModuleCreateWithNameInContext("m", ctx));
  fprintf(stderr, "lifetime: observer mapped before a buffer is consumed: %d\n",
          observer_mapped());
  static const char text[] = "define i32 @f() {\n  ret i32 1\n}\n";
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "ir");
  LLVMModuleRef parsed;
  char *error = NULL;
  step("parse IR: the buffer is consumed");
  if (LLVMParseIRInContext(ctx, buf, &parsed, &error))
    return 3;
  fprintf(stderr, "lifetime: observer mapped after: %d\n", observer_mapped());
  if (!fixed) {
    step("use the consumed buffer");
    printf("%zu\n", LLVMGetBufferSize(buf));
    // RUN-observer_on_demand: sanitized
    // CHECK-observer_on_demand: lifetime: observer mapped before a buffer is consumed: 0
    // CHECK-observer_on_demand: lifetime: observer mapped after: {{[01]}}
    // CHECK-observer_on_demand: ==[[PID]]==ERROR: OwnSan: use-after-consume on LLVMMemoryBufferRef {{0x[0-9a-f]+}} (memory buffer {{0x[0-9a-f]+}}){{$}}
    // CHECK-observer_on_demand-NEXT: passed as argument 1 of LLVMGetBufferSize on thread T0:
    // CHECK-observer_on_demand: consumed by LLVMParseIRInContext(memory buffer {{0x[0-9a-f]+}}) on thread T0:
    // CHECK-observer_on_demand: SUMMARY: OwnSan: use-after-consume in LLVMGetBufferSize {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in case_observer_on_demand{{$}}
  }
  LLVMDisposeModule(parsed);
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- short threads: 20,000 threads each dispose one builder, then 30,000
 * objects are churned (run with history_size_mb=1: the threads' records
 * are evicted). */
static void *dispose_one_builder(void *ctx) {
  LLVMDisposeBuilder(LLVMCreateBuilderInContext((LLVMContextRef)ctx));
  return NULL;
}

static int case_thread_exit(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 20000; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, dispose_one_builder, ctx) != 0)
      return 3;
    pthread_join(t, NULL);
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  for (int i = 0; i < 300; ++i) {
    LLVMModuleRef churn = LLVMModuleCreateWithNameInContext("churn", ctx);
    for (int g = 0; g < 100; ++g)
      LLVMAddGlobal(churn, i32, "");
    LLVMDisposeModule(churn);
  }
  LLVMContextDispose(ctx);
  printf("20000 threads disposed a builder each\n");
  return 0;
}

/* Each dispose is a freeing call of its own, with a free event no other
 * record shares: 12,000 records and events, which overflow
 * history_size_mb=1 only if the events count in it. */
static int case_lone_disposes(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 12000; ++i)
    LLVMDisposeBuilder(LLVMCreateBuilderInContext(ctx));
  LLVMContextDispose(ctx);
  printf("12000 builders disposed one by one\n");
  return 0;
}

/* ---- many values in one freed block --------------------------------------
 * A function's arguments are one allocation: deleting a function of 300
 * parameters frees 300 values in one block, more than the deaths the
 * runtime marks per batch (128), so the batch is marked in parts; none of
 * them may be lost (the last one is used). */
enum { kManyParams = 300 };
static int case_many_params(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef params[kManyParams];
  for (int i = 0; i < kManyParams; ++i)
    params[i] = i32;
  LLVMValueRef fn =
      LLVMAddFunction(m, "wide", LLVMFunctionType(i32, params, kManyParams, 0));
  LLVMValueRef args[kManyParams];
  for (int i = 0; i < kManyParams; ++i)
    args[i] = LLVMGetParam(fn, (unsigned)i);
  LLVMSetValueName2(args[kManyParams - 1], "last", 4);
  step("delete the function");
  LLVMDeleteFunction(fn);
  if (!fixed) {
    step("use its last argument");
    // RUN-many_params: sanitized asan
    use_value_name(args[kManyParams - 1]);
    // CHECK-many_params: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[LAST:0x[0-9a-f]+]] (argument %last of function @wide in module "m"){{$}}
    // CHECK-many_params-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-many_params-NEXT: #0 {{.*}} in use_value_name {{.*}}lifetime.c:
    // CHECK-many_params-NEXT: #1 {{.*}} in case_many_params {{.*}}lifetime.c:[[@LINE-4]]:
    // CHECK-many_params: freed by LLVMDeleteFunction(function @wide in module "m") on thread T0, because it belonged to that function:
    // CHECK-many_params-NEXT: #0 {{.*}} in case_many_params {{.*}}lifetime.c:
    // CHECK-many_params: created by LLVMGetParam on thread T0:
    // CHECK-many_params-NEXT: #0 {{.*}} in case_many_params {{.*}}lifetime.c:
    // CHECK-many_params: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @wide -> argument %last{{$}}
    // CHECK-many_params-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in use_value_name{{$}}
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- builders left pointing into freed IR ------------------------------- */
static int case_builder(int before_instruction) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn =
      LLVMAddFunction(m, "foo", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(ctx, fn, "other");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef x = LLVMGetParam(fn, 0);
  LLVMValueRef anchor = LLVMBuildAdd(b, x, x, "anchor");
  if (before_instruction) {
    LLVMPositionBuilderBefore(b, anchor);
    step("erase the instruction the builder inserts before");
    LLVMInstructionEraseFromParent(anchor);
  } else {
    step("delete the block the builder inserts into");
    LLVMDeleteBasicBlock(entry);
  }
  if (fixed) {
    step("position the builder again");
    LLVMPositionBuilderAtEnd(b, other);
  }
  step("build");
  LLVMBuildAdd(b, x, x, "sum");
  // RUN-builder_block_deleted: sanitized asan
  // CHECK-builder_block_deleted: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef [[B:0x[0-9a-f]+]] (builder [[B]]){{$}}
  // CHECK-builder_block_deleted-NEXT: LLVMBuildAdd inserts at the builder's position, which is the end of a freed block; position the builder again first
  // CHECK-builder_block_deleted-NEXT: passed as argument 1 of LLVMBuildAdd on thread T0:
  // CHECK-builder_block_deleted-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:[[@LINE-5]]:
  // CHECK-builder_block_deleted-NEXT: #1 {{.*}} in main {{.*}}lifetime.c:
  // CHECK-builder_block_deleted: its insertion point block %entry of function @foo in module "m" was freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0:
  // CHECK-builder_block_deleted-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:
  // CHECK-builder_block_deleted: created by LLVMCreateBuilderInContext on thread T0:
  // CHECK-builder_block_deleted-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:
  // CHECK-builder_block_deleted: ownership chain: builder [[B]]{{$}}
  // CHECK-builder_block_deleted-NEXT: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildAdd {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in case_builder{{$}}
  // RUN-builder_before_erased: sanitized
  // CHECK-builder_before_erased: ==[[PID]]==ERROR: OwnSan: dangling-insertion-point on LLVMBuilderRef [[B:0x[0-9a-f]+]] (builder [[B]]){{$}}
  // CHECK-builder_before_erased-NEXT: LLVMBuildAdd inserts at the builder's position, which is before a freed instruction; position the builder again first
  // CHECK-builder_before_erased-NEXT: passed as argument 1 of LLVMBuildAdd on thread T0:
  // CHECK-builder_before_erased-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:[[@LINE-17]]:
  // CHECK-builder_before_erased-NEXT: #1 {{.*}} in main {{.*}}lifetime.c:
  // CHECK-builder_before_erased: its insertion point instruction %anchor in block %entry of function @foo in module "m" was freed by LLVMInstructionEraseFromParent(instruction %anchor in block %entry of function @foo in module "m") on thread T0:
  // CHECK-builder_before_erased-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:
  // CHECK-builder_before_erased: created by LLVMCreateBuilderInContext on thread T0:
  // CHECK-builder_before_erased-NEXT: #0 {{.*}} in case_builder {{.*}}lifetime.c:
  // CHECK-builder_before_erased: ownership chain: builder [[B]]{{$}}
  // CHECK-builder_before_erased-NEXT: SUMMARY: OwnSan: dangling-insertion-point in LLVMBuildAdd {{.*}}lifetime.c:{{[0-9]+}}:{{[0-9]+}} in case_builder{{$}}
  // JSON-builder_block_deleted: "kind":"dangling-insertion-point",{{.*}}"related":{"kind":"block","label":"block %entry of function @foo in module
  LLVMBuildRet(b, x);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: lifetime CASE [--fixed]\n");
    return 2;
  }
  fixed = argc > 2 && !strcmp(argv[2], "--fixed");
  const char *c = argv[1];
  if (!strcmp(c, "pass_dce"))
    return case_pass("dce");
  if (!strcmp(c, "pass_simplifycfg"))
    return case_pass("simplifycfg");
  if (!strcmp(c, "pass_globaldce"))
    return case_pass("globaldce");
  if (!strcmp(c, "legacy_dce"))
    return case_legacy_dce();
  if (!strncmp(c, "reuse_", 6) && strcmp(c, "reuse_other_kind"))
    return case_reuse(c + 6);
  if (!strcmp(c, "reuse_other_kind"))
    return case_reuse_other_kind();
  if (!strcmp(c, "quarantine_bound"))
    return case_quarantine_bound();
  if (!strcmp(c, "history_evicted"))
    return case_history_evicted();
  if (!strcmp(c, "history_kept_at_end"))
    return case_history_kept_at_end();
  if (!strcmp(c, "thread_exit"))
    return case_thread_exit();
  if (!strcmp(c, "observer_on_demand"))
    return case_observer_on_demand();
  if (!strcmp(c, "lone_disposes"))
    return case_lone_disposes();
  if (!strcmp(c, "many_params"))
    return case_many_params();
  if (!strcmp(c, "builder_block_deleted"))
    return case_builder(0);
  if (!strcmp(c, "builder_before_erased"))
    return case_builder(1);
  fprintf(stderr, "unknown case %s\n", c);
  return 2;
}
