/*===- opts_prog.c - An LLVM-C client for the OWNSAN_OPTIONS tests ---------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: opts_prog MODE
 *
 *   clean     builds a module and disposes everything; exits 0.
 *   multi     several distinct ownership bugs in one run (continue mode):
 *               A  LLVMGetValueName2(@f) after its module was disposed,
 *                  three times from the same line (one problem, count 3)
 *               B  LLVMCountBasicBlocks(@f), same freed function
 *               C  LLVMDisposeModule twice
 *               D  LLVMDisposeBuilder twice
 *             and prints what each offending call returned.
 *   suppress  three uses of one freed function with LLVMGetValueKind, from
 *             three places: kind_in_main_file (this file), kind_in_other_file
 *             (opts_other.c) and opts_helper_value_kind (the shared library
 *             libownsan_opts_helper.so). The suppression tests silence one
 *             of them at a time. LLVMGetValueKind only reads one byte of the
 *             object, whose memory the quarantine still holds, so a
 *             suppressed (forwarded) call is harmless.
 *   leak      leaves objects undisposed: a context, three modules made at
 *             one line, a module of the global context, a builder and a
 *             memory buffer.
 *   deep      one use-after-free made 8 calls deep (deep_1 ... deep_8).
 *   invalid   an invalid free: LLVMInstructionEraseFromParent on an
 *             instruction already removed from its block.
 *   threads   two threads, each with a context of its own, make 102 calls
 *             each (create, 100 x LLVMInt32TypeInContext, dispose); main
 *             makes none: 204 checked calls in all (verbosity=1 counts).
 *   late      a thread-specific destructor of the program makes 12 calls
 *             after ownsan's destructor for that thread ran: 16 checked
 *             calls in all.
 *   nofp      one use-after-free made through fp_outer -> fp_middle ->
 *             fp_inner, where fp_middle (opts_nofp.c) is compiled without a
 *             frame pointer: a frame-pointer walk loses fp_outer, a DWARF
 *             unwind does not.
 *   oldpython loads libownsan_opts_oldpy.so (beside this program), an
 *             imitation of a CPython before 3.9, then runs `deep`.
 *   heap      builds and disposes 200 modules of 500 instructions (the
 *             quarantine holds their blocks: the heap grows), then prints
 *             "GLIBC_TUNABLES=<value or (unset)>", "heap huge pages:
 *             yes|no" (a [heap] mapping advised for transparent huge pages,
 *             VmFlags "hg", in /proc/self/smaps) and "other huge pages:
 *             yes|no" (an advised anonymous mapping that is not the heap:
 *             ownsan's own memory, unless glibc advises its mmap'ed chunks),
 *             "malloc from: <file name of the object whose malloc the
 *             process calls>" and "LD_PRELOAD=<value or (unset)>".
 *
 * Every step prints "<step>: ..." to stdout before it calls LLVM, so the last
 * stdout line of a halted run is the offending call. The executable is linked
 * with -rdynamic, so dladdr() can name its functions (symbolize=0).
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "opts_prog.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP __attribute__((noinline))

struct unit {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMValueRef fn;
  LLVMBuilderRef builder;
};

STEP void make_unit(struct unit *u) {
  printf("make_unit: context, module \"m\", @f with block %%entry, builder\n");
  u->ctx = LLVMContextCreate();
  u->mod = LLVMModuleCreateWithNameInContext("m", u->ctx);
  LLVMTypeRef fn_type =
      LLVMFunctionType(LLVMVoidTypeInContext(u->ctx), NULL, 0, 0);
  u->fn = LLVMAddFunction(u->mod, "f", fn_type);
  LLVMBasicBlockRef entry =
      LLVMAppendBasicBlockInContext(u->ctx, u->fn, "entry");
  u->builder = LLVMCreateBuilderInContext(u->ctx);
  LLVMPositionBuilderAtEnd(u->builder, entry);
  LLVMBuildRetVoid(u->builder);
}

STEP void dispose_module(LLVMModuleRef m) {
  printf("dispose_module: LLVMDisposeModule\n");
  LLVMDisposeModule(m);
}

STEP void dispose_module_again(LLVMModuleRef m) {
  printf("dispose_module_again: LLVMDisposeModule\n");
  LLVMDisposeModule(m);
}

STEP void dispose_builder(LLVMBuilderRef b) {
  printf("dispose_builder: LLVMDisposeBuilder\n");
  LLVMDisposeBuilder(b);
}

STEP void dispose_builder_again(LLVMBuilderRef b) {
  printf("dispose_builder_again: LLVMDisposeBuilder\n");
  LLVMDisposeBuilder(b);
}

STEP void use_name(LLVMValueRef fn) {
  printf("use_name: LLVMGetValueName2(@f)\n");
  size_t len = 12345;
  const char *name = LLVMGetValueName2(fn, &len);
  printf("use_name: returned %s\n", name ? "a name" : "NULL");
}

STEP void use_block_count(LLVMValueRef fn) {
  printf("use_block_count: LLVMCountBasicBlocks(@f)\n");
  unsigned n = LLVMCountBasicBlocks(fn);
  printf("use_block_count: returned %u\n", n);
}

STEP void kind_in_main_file(LLVMValueRef fn) {
  printf("kind_in_main_file: LLVMGetValueKind(@f)\n");
  int k = (int)LLVMGetValueKind(fn);
  printf("kind_in_main_file: returned %s\n",
         k == LLVMFunctionValueKind ? "LLVMFunctionValueKind" : "0");
}

STEP void dispose_context(LLVMContextRef ctx) {
  printf("dispose_context: LLVMContextDispose\n");
  LLVMContextDispose(ctx);
}

static int mode_clean(void) {
  struct unit u;
  make_unit(&u);
  char *text = LLVMPrintModuleToString(u.mod);
  printf("clean: module has %zu characters of IR\n", strlen(text));
  LLVMDisposeMessage(text);
  dispose_builder(u.builder);
  dispose_module(u.mod);
  dispose_context(u.ctx);
  return 0;
}

static int mode_multi(void) {
  struct unit u;
  make_unit(&u);
  printf("multi: @f has %u block(s)\n", LLVMCountBasicBlocks(u.fn));
  dispose_module(u.mod);
  for (int i = 0; i < 3; ++i)
    use_name(u.fn);            /* bug A, three times */
  use_block_count(u.fn);       /* bug B */
  dispose_module_again(u.mod); /* bug C */
  dispose_builder(u.builder);
  dispose_builder_again(u.builder); /* bug D */
  dispose_context(u.ctx);
  printf("multi: done\n");
  return 0;
}

static int mode_suppress(void) {
  struct unit u;
  make_unit(&u);
  dispose_builder(u.builder);
  dispose_module(u.mod);
  kind_in_main_file(u.fn);
  kind_in_other_file(u.fn);
  printf("opts_helper_value_kind: LLVMGetValueKind(@f)\n");
  printf("opts_helper_value_kind: returned %s\n",
         opts_helper_value_kind(u.fn) == LLVMFunctionValueKind
             ? "LLVMFunctionValueKind"
             : "0");
  dispose_context(u.ctx);
  printf("suppress: done\n");
  return 0;
}

STEP LLVMModuleRef make_leaked_module(LLVMContextRef ctx, int i) {
  char name[16];
  snprintf(name, sizeof name, "leak%d", i);
  return LLVMModuleCreateWithNameInContext(name, ctx);
}

static int mode_leak(void) {
  printf("leak: context, 3 modules, a global-context module, a builder, a "
         "memory buffer\n");
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 3; ++i)
    make_leaked_module(ctx, i);
  LLVMModuleCreateWithName("in_global_context");
  LLVMCreateBuilderInContext(ctx);
  static const char bytes[] = "0123456789";
  LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes, sizeof bytes, "buf");
  printf("leak: done\n");
  return 0;
}

#define DEEP(n, next)                                                          \
  STEP void deep_##n(LLVMValueRef fn) { next(fn); }
STEP void deep_8(LLVMValueRef fn) { use_name(fn); }
DEEP(7, deep_8)
DEEP(6, deep_7)
DEEP(5, deep_6)
DEEP(4, deep_5)
DEEP(3, deep_4)
DEEP(2, deep_3)
DEEP(1, deep_2)

static int mode_deep(void) {
  struct unit u;
  make_unit(&u);
  dispose_builder(u.builder);
  dispose_module(u.mod);
  deep_1(u.fn);
  dispose_context(u.ctx);
  printf("deep: done\n");
  return 0;
}

STEP void erase_detached(LLVMValueRef inst) {
  printf("erase_detached: LLVMInstructionEraseFromParent(detached %%r)\n");
  LLVMInstructionEraseFromParent(inst);
}

static int mode_invalid(void) {
  struct unit u;
  make_unit(&u);
  LLVMValueRef ret = LLVMGetLastInstruction(LLVMGetEntryBasicBlock(u.fn));
  printf("invalid: LLVMInstructionRemoveFromParent(ret)\n");
  LLVMInstructionRemoveFromParent(ret);
  erase_detached(ret);
  dispose_builder(u.builder);
  dispose_module(u.mod);
  dispose_context(u.ctx);
  printf("invalid: done\n");
  return 0;
}

STEP void fp_inner(LLVMValueRef fn) { use_name(fn); }
STEP void fp_outer(LLVMValueRef fn) { fp_middle(fn); }

static int mode_nofp(void) {
  struct unit u;
  make_unit(&u);
  dispose_builder(u.builder);
  dispose_module(u.mod);
  fp_outer(u.fn);
  dispose_context(u.ctx);
  printf("nofp: done\n");
  return 0;
}

static void *types_thread(void *arg) {
  (void)arg;
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 100; ++i)
    LLVMInt32TypeInContext(ctx);
  LLVMContextDispose(ctx);
  return NULL;
}

static int mode_threads(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, types_thread, NULL);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  printf("threads: done\n");
  return 0;
}

/* late: a thread's own thread-specific destructor (its key made after
 * ownsan's) makes LLVM-C calls after ownsan's destructor for the thread has
 * run. Checked calls: main 2, the thread 2, its destructor 12 (16). */
static pthread_key_t g_late_key;

static void late_destructor(void *arg) {
  (void)arg;
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 10; ++i)
    LLVMInt32TypeInContext(ctx);
  LLVMContextDispose(ctx);
}

static void *late_thread(void *arg) {
  (void)arg;
  pthread_setspecific(g_late_key, &g_late_key);
  LLVMContextDispose(LLVMContextCreate());
  return NULL;
}

static int mode_oldpython(const char *argv0) {
  char path[4096];
  const char *slash = strrchr(argv0, '/');
  snprintf(path, sizeof path, "%.*s/libownsan_opts_oldpy.so",
           slash ? (int)(slash - argv0) : 1, slash ? argv0 : ".");
  if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
    fprintf(stderr, "opts_prog: %s\n", dlerror());
    return 2;
  }
  return mode_deep();
}

static int mode_late(void) {
  /* ownsan makes its keys at the process's first checked call. */
  LLVMContextDispose(LLVMContextCreate());
  pthread_key_create(&g_late_key, late_destructor);
  pthread_t t;
  pthread_create(&t, NULL, late_thread, NULL);
  pthread_join(t, NULL);
  printf("late: done\n");
  return 0;
}

static int mode_heap(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i64, &i64, 1, 0);
  for (int m = 0; m < 200; ++m) {
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("heap", ctx);
    LLVMValueRef fn = LLVMAddFunction(mod, "f", fty);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "e"));
    LLVMValueRef x = LLVMGetParam(fn, 0);
    for (int i = 0; i < 500; ++i)
      x = LLVMBuildAdd(b, x, x, "x");
    LLVMBuildRet(b, x);
    LLVMDisposeBuilder(b);
    LLVMDisposeModule(mod);
  }
  LLVMContextDispose(ctx);
  const char *tunables = getenv("GLIBC_TUNABLES");
  printf("GLIBC_TUNABLES=%s\n", tunables ? tunables : "(unset)");
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  int in_heap = 0, anonymous = 0, huge = 0, other_huge = 0;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char path[256];
    // A mapping's first line: its range, four fields, and its file (an
    // anonymous mapping names none).
    int fields = sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, path);
    if (strncmp(line, "VmFlags:", 8) == 0) {
      if (strstr(line, " hg")) {
        huge |= in_heap;
        other_huge |= anonymous;
      }
      in_heap = anonymous = 0;
    } else if (fields >= 2) {
      in_heap = fields == 3 && strcmp(path, "[heap]") == 0;
      anonymous = fields == 2;
    }
  }
  if (f)
    fclose(f);
  printf("heap huge pages: %s\n", huge ? "yes" : "no");
  printf("other huge pages: %s\n", other_huge ? "yes" : "no");
  Dl_info where;
  const char *from = "?";
  if (dladdr(dlsym(RTLD_DEFAULT, "malloc"), &where) && where.dli_fname) {
    from = strrchr(where.dli_fname, '/');
    from = from ? from + 1 : where.dli_fname;
  }
  printf("malloc from: %s\n", from);
  const char *preload = getenv("LD_PRELOAD");
  printf("LD_PRELOAD=%s\n", preload ? preload : "(unset)");
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "clean"))
    return mode_clean();
  if (!strcmp(mode, "multi"))
    return mode_multi();
  if (!strcmp(mode, "suppress"))
    return mode_suppress();
  if (!strcmp(mode, "leak"))
    return mode_leak();
  if (!strcmp(mode, "deep"))
    return mode_deep();
  if (!strcmp(mode, "nofp"))
    return mode_nofp();
  if (!strcmp(mode, "invalid"))
    return mode_invalid();
  if (!strcmp(mode, "threads"))
    return mode_threads();
  if (!strcmp(mode, "late"))
    return mode_late();
  if (!strcmp(mode, "oldpython"))
    return mode_oldpython(argv[0]);
  if (!strcmp(mode, "heap"))
    return mode_heap();
  fprintf(stderr, "usage: opts_prog "
                  "clean|multi|suppress|leak|deep|nofp|invalid|threads|late|"
                  "oldpython|heap\n");
  return 2;
}
