/*===- hostile.c - Programs that pass ownsan what it does not expect ------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: hostile MODE [ARG]
 *
 *   null_allowed   NULL handles where the C API allows them (disposers,
 *                  LLVMIsA*, empty arrays, "no instruction" positions, NULL
 *                  out-message pointers...). Prints what each call returned;
 *                  exits 0.
 *   null_deref CALL
 *                  NULL where it is not allowed: one call that makes LLVM
 *                  dereference NULL (CALL: value_name, type_of,
 *                  delete_block, erase_instruction, module_context,
 *                  build_add). A SIGSEGV handler prints
 *                  "hostile: SIGSEGV in <library of the faulting pc>" and
 *                  exits 99: the crash must happen inside libLLVM, exactly
 *                  as without ownsan (ownsan lets unknown handles through).
 *                  The handler is installed after the first LLVM-C calls,
 *                  so it replaces ownsan's. CALL "outside" makes the
 *                  program itself dereference NULL between LLVM-C calls.
 *   null_deref_early CALL
 *                  The same with the handler installed before any LLVM-C
 *                  call (ownsan's handler chains to it).
 *   null_deref_unhandled CALL
 *                  The same with no handler: the process dies of SIGSEGV.
 *   garbage        Handles ownsan never saw, pointing at zeroed memory built
 *                  to look like a Value / a Module: calls that only read a
 *                  field of them (LLVMGetValueKind, LLVMIsConstant,
 *                  LLVMIsUndef, LLVMGetModuleIdentifier, LLVMTypeOf). The
 *                  results are printed; must be the same with ownsan.
 *   garbage_isa    The fake Value passed to LLVMIsAConstant, which only reads
 *                  its kind and returns it unchanged (non-NULL) without
 *                  ownsan.
 *   confused_type  A type handle passed where a value is expected:
 *                  LLVMIsAConstant((LLVMValueRef)LLVMInt32TypeInContext(c)),
 *                  as a loosely typed binding might; without ownsan LLVM
 *                  reads one byte of the type and returns. Then the context
 *                  is used and disposed normally.
 *   link_consumed  Correct code that ownsan must not disturb: LLVMLinkModules2
 *                  destroys its source module (LLVM frees it, no LLVM-C
 *                  dispose is called); the memory is reused by malloc; then
 *                  the destination module and the context are disposed.
 *   first_call     Prints a line, then makes its first LLVM-C call,
 *                  LLVMParseCommandLineOptions(--version), which makes LLVM
 *                  print its version and exit 0. Built against the *other*
 *                  installed LLVM (hostile_other), it must be stopped by
 *                  the runtime before LLVM prints anything.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void on_segv(int sig, siginfo_t *si, void *uc_void) {
  (void)sig;
  (void)si;
  ucontext_t *uc = uc_void;
  void *pc = (void *)(uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  Dl_info info;
  const char *lib = "?";
  if (dladdr(pc, &info) && info.dli_fname) {
    lib = strrchr(info.dli_fname, '/');
    lib = lib ? lib + 1 : info.dli_fname;
  }
  char line[512];
  int n = snprintf(line, sizeof line, "hostile: SIGSEGV in %s\n", lib);
  (void)!write(1, line, (size_t)n);
  _exit(99);
}

static void catch_segv(void) {
  static char stack[1 << 16];
  stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}

static const char *yesno(const void *p) { return p ? "non-NULL" : "NULL"; }

static int mode_null_allowed(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  /* Disposers accept NULL (delete of a null pointer). */
  LLVMDisposeMessage(NULL);
  LLVMDisposeModule(NULL);
  LLVMDisposeBuilder(NULL);
  LLVMDisposeMemoryBuffer(NULL);
  LLVMContextDispose(NULL);
  printf("disposers of NULL: ok\n");
  /* LLVMIsA* are dyn_cast_or_null. */
  printf("LLVMIsAFunction(NULL) = %s\n", yesno(LLVMIsAFunction(NULL)));
  printf("LLVMIsAInstruction(NULL) = %s\n", yesno(LLVMIsAInstruction(NULL)));
  /* Empty arrays as NULL. */
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i32, NULL, 0, 0);
  LLVMTypeRef st = LLVMStructTypeInContext(ctx, NULL, 0, 0);
  LLVMValueRef cs = LLVMConstStructInContext(ctx, NULL, 0, 0);
  printf("empty function type, struct type, struct constant: %s %s %s\n",
         yesno(fty), yesno(st), yesno(cs));
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("nulls", ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", fty);
  LLVMGetParams(f, NULL); /* zero parameters: nothing is written */
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilder(b, bb, NULL); /* NULL instruction: the block's end */
  LLVMValueRef call = LLVMBuildCall2(b, fty, f, NULL, 0, "c");
  LLVMBuildRet(b, call);
  /* NULL out-message. */
  printf("verify (NULL message) = %d\n",
         LLVMVerifyModule(m, LLVMReturnStatusAction, NULL));
  /* Iteration ends with NULL handles returned. */
  printf("next instruction after ret = %s\n",
         yesno(LLVMGetNextInstruction(LLVMGetLastInstruction(bb))));
  printf("next function after f = %s\n", yesno(LLVMGetNextFunction(f)));
  printf("named function missing = %s\n",
         yesno(LLVMGetNamedFunction(m, "missing")));
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

/* when: 'l' installs the SIGSEGV handler after the first LLVM-C calls
 * (it replaces ownsan's), 'e' before any (ownsan chains to it), 'n' never
 * (the process dies of the signal). */
static int mode_null_deref(const char *what, char when) {
  if (when == 'e')
    catch_segv();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  if (when == 'l')
    catch_segv();
  printf("null_deref %s: calling\n", what);
  fflush(stdout);
  size_t len;
  if (!strcmp(what, "value_name"))
    LLVMGetValueName2(NULL, &len);
  else if (!strcmp(what, "type_of"))
    LLVMTypeOf(NULL);
  else if (!strcmp(what, "delete_block"))
    LLVMDeleteBasicBlock(NULL);
  else if (!strcmp(what, "erase_instruction"))
    LLVMInstructionEraseFromParent(NULL);
  else if (!strcmp(what, "module_context"))
    LLVMGetModuleContext(NULL);
  else if (!strcmp(what, "build_add"))
    LLVMBuildAdd(b, NULL, NULL, "x");
  else if (!strcmp(what, "outside")) {
    /* The program's own NULL dereference, between two LLVM-C calls. */
    volatile int *volatile p = NULL;
    printf("null_deref outside: %d\n", *p);
  } else {
    fprintf(stderr, "hostile: unknown call %s\n", what);
    return 2;
  }
  printf("null_deref %s: returned\n", what);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

/* Zeroed memory, big enough for any object's fields; a Value's kind is
 * the byte after its two pointers (Type *VTy, Use *UseList). */
static _Alignas(64) unsigned char g_fake_value[4096];
static _Alignas(64) unsigned char g_fake_module[4096];

static int mode_garbage(void) {
  LLVMValueRef v = (LLVMValueRef)(void *)g_fake_value;
  LLVMModuleRef m = (LLVMModuleRef)(void *)g_fake_module;
  printf("LLVMGetValueKind(fake) = %d\n", (int)LLVMGetValueKind(v));
  printf("LLVMIsConstant(fake) = %d\n", LLVMIsConstant(v));
  printf("LLVMIsUndef(fake) = %d\n", LLVMIsUndef(v));
  printf("LLVMTypeOf(fake) = %s\n", yesno(LLVMTypeOf(v)));
  size_t len = 99;
  const char *id = LLVMGetModuleIdentifier(m, &len);
  printf("LLVMGetModuleIdentifier(fake) = %s, length %zu\n", yesno(id), len);
  /* The fake objects are untouched. */
  for (size_t i = 0; i < sizeof g_fake_value; ++i)
    if (g_fake_value[i] || g_fake_module[i]) {
      printf("fake objects modified!\n");
      return 1;
    }
  printf("fake objects untouched\n");
  return 0;
}

static int mode_garbage_isa(void) {
  LLVMValueRef v = (LLVMValueRef)(void *)g_fake_value;
  int kind = (int)LLVMGetValueKind(v);
  LLVMValueRef r = LLVMIsAConstant(v);
  printf("LLVMIsAConstant(fake with kind %d) = %s\n", kind,
         r == v ? "the fake" : yesno(r));
  for (size_t i = 0; i < sizeof g_fake_value; ++i)
    if (g_fake_value[i]) {
      printf("fake object modified!\n");
      return 1;
    }
  printf("fake object untouched\n");
  return 0;
}

static int mode_confused_type(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  /* The binding's mistake: a type where a value belongs. */
  /* LLVM reads the first byte of the type as a value ID: that byte is part
   * of the address of the type's context, which differs from run to run
   * (and under ownsan), so only the return is printed, not the answer. */
  volatile LLVMValueRef r = LLVMIsAConstant((LLVMValueRef)(void *)i32);
  (void)r;
  printf("LLVMIsAConstant(type) returned\n");
  /* The context still works. */
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("after", ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "e"));
  LLVMBuildRet(b, LLVMGetParam(f, 0));
  printf("verify = %d\n", LLVMVerifyModule(m, LLVMReturnStatusAction, NULL));
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

static int mode_link_consumed(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef dst = LLVMModuleCreateWithNameInContext("dst", ctx);
  LLVMModuleRef src = LLVMModuleCreateWithNameInContext("src", ctx);
  LLVMAddFunction(src, "f",
                  LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
  if (LLVMLinkModules2(dst, src)) /* destroys src */
    return 1;
  printf("linked: %s\n", LLVMGetNamedFunction(dst, "f") ? "f in dst" : "?");
  enum { kBlocks = 20000 };
  static void *blocks[kBlocks];
  for (int i = 0; i < kBlocks; ++i) {
    size_t n = 16 + (size_t)(i % 128) * 8;
    blocks[i] = malloc(n);
    memset(blocks[i], 0x41, n);
  }
  LLVMDisposeModule(dst);
  LLVMContextDispose(ctx);
  for (int i = 0; i < kBlocks; ++i)
    free(blocks[i]);
  return 0;
}

static int mode_first_call(void) {
  printf("first_call: before the first LLVM-C call\n");
  fflush(stdout);
  const char *args[] = {"hostile", "--version"};
  LLVMParseCommandLineOptions(2, args, "hostile");
  printf("first_call: after the first LLVM-C call\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hostile null_allowed|null_deref[_early|_unhandled] "
                    "CALL|garbage|"
                    "garbage_isa|confused_type|link_consumed|first_call\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  alarm(120);
  const char *mode = argv[1];
  int rc = 2;
  if (!strcmp(mode, "null_allowed"))
    rc = mode_null_allowed();
  else if (!strcmp(mode, "null_deref") && argc > 2)
    rc = mode_null_deref(argv[2], 'l');
  else if (!strcmp(mode, "null_deref_early") && argc > 2)
    rc = mode_null_deref(argv[2], 'e');
  else if (!strcmp(mode, "null_deref_unhandled") && argc > 2)
    rc = mode_null_deref(argv[2], 'n');
  else if (!strcmp(mode, "garbage"))
    rc = mode_garbage();
  else if (!strcmp(mode, "garbage_isa"))
    rc = mode_garbage_isa();
  else if (!strcmp(mode, "confused_type"))
    rc = mode_confused_type();
  else if (!strcmp(mode, "link_consumed"))
    rc = mode_link_consumed();
  else if (!strcmp(mode, "first_call"))
    rc = mode_first_call();
  else
    fprintf(stderr, "hostile: unknown mode %s\n", mode);
  if (rc == 0)
    printf("%s: done\n", mode);
  return rc;
}
