/*===- seeded.c - LLVM-C clients with one seeded ownership bug each --------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: seeded CASE [--fixed]
 *
 * Every case but the pass manager builder's builds the same tiny module in a
 * fresh context:
 *
 *   ; module "m"
 *   define void @foo(i32 %x) {
 *   entry:
 *     %sum = add i32 %x, 1
 *     ret void
 *   }
 *
 * and then makes one ownership mistake with the LLVM-C API. With --fixed the
 * same steps run in a correct order (or without the extra free) and the
 * program exits 0.
 *
 * What ownsan must report for each case is written here, as FileCheck lines
 * right after the line that triggers it ("// CHECK-<case>: ..."), as
 * compiler-rt's lit tests do: tests/seeded/check_report.py pipes the buggy
 * run's stderr into `FileCheck seeded.c --check-prefix=CHECK-<case>
 * -DPID=<its pid>`. The prefixes are the list of cases (check_report.py
 * --list, which tests/CMakeLists.txt reads). [[@LINE-n]] is the line of the
 * use or of the freeing call in the case; the pointers the program prints
 * to stderr ("seeded: context = ...") are bound to variables ([[CTX]]) that
 * the report must repeat. The Python twin, tests/seeded/python/seeded.py,
 * has the same cases with "# CHECK-<case>:" lines of its own.
 *
 * %sum has no users (foo returns void), so it can be erased or deleted without
 * leaving a dangling use behind in the fixed runs.
 *
 * Each step is its own non-static, noinline function, so the use, free and
 * creation stacks of a report name different functions of this file. Every
 * step prints "<step>: <what it calls>" to stdout *before* calling LLVM, so
 * the last stdout line of a buggy run under ownsan is the misuse itself.
 * The handles a report talks about are printed to stderr as
 * "seeded: <role> = <pointer>" (stdout must not change from run to run).
 *
 * A case that the LLVM version cannot express prints
 * "case not available in LLVM <major>" and exits 77.
 *
 * Build (N = 14, 15, 16, 19 or 22):
 *   cc -std=c11 -O0 -g -fno-omit-frame-pointer -Wall -Wextra \
 *      -I/usr/lib/llvm-N/include seeded.c -o seeded-llvmN \
 *      -L/usr/lib/llvm-N/lib -lLLVM-N -Wl,-rpath,/usr/lib/llvm-N/lib
 *
 *===----------------------------------------------------------------------===*/

#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR <= 16
#include <llvm-c/Transforms/PassManagerBuilder.h>
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define STEP __attribute__((noinline))

enum { EXIT_CASE_NOT_AVAILABLE = 77, EXIT_USAGE = 2 };

/* Prints "<step>: <message>" to stdout. */
__attribute__((format(printf, 2, 3))) static void say(const char *step,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s: ", step);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

/* Tells the checker which pointer a report should name (stderr only). */
static void note_handle(const char *role, const void *handle) {
  fprintf(stderr, "seeded: %s = %p\n", role, handle);
}

/* The tiny module every case starts from. */
struct foo {
  LLVMContextRef ctx;
  LLVMTypeRef i32;
  LLVMModuleRef mod;
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;
  LLVMBuilderRef builder;
  LLVMValueRef sum;
};

/*===-- Steps that create -------------------------------------------------===*/

STEP LLVMContextRef make_context(void) {
  say(__func__, "LLVMContextCreate()");
  LLVMContextRef ctx = LLVMContextCreate();
  note_handle("context", ctx);
  return ctx;
}

STEP LLVMTypeRef make_i32_type(LLVMContextRef ctx) {
  say(__func__, "LLVMInt32TypeInContext(context)");
  return LLVMInt32TypeInContext(ctx);
}

STEP LLVMModuleRef make_module(LLVMContextRef ctx) {
  say(__func__, "LLVMModuleCreateWithNameInContext(\"m\", context)");
  return LLVMModuleCreateWithNameInContext("m", ctx);
}

STEP LLVMValueRef make_function(LLVMContextRef ctx, LLVMModuleRef mod,
                                LLVMTypeRef i32) {
  say(__func__, "LLVMAddFunction(module \"m\", \"foo\", void (i32))");
  LLVMTypeRef params[] = {i32};
  LLVMTypeRef fn_type =
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 1, /*IsVarArg=*/0);
  LLVMValueRef fn = LLVMAddFunction(mod, "foo", fn_type);
  LLVMSetValueName2(LLVMGetParam(fn, 0), "x", 1);
  return fn;
}

STEP LLVMBasicBlockRef make_entry_block(LLVMContextRef ctx, LLVMValueRef fn) {
  say(__func__, "LLVMAppendBasicBlockInContext(context, @foo, \"entry\")");
  return LLVMAppendBasicBlockInContext(ctx, fn, "entry");
}

STEP LLVMBasicBlockRef make_other_block(LLVMContextRef ctx, LLVMValueRef fn) {
  say(__func__, "LLVMAppendBasicBlockInContext(context, @foo, \"other\")");
  return LLVMAppendBasicBlockInContext(ctx, fn, "other");
}

STEP LLVMValueRef make_bar_function(LLVMContextRef ctx, LLVMModuleRef mod) {
  say(__func__, "LLVMAddFunction(module \"m\", \"bar\", void ())");
  LLVMTypeRef fn_type =
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, /*IsVarArg=*/0);
  return LLVMAddFunction(mod, "bar", fn_type);
}

STEP LLVMBuilderRef make_builder(LLVMContextRef ctx) {
  say(__func__, "LLVMCreateBuilderInContext(context)");
  return LLVMCreateBuilderInContext(ctx);
}

STEP LLVMValueRef build_sum(LLVMBuilderRef builder, LLVMBasicBlockRef entry,
                            LLVMValueRef fn, LLVMTypeRef i32) {
  say(__func__, "LLVMBuildAdd(builder, %%x, i32 1, \"sum\")");
  LLVMPositionBuilderAtEnd(builder, entry);
  LLVMValueRef one = LLVMConstInt(i32, 1, /*SignExtend=*/0);
  return LLVMBuildAdd(builder, LLVMGetParam(fn, 0), one, "sum");
}

STEP void build_return(LLVMBuilderRef builder) {
  say(__func__, "LLVMBuildRetVoid(builder)");
  LLVMBuildRetVoid(builder);
}

STEP void print_function(LLVMValueRef fn) {
  say(__func__, "LLVMPrintValueToString(@foo)");
  char *text = LLVMPrintValueToString(fn);
  fputs(text, stdout);
  if (text[0] && text[strlen(text) - 1] != '\n')
    fputc('\n', stdout);
  LLVMDisposeMessage(text);
}

/* Builds @foo in a new context; the builder stays alive (see the cases). */
STEP void build_foo(struct foo *f) {
  f->ctx = make_context();
  f->i32 = make_i32_type(f->ctx);
  f->mod = make_module(f->ctx);
  f->fn = make_function(f->ctx, f->mod, f->i32);
  f->entry = make_entry_block(f->ctx, f->fn);
  f->builder = make_builder(f->ctx);
  f->sum = build_sum(f->builder, f->entry, f->fn, f->i32);
  build_return(f->builder);
  print_function(f->fn);
}

/*===-- Steps that free ---------------------------------------------------===*/

STEP void dispose_the_builder(LLVMBuilderRef builder) {
  say(__func__, "LLVMDisposeBuilder(builder)");
  LLVMDisposeBuilder(builder);
}

STEP void dispose_builder_again(LLVMBuilderRef builder) {
  say(__func__, "LLVMDisposeBuilder(builder)");
  LLVMDisposeBuilder(builder);
}

STEP void dispose_the_module(LLVMModuleRef mod) {
  say(__func__, "LLVMDisposeModule(module \"m\")");
  LLVMDisposeModule(mod);
}

STEP void dispose_module_again(LLVMModuleRef mod) {
  say(__func__, "LLVMDisposeModule(module \"m\")");
  LLVMDisposeModule(mod);
}

STEP void dispose_the_context(LLVMContextRef ctx) {
  say(__func__, "LLVMContextDispose(context)");
  LLVMContextDispose(ctx);
}

STEP void delete_the_block(LLVMBasicBlockRef block) {
  say(__func__, "LLVMDeleteBasicBlock(%%entry)");
  LLVMDeleteBasicBlock(block);
}

STEP void delete_the_function(LLVMValueRef fn) {
  say(__func__, "LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(fn);
}

STEP void erase_the_instruction(LLVMValueRef inst) {
  say(__func__, "LLVMInstructionEraseFromParent(%%sum)");
  LLVMInstructionEraseFromParent(inst);
}

STEP void delete_the_other_block(LLVMBasicBlockRef block) {
  say(__func__, "LLVMDeleteBasicBlock(%%other)");
  LLVMDeleteBasicBlock(block);
}

STEP void delete_the_bar_function(LLVMValueRef fn) {
  say(__func__, "LLVMDeleteFunction(@bar)");
  LLVMDeleteFunction(fn);
}

#if LLVM_VERSION_MAJOR >= 15
STEP void delete_the_instruction(LLVMValueRef inst) {
  say(__func__, "LLVMDeleteInstruction(%%sum)");
  LLVMDeleteInstruction(inst);
}
#endif

/*===-- Steps that detach and re-attach -----------------------------------===*/

STEP void detach_the_instruction(LLVMValueRef inst) {
  say(__func__, "LLVMInstructionRemoveFromParent(%%sum)");
  LLVMInstructionRemoveFromParent(inst);
}

STEP void detach_the_block(LLVMBasicBlockRef block) {
  say(__func__, "LLVMRemoveBasicBlockFromParent(%%entry)");
  LLVMRemoveBasicBlockFromParent(block);
}

STEP void reinsert_the_instruction(LLVMBuilderRef builder,
                                   LLVMBasicBlockRef block, LLVMValueRef inst) {
  say(__func__, "LLVMInsertIntoBuilder(builder at the end of %%other, %%sum)");
  LLVMPositionBuilderAtEnd(builder, block);
  LLVMInsertIntoBuilder(builder, inst);
}

STEP void move_block_to_bar(LLVMValueRef bar, LLVMBasicBlockRef block) {
  say(__func__, "LLVMAppendExistingBasicBlock(@bar, %%entry)");
  LLVMAppendExistingBasicBlock(bar, block);
}

/*===-- Steps that use ----------------------------------------------------===*/

STEP void use_function_name(LLVMValueRef fn) {
  say(__func__, "LLVMGetValueName2(@foo)");
  size_t len = 0;
  const char *name = LLVMGetValueName2(fn, &len);
  say(__func__, "got \"%.*s\"", (int)len, name);
}

STEP void use_type_kind(LLVMTypeRef type) {
  say(__func__, "LLVMGetTypeKind(i32)");
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  say(__func__, "got %d%s", (int)kind,
      kind == LLVMIntegerTypeKind ? " (LLVMIntegerTypeKind)" : "");
}

STEP void use_instruction_name(LLVMValueRef inst) {
  say(__func__, "LLVMGetValueName2(%%sum)");
  size_t len = 0;
  const char *name = LLVMGetValueName2(inst, &len);
  say(__func__, "got \"%.*s\"", (int)len, name);
}

STEP void append_block_to_function(LLVMContextRef ctx, LLVMValueRef fn) {
  say(__func__, "LLVMAppendBasicBlockInContext(context, @foo, \"next\")");
  LLVMAppendBasicBlockInContext(ctx, fn, "next");
  say(__func__, "appended %%next");
}

STEP void use_block_name(LLVMBasicBlockRef block) {
  say(__func__, "LLVMGetBasicBlockName(%%entry)");
  const char *name = LLVMGetBasicBlockName(block);
  say(__func__, "got \"%s\"", name);
}

STEP void use_instruction_opcode(LLVMValueRef inst) {
  say(__func__, "LLVMGetInstructionOpcode(%%sum)");
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  say(__func__, "got %d%s", (int)op, op == LLVMAdd ? " (LLVMAdd)" : "");
}

/*===-- The cases ---------------------------------------------------------===*/
/*
 * Each case disposes of the builder before the interesting part unless the
 * builder is the subject, and always ends by freeing what is left.
 * The "valgrind (LLVM majors):" comments say what `valgrind -q` reports for
 * the buggy run without ownsan, and "native:" what the buggy run does on its
 * own (glibc malloc; it may change with the allocator). Every --fixed run is
 * valgrind-clean.
 */

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetValueName2, inside
 * @foo's memory freed by Module::~Module in LLVMDisposeModule.
 * native: 14 exits 0 silently; 19 dies of SIGSEGV. */
STEP int case_use_after_module_dispose(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_after_module_dispose: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.fn);
  // CHECK-use_after_module_dispose: seeded: subject = [[FN:0x[0-9a-f]+]]
  if (fixed) {
    use_function_name(f.fn);
    dispose_the_module(f.mod);
  } else {
    dispose_the_module(f.mod);
    use_function_name(f.fn); /* BUG: @foo died with its module. */
    // CHECK-use_after_module_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[FN]] (function @foo in module "m"){{$}}
    // CHECK-use_after_module_dispose-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-use_after_module_dispose-NEXT: #0 {{.*}} in use_function_name {{.*}}seeded.c:
    // CHECK-use_after_module_dispose-NEXT: #1 {{.*}} in case_use_after_module_dispose {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_after_module_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_module_dispose: freed by LLVMDisposeModule(module "m") on thread T0, because it belonged to that module:
    // CHECK-use_after_module_dispose-NEXT: #0 {{.*}} in dispose_the_module {{.*}}seeded.c:
    // CHECK-use_after_module_dispose-NEXT: #1 {{.*}} in case_use_after_module_dispose {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_after_module_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_module_dispose: created by LLVMAddFunction on thread T0:
    // CHECK-use_after_module_dispose-NEXT: #0 {{.*}} in make_function {{.*}}seeded.c:
    // CHECK-use_after_module_dispose-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_after_module_dispose-NEXT: #2 {{.*}} in case_use_after_module_dispose {{.*}}seeded.c:
    // CHECK-use_after_module_dispose: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo{{$}}
    // CHECK-use_after_module_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_function_name{{$}}
  }
  dispose_the_context(f.ctx);
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetTypeKind, inside the
 * LLVMContextImpl (which holds i32) freed by LLVMContextDispose.
 * native: exits 0 silently. */
STEP int case_use_after_context_dispose(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_after_context_dispose: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.i32);
  // CHECK-use_after_context_dispose: seeded: subject = [[I32:0x[0-9a-f]+]]
  /* Module "m" is freed by its context in both runs. */
  if (fixed) {
    use_type_kind(f.i32);
    dispose_the_context(f.ctx);
  } else {
    dispose_the_context(f.ctx);
    use_type_kind(f.i32); /* BUG: i32 died with its context. */
    // CHECK-use_after_context_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef [[I32]] (type i32){{$}}
    // CHECK-use_after_context_dispose-NEXT: passed as argument 1 of LLVMGetTypeKind on thread T0:
    // CHECK-use_after_context_dispose-NEXT: #0 {{.*}} in use_type_kind {{.*}}seeded.c:
    // CHECK-use_after_context_dispose-NEXT: #1 {{.*}} in case_use_after_context_dispose {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_after_context_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_context_dispose: freed by LLVMContextDispose(context [[CTX]]) on thread T0, because it belonged to that context:
    // CHECK-use_after_context_dispose-NEXT: #0 {{.*}} in dispose_the_context {{.*}}seeded.c:
    // CHECK-use_after_context_dispose-NEXT: #1 {{.*}} in case_use_after_context_dispose {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_after_context_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_context_dispose: created by LLVMInt32TypeInContext on thread T0:
    // CHECK-use_after_context_dispose-NEXT: #0 {{.*}} in make_i32_type {{.*}}seeded.c:
    // CHECK-use_after_context_dispose-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_after_context_dispose-NEXT: #2 {{.*}} in case_use_after_context_dispose {{.*}}seeded.c:
    // CHECK-use_after_context_dispose: ownership chain when freed: context [[CTX]] -> type i32{{$}}
    // CHECK-use_after_context_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetTypeKind {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_type_kind{{$}}
  }
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetValueName2, inside
 * %sum freed by BasicBlock::~BasicBlock in LLVMDeleteBasicBlock.
 * native: exits 0 silently. */
STEP int case_use_instruction_after_block_delete(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_instruction_after_block_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  // CHECK-use_instruction_after_block_delete: seeded: subject = [[SUM:0x[0-9a-f]+]]
  if (fixed) {
    use_instruction_name(f.sum);
    delete_the_block(f.entry);
  } else {
    delete_the_block(f.entry);
    use_instruction_name(f.sum); /* BUG: %sum died with %entry. */
    // CHECK-use_instruction_after_block_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
    // CHECK-use_instruction_after_block_delete-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}} in use_instruction_name {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}} in case_use_instruction_after_block_delete {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete: freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
    // CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}} in delete_the_block {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}} in case_use_instruction_after_block_delete {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete: created by LLVMBuildAdd on thread T0:
    // CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}} in build_sum {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}} in case_use_instruction_after_block_delete {{.*}}seeded.c:
    // CHECK-use_instruction_after_block_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
    // CHECK-use_instruction_after_block_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_instruction_name{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 8" and "Invalid write of size 8"
 * in LLVMAppendBasicBlockInContext (BasicBlock::insertInto) on @foo's block
 * list, freed by LLVMDeleteFunction.
 * native: exits 0 silently. */
STEP int case_use_after_delete_function(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_after_delete_function: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.fn);
  // CHECK-use_after_delete_function: seeded: subject = [[FN:0x[0-9a-f]+]]
  if (fixed) {
    append_block_to_function(f.ctx, f.fn);
    delete_the_function(f.fn);
  } else {
    delete_the_function(f.fn);
    append_block_to_function(f.ctx, f.fn); /* BUG: @foo is deleted. */
    // CHECK-use_after_delete_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[FN]] (function @foo in module "m"){{$}}
    // CHECK-use_after_delete_function-NEXT: passed as argument 2 of LLVMAppendBasicBlockInContext on thread T0:
    // CHECK-use_after_delete_function-NEXT: #0 {{.*}} in append_block_to_function {{.*}}seeded.c:
    // CHECK-use_after_delete_function-NEXT: #1 {{.*}} in case_use_after_delete_function {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_after_delete_function-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_delete_function: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0:
    // CHECK-use_after_delete_function-NEXT: #0 {{.*}} in delete_the_function {{.*}}seeded.c:
    // CHECK-use_after_delete_function-NEXT: #1 {{.*}} in case_use_after_delete_function {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_after_delete_function-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_delete_function: created by LLVMAddFunction on thread T0:
    // CHECK-use_after_delete_function-NEXT: #0 {{.*}} in make_function {{.*}}seeded.c:
    // CHECK-use_after_delete_function-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_after_delete_function-NEXT: #2 {{.*}} in case_use_after_delete_function {{.*}}seeded.c:
    // CHECK-use_after_delete_function: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo{{$}}
    // CHECK-use_after_delete_function-NEXT: SUMMARY: OwnSan: use-after-free in LLVMAppendBasicBlockInContext {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in append_block_to_function{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetBasicBlockName,
 * inside %entry freed by BasicBlock::eraseFromParent in LLVMDeleteFunction.
 * native: exits 0 silently. */
STEP int case_use_block_after_delete_function(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_block_after_delete_function: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.entry);
  // CHECK-use_block_after_delete_function: seeded: subject = [[ENTRY:0x[0-9a-f]+]]
  if (fixed) {
    use_block_name(f.entry);
    delete_the_function(f.fn);
  } else {
    delete_the_function(f.fn);
    use_block_name(f.entry); /* BUG: %entry died with @foo. */
    // CHECK-use_block_after_delete_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[ENTRY]] (block %entry of function @foo in module "m"){{$}}
    // CHECK-use_block_after_delete_function-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-use_block_after_delete_function-NEXT: #0 {{.*}} in use_block_name {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function-NEXT: #1 {{.*}} in case_use_block_after_delete_function {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_block_after_delete_function-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
    // CHECK-use_block_after_delete_function-NEXT: #0 {{.*}} in delete_the_function {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function-NEXT: #1 {{.*}} in case_use_block_after_delete_function {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_block_after_delete_function-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function: created by LLVMAppendBasicBlockInContext on thread T0:
    // CHECK-use_block_after_delete_function-NEXT: #0 {{.*}} in make_entry_block {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function-NEXT: #2 {{.*}} in case_use_block_after_delete_function {{.*}}seeded.c:
    // CHECK-use_block_after_delete_function: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry{{$}}
    // CHECK-use_block_after_delete_function-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_block_name{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* valgrind (14, 19): dozens of invalid reads/writes in Module::~Module and
 * an "Invalid free()" in the second LLVMDisposeModule.
 * native: SIGSEGV in the second LLVMDisposeModule. */
STEP int case_double_dispose_module(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-double_dispose_module: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.mod);
  // CHECK-double_dispose_module: seeded: subject = [[M:0x[0-9a-f]+]]
  dispose_the_module(f.mod);
  if (!fixed) {
    dispose_module_again(f.mod); /* BUG: already disposed. */
    // CHECK-double_dispose_module: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef [[M]] (module "m"){{$}}
    // CHECK-double_dispose_module-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-double_dispose_module-NEXT: #0 {{.*}} in dispose_module_again {{.*}}seeded.c:
    // CHECK-double_dispose_module-NEXT: #1 {{.*}} in case_double_dispose_module {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-double_dispose_module-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-double_dispose_module: freed by LLVMDisposeModule(module "m") on thread T0:
    // CHECK-double_dispose_module-NEXT: #0 {{.*}} in dispose_the_module {{.*}}seeded.c:
    // CHECK-double_dispose_module-NEXT: #1 {{.*}} in case_double_dispose_module {{.*}}seeded.c:[[@LINE-10]]:
    // CHECK-double_dispose_module-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-double_dispose_module: created by LLVMModuleCreateWithNameInContext on thread T0:
    // CHECK-double_dispose_module-NEXT: #0 {{.*}} in make_module {{.*}}seeded.c:
    // CHECK-double_dispose_module-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-double_dispose_module-NEXT: #2 {{.*}} in case_double_dispose_module {{.*}}seeded.c:
    // CHECK-double_dispose_module: ownership chain when freed: context [[CTX]] -> module "m"{{$}}
    // CHECK-double_dispose_module-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeModule {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in dispose_module_again{{$}}
  }
  dispose_the_context(f.ctx);
  return 0;
}

/* valgrind (14, 19): dozens of invalid reads/writes in Module::~Module and
 * an "Invalid free()" in LLVMDisposeModule of the module that
 * LLVMContextDispose already deleted.
 * native: SIGSEGV in LLVMDisposeModule. */
STEP int case_dispose_module_after_context(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-dispose_module_after_context: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.mod);
  // CHECK-dispose_module_after_context: seeded: subject = [[M:0x[0-9a-f]+]]
  if (fixed) {
    dispose_the_module(f.mod);
    dispose_the_context(f.ctx);
  } else {
    dispose_the_context(f.ctx);
    dispose_the_module(f.mod); /* BUG: the context deleted "m" already. */
    // CHECK-dispose_module_after_context: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef [[M]] (module "m"){{$}}
    // CHECK-dispose_module_after_context-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
    // CHECK-dispose_module_after_context-NEXT: #0 {{.*}} in dispose_the_module {{.*}}seeded.c:
    // CHECK-dispose_module_after_context-NEXT: #1 {{.*}} in case_dispose_module_after_context {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-dispose_module_after_context-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-dispose_module_after_context: freed by LLVMContextDispose(context [[CTX]]) on thread T0, because it belonged to that context:
    // CHECK-dispose_module_after_context-NEXT: #0 {{.*}} in dispose_the_context {{.*}}seeded.c:
    // CHECK-dispose_module_after_context-NEXT: #1 {{.*}} in case_dispose_module_after_context {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-dispose_module_after_context-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-dispose_module_after_context: created by LLVMModuleCreateWithNameInContext on thread T0:
    // CHECK-dispose_module_after_context-NEXT: #0 {{.*}} in make_module {{.*}}seeded.c:
    // CHECK-dispose_module_after_context-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-dispose_module_after_context-NEXT: #2 {{.*}} in case_dispose_module_after_context {{.*}}seeded.c:
    // CHECK-dispose_module_after_context: ownership chain when freed: context [[CTX]] -> module "m"{{$}}
    // CHECK-dispose_module_after_context-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeModule {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in dispose_the_module{{$}}
  }
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 8" and "Invalid free()" in the
 * second LLVMDisposeBuilder.
 * native: SIGSEGV in the second LLVMDisposeBuilder. */
STEP int case_double_dispose_builder(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-double_dispose_builder: seeded: context = [[CTX:0x[0-9a-f]+]]
  note_handle("subject", f.builder);
  // CHECK-double_dispose_builder: seeded: subject = [[B:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  if (!fixed) {
    dispose_builder_again(f.builder); /* BUG: already disposed. */
    // CHECK-double_dispose_builder: ==[[PID]]==ERROR: OwnSan: double-free on LLVMBuilderRef [[B]] (builder [[B]]){{$}}
    // CHECK-double_dispose_builder-NEXT: passed as argument 1 of LLVMDisposeBuilder on thread T0:
    // CHECK-double_dispose_builder-NEXT: #0 {{.*}} in dispose_builder_again {{.*}}seeded.c:
    // CHECK-double_dispose_builder-NEXT: #1 {{.*}} in case_double_dispose_builder {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-double_dispose_builder-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-double_dispose_builder: freed by LLVMDisposeBuilder(builder [[B]]) on thread T0:
    // CHECK-double_dispose_builder-NEXT: #0 {{.*}} in dispose_the_builder {{.*}}seeded.c:
    // CHECK-double_dispose_builder-NEXT: #1 {{.*}} in case_double_dispose_builder {{.*}}seeded.c:[[@LINE-10]]:
    // CHECK-double_dispose_builder-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-double_dispose_builder: created by LLVMCreateBuilderInContext on thread T0:
    // CHECK-double_dispose_builder-NEXT: #0 {{.*}} in make_builder {{.*}}seeded.c:
    // CHECK-double_dispose_builder-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-double_dispose_builder-NEXT: #2 {{.*}} in case_double_dispose_builder {{.*}}seeded.c:
    // CHECK-double_dispose_builder: ownership chain when freed: builder [[B]]{{$}}
    // CHECK-double_dispose_builder-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeBuilder {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in dispose_builder_again{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* LLVM 15 added LLVMDeleteInstruction.
 * valgrind (19): nothing in LLVMDeleteInstruction itself (release builds skip
 * the "still linked" assertion); the damage shows later as invalid
 * reads/writes and an "Invalid free()" when LLVMDisposeModule walks %entry's
 * instruction list, which still links the freed %sum.
 * native: SIGSEGV in LLVMDisposeModule. */
STEP int case_delete_attached_instruction(bool fixed) {
#if LLVM_VERSION_MAJOR >= 15
  struct foo f;
  build_foo(&f);
  // CHECK-delete_attached_instruction: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  // CHECK-delete_attached_instruction: seeded: subject = [[SUM:0x[0-9a-f]+]]
  if (fixed)
    detach_the_instruction(f.sum);
  delete_the_instruction(f.sum); /* BUG unless detached: still in %entry. */
  // CHECK-delete_attached_instruction: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
  // CHECK-delete_attached_instruction-NEXT: LLVMDeleteInstruction frees only detached instructions; this one is still in block %entry{{$}}
  // CHECK-delete_attached_instruction-NEXT: passed as argument 1 of LLVMDeleteInstruction on thread T0:
  // CHECK-delete_attached_instruction-NEXT: #0 {{.*}} in delete_the_instruction {{.*}}seeded.c:
  // CHECK-delete_attached_instruction-NEXT: #1 {{.*}} in case_delete_attached_instruction {{.*}}seeded.c:[[@LINE-5]]:
  // CHECK-delete_attached_instruction-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
  // CHECK-delete_attached_instruction-NOT: freed
  // CHECK-delete_attached_instruction: created by LLVMBuildAdd on thread T0:
  // CHECK-delete_attached_instruction-NEXT: #0 {{.*}} in build_sum {{.*}}seeded.c:
  // CHECK-delete_attached_instruction-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
  // CHECK-delete_attached_instruction-NEXT: #2 {{.*}} in case_delete_attached_instruction {{.*}}seeded.c:
  // CHECK-delete_attached_instruction: ownership chain: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
  // CHECK-delete_attached_instruction-NEXT: SUMMARY: OwnSan: invalid-free in LLVMDeleteInstruction {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in delete_the_instruction{{$}}
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
#else
  (void)fixed;
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return EXIT_CASE_NOT_AVAILABLE;
#endif
}

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetInstructionOpcode,
 * inside %sum freed by LLVMInstructionEraseFromParent.
 * native: exits 0 silently. */
STEP int case_use_erased_instruction(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_erased_instruction: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  // CHECK-use_erased_instruction: seeded: subject = [[SUM:0x[0-9a-f]+]]
  if (fixed) {
    use_instruction_opcode(f.sum);
    erase_the_instruction(f.sum);
  } else {
    erase_the_instruction(f.sum);
    use_instruction_opcode(f.sum); /* BUG: %sum is erased. */
    // CHECK-use_erased_instruction: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
    // CHECK-use_erased_instruction-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
    // CHECK-use_erased_instruction-NEXT: #0 {{.*}} in use_instruction_opcode {{.*}}seeded.c:
    // CHECK-use_erased_instruction-NEXT: #1 {{.*}} in case_use_erased_instruction {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_erased_instruction-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_erased_instruction: freed by LLVMInstructionEraseFromParent(instruction %sum in block %entry of function @foo in module "m") on thread T0:
    // CHECK-use_erased_instruction-NEXT: #0 {{.*}} in erase_the_instruction {{.*}}seeded.c:
    // CHECK-use_erased_instruction-NEXT: #1 {{.*}} in case_use_erased_instruction {{.*}}seeded.c:[[@LINE-9]]:
    // CHECK-use_erased_instruction-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_erased_instruction: created by LLVMBuildAdd on thread T0:
    // CHECK-use_erased_instruction-NEXT: #0 {{.*}} in build_sum {{.*}}seeded.c:
    // CHECK-use_erased_instruction-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_erased_instruction-NEXT: #2 {{.*}} in case_use_erased_instruction {{.*}}seeded.c:
    // CHECK-use_erased_instruction: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
    // CHECK-use_erased_instruction-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_instruction_opcode{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* A detached instruction belongs to the caller: deleting the block it came
 * from must not free it (no report there). Re-inserted into %other, it
 * belongs to %other and dies with it.
 * LLVMInsertIntoBuilder gives the instruction the name "" (IRBuilder::Insert's
 * default), so %sum is unnamed from then on, in LLVM and in the report.
 * valgrind (14, 19): "Invalid read of size 1" in LLVMGetValueName2, inside
 * %sum freed by BasicBlock::~BasicBlock in LLVMDeleteBasicBlock(%other).
 * native: exits 0 silently. */
STEP int case_use_reinserted_instruction_after_new_block_delete(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_reinserted_instruction_after_new_block_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  // CHECK-use_reinserted_instruction_after_new_block_delete: seeded: subject = [[SUM:0x[0-9a-f]+]]
  detach_the_instruction(f.sum);
  delete_the_block(f.entry); /* %sum is detached: it survives. */
  LLVMBasicBlockRef other = make_other_block(f.ctx, f.fn);
  LLVMBuilderRef builder = make_builder(f.ctx);
  reinsert_the_instruction(builder, other, f.sum);
  dispose_the_builder(builder);
  delete_the_other_block(other);
  if (!fixed) {
    use_instruction_name(f.sum); /* BUG: %sum died with %other. */
    // CHECK-use_reinserted_instruction_after_new_block_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction <unnamed> in block %other of function @foo in module "m"){{$}}
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}} in use_instruction_name {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}} in case_use_reinserted_instruction_after_new_block_delete {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete: freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}} in delete_the_other_block {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}} in case_use_reinserted_instruction_after_new_block_delete {{.*}}seeded.c:[[@LINE-10]]:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete: created by LLVMBuildAdd on thread T0:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}} in build_sum {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}} in case_use_reinserted_instruction_after_new_block_delete {{.*}}seeded.c:
    // CHECK-use_reinserted_instruction_after_new_block_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %other -> instruction <unnamed>{{$}}
    // CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_instruction_name{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/* A detached block belongs to the caller: deleting the function it came
 * from must not free it (no report there). Appended to @bar, it belongs to
 * @bar and dies with it.
 * %sum is erased first: it uses @foo's argument %x, and a block that still
 * used %x when @foo died would hold dangling uses (valgrind, 14 and 19: an
 * "Invalid write of size 8" when the block is freed later).
 * valgrind (14, 19): "Invalid read of size 1" in LLVMGetBasicBlockName,
 * inside %entry freed by BasicBlock::eraseFromParent in
 * LLVMDeleteFunction(@bar).
 * native: exits 0 silently. */
STEP int case_use_detached_block_after_function_delete(bool fixed) {
  struct foo f;
  build_foo(&f);
  // CHECK-use_detached_block_after_function_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
  dispose_the_builder(f.builder);
  erase_the_instruction(f.sum);
  note_handle("subject", f.entry);
  // CHECK-use_detached_block_after_function_delete: seeded: subject = [[ENTRY:0x[0-9a-f]+]]
  detach_the_block(f.entry);
  delete_the_function(f.fn); /* %entry is detached: it survives. */
  LLVMValueRef bar = make_bar_function(f.ctx, f.mod);
  move_block_to_bar(bar, f.entry);
  delete_the_bar_function(bar);
  if (!fixed) {
    use_block_name(f.entry); /* BUG: %entry died with @bar. */
    // CHECK-use_detached_block_after_function_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[ENTRY]] (block %entry of function @bar in module "m"){{$}}
    // CHECK-use_detached_block_after_function_delete-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
    // CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}} in use_block_name {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}} in case_use_detached_block_after_function_delete {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete: freed by LLVMDeleteFunction(function @bar in module "m") on thread T0, because it belonged to that function:
    // CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}} in delete_the_bar_function {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}} in case_use_detached_block_after_function_delete {{.*}}seeded.c:[[@LINE-10]]:
    // CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete: created by LLVMAppendBasicBlockInContext on thread T0:
    // CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}} in make_entry_block {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}} in build_foo {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}} in case_use_detached_block_after_function_delete {{.*}}seeded.c:
    // CHECK-use_detached_block_after_function_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @bar -> block %entry{{$}}
    // CHECK-use_detached_block_after_function_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in use_block_name{{$}}
  }
  dispose_the_module(f.mod);
  dispose_the_context(f.ctx);
  return 0;
}

/*===-- The legacy pass manager builder (LLVM 14 to 16) -------------------===*/

#if LLVM_VERSION_MAJOR <= 16
STEP LLVMPassManagerBuilderRef make_pass_manager_builder(void) {
  say(__func__, "LLVMPassManagerBuilderCreate()");
  return LLVMPassManagerBuilderCreate();
}

STEP void dispose_the_pass_manager_builder(LLVMPassManagerBuilderRef pmb) {
  say(__func__, "LLVMPassManagerBuilderDispose(pass manager builder)");
  LLVMPassManagerBuilderDispose(pmb);
}

STEP void set_the_opt_level(LLVMPassManagerBuilderRef pmb) {
  say(__func__, "LLVMPassManagerBuilderSetOptLevel(pass manager builder, 2)");
  LLVMPassManagerBuilderSetOptLevel(pmb, 2);
}
#endif

/* LLVM 14 to 16 (the legacy pass manager builder was removed in 17).
 * native: the store lands in the freed PassManagerBuilder; the program exits
 * 0 silently. */
STEP int case_use_after_pass_manager_builder_dispose(bool fixed) {
#if LLVM_VERSION_MAJOR <= 16
  LLVMPassManagerBuilderRef pmb = make_pass_manager_builder();
  note_handle("subject", pmb);
  // CHECK-use_after_pass_manager_builder_dispose: seeded: subject = [[PMB:0x[0-9a-f]+]]
  if (fixed)
    set_the_opt_level(pmb);
  dispose_the_pass_manager_builder(pmb);
  if (!fixed) {
    set_the_opt_level(pmb); /* BUG: already disposed. */
    // CHECK-use_after_pass_manager_builder_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMPassManagerBuilderRef [[PMB]] (pass manager builder [[PMB]]){{$}}
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: passed as argument 1 of LLVMPassManagerBuilderSetOptLevel on thread T0:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}} in set_the_opt_level {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}} in case_use_after_pass_manager_builder_dispose {{.*}}seeded.c:[[@LINE-4]]:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose: freed by LLVMPassManagerBuilderDispose(pass manager builder [[PMB]]) on thread T0:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}} in dispose_the_pass_manager_builder {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}} in case_use_after_pass_manager_builder_dispose {{.*}}seeded.c:[[@LINE-10]]:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #2 {{.*}} in main {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose: created by LLVMPassManagerBuilderCreate on thread T0:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}} in make_pass_manager_builder {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}} in case_use_after_pass_manager_builder_dispose {{.*}}seeded.c:
    // CHECK-use_after_pass_manager_builder_dispose: ownership chain when freed: pass manager builder [[PMB]]{{$}}
    // CHECK-use_after_pass_manager_builder_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMPassManagerBuilderSetOptLevel {{.*}}seeded.c:{{[0-9]+}}:{{[0-9]+}} in set_the_opt_level{{$}}
  }
  return 0;
#else
  (void)fixed;
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return EXIT_CASE_NOT_AVAILABLE;
#endif
}

static const struct {
  const char *name;
  int (*run)(bool fixed);
} cases[] = {
    {"use_after_module_dispose", case_use_after_module_dispose},
    {"use_after_context_dispose", case_use_after_context_dispose},
    {"use_instruction_after_block_delete",
     case_use_instruction_after_block_delete},
    {"use_after_delete_function", case_use_after_delete_function},
    {"use_block_after_delete_function", case_use_block_after_delete_function},
    {"double_dispose_module", case_double_dispose_module},
    {"dispose_module_after_context", case_dispose_module_after_context},
    {"double_dispose_builder", case_double_dispose_builder},
    {"delete_attached_instruction", case_delete_attached_instruction},
    {"use_erased_instruction", case_use_erased_instruction},
    {"use_reinserted_instruction_after_new_block_delete",
     case_use_reinserted_instruction_after_new_block_delete},
    {"use_detached_block_after_function_delete",
     case_use_detached_block_after_function_delete},
    {"use_after_pass_manager_builder_dispose",
     case_use_after_pass_manager_builder_dispose},
};

static int usage(const char *argv0) {
  fprintf(stderr, "usage: %s CASE [--fixed]\ncases:\n", argv0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    fprintf(stderr, "  %s\n", cases[i].name);
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  /* Line-buffered, so the steps before an abort() reach a pipe. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2 || argc > 3)
    return usage(argv[0]);
  bool fixed = false;
  if (argc == 3) {
    if (strcmp(argv[2], "--fixed") != 0)
      return usage(argv[0]);
    fixed = true;
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (strcmp(argv[1], cases[i].name) == 0) {
      say(__func__, "case %s%s", cases[i].name, fixed ? " (fixed)" : "");
      int status = cases[i].run(fixed);
      if (status == 0)
        say(__func__, "done");
      return status;
    }
  }
  fprintf(stderr, "%s: unknown case '%s'\n", argv[0], argv[1]);
  return usage(argv[0]);
}
