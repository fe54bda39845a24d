/*===- seeded.c - LLVM-C clients with one seeded ownership bug each --------===*
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
 * program exits 0. tests/seeded/expectations.py says what ownsan must report
 * for each case; tests/seeded/check_report.py checks it.
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.fn);
  if (fixed) {
    use_function_name(f.fn);
    dispose_the_module(f.mod);
  } else {
    dispose_the_module(f.mod);
    use_function_name(f.fn); /* BUG: @foo died with its module. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.i32);
  /* Module "m" is freed by its context in both runs. */
  if (fixed) {
    use_type_kind(f.i32);
    dispose_the_context(f.ctx);
  } else {
    dispose_the_context(f.ctx);
    use_type_kind(f.i32); /* BUG: i32 died with its context. */
  }
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 1" in LLVMGetValueName2, inside
 * %sum freed by BasicBlock::~BasicBlock in LLVMDeleteBasicBlock.
 * native: exits 0 silently. */
STEP int case_use_instruction_after_block_delete(bool fixed) {
  struct foo f;
  build_foo(&f);
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  if (fixed) {
    use_instruction_name(f.sum);
    delete_the_block(f.entry);
  } else {
    delete_the_block(f.entry);
    use_instruction_name(f.sum); /* BUG: %sum died with %entry. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.fn);
  if (fixed) {
    append_block_to_function(f.ctx, f.fn);
    delete_the_function(f.fn);
  } else {
    delete_the_function(f.fn);
    append_block_to_function(f.ctx, f.fn); /* BUG: @foo is deleted. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.entry);
  if (fixed) {
    use_block_name(f.entry);
    delete_the_function(f.fn);
  } else {
    delete_the_function(f.fn);
    use_block_name(f.entry); /* BUG: %entry died with @foo. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.mod);
  dispose_the_module(f.mod);
  if (!fixed)
    dispose_module_again(f.mod); /* BUG: already disposed. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.mod);
  if (fixed) {
    dispose_the_module(f.mod);
    dispose_the_context(f.ctx);
  } else {
    dispose_the_context(f.ctx);
    dispose_the_module(f.mod); /* BUG: the context deleted "m" already. */
  }
  return 0;
}

/* valgrind (14, 19): "Invalid read of size 8" and "Invalid free()" in the
 * second LLVMDisposeBuilder.
 * native: SIGSEGV in the second LLVMDisposeBuilder. */
STEP int case_double_dispose_builder(bool fixed) {
  struct foo f;
  build_foo(&f);
  note_handle("subject", f.builder);
  dispose_the_builder(f.builder);
  if (!fixed)
    dispose_builder_again(f.builder); /* BUG: already disposed. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  if (fixed)
    detach_the_instruction(f.sum);
  delete_the_instruction(f.sum); /* BUG unless detached: still in %entry. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  if (fixed) {
    use_instruction_opcode(f.sum);
    erase_the_instruction(f.sum);
  } else {
    erase_the_instruction(f.sum);
    use_instruction_opcode(f.sum); /* BUG: %sum is erased. */
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
  dispose_the_builder(f.builder);
  note_handle("subject", f.sum);
  detach_the_instruction(f.sum);
  delete_the_block(f.entry); /* %sum is detached: it survives. */
  LLVMBasicBlockRef other = make_other_block(f.ctx, f.fn);
  LLVMBuilderRef builder = make_builder(f.ctx);
  reinsert_the_instruction(builder, other, f.sum);
  dispose_the_builder(builder);
  delete_the_other_block(other);
  if (!fixed)
    use_instruction_name(f.sum); /* BUG: %sum died with %other. */
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
  dispose_the_builder(f.builder);
  erase_the_instruction(f.sum);
  note_handle("subject", f.entry);
  detach_the_block(f.entry);
  delete_the_function(f.fn); /* %entry is detached: it survives. */
  LLVMValueRef bar = make_bar_function(f.ctx, f.mod);
  move_block_to_bar(bar, f.entry);
  delete_the_bar_function(bar);
  if (!fixed)
    use_block_name(f.entry); /* BUG: %entry died with @bar. */
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
  if (fixed)
    set_the_opt_level(pmb);
  dispose_the_pass_manager_builder(pmb);
  if (!fixed)
    set_the_opt_level(pmb); /* BUG: already disposed. */
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
