/*===- threads.c - ownsan under threads: stress, races, cross-context ------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: threads MODE [ARGS] [--fixed]
 *
 *   stress [ITERS [THREADS]]
 *       THREADS (8) threads, each with its own LLVMContext, run ITERS (2000)
 *       create/use/dispose cycles: modules, functions, blocks, instructions
 *       (erased, detached and re-inserted), builders, memory buffers (bitcode
 *       written and parsed back), contexts themselves every 250 cycles. All
 *       of them share one MCJIT engine built on a module of the main
 *       thread's context, used through LLVMGetFunctionAddress and
 *       LLVMRunFunction (spec: serialized_by(0), so no context claim). Must
 *       exit 0 with nothing from ownsan.
 *   cold [ITERS [THREADS]]
 *       The threads make the process's very first LLVM-C calls at the same
 *       moment (released together by a barrier): the runtime's lazy start
 *       (libLLVM selection, observer, global context) under contention.
 *   race
 *       Seeded context race. Thread T0 creates a context, thread T1 uses it
 *       once (a hand-off: from then on the runtime records each claim's
 *       stack), then T0 enters LLVMParseBitcodeInContext2 on garbage bytes;
 *       the context's diagnostic handler blocks inside that call until T1
 *       has called LLVMInt32TypeInContext on the same context (semaphores,
 *       with timeouts). --fixed: T1 waits for T0's call to return first.
 *   race_first
 *       The same race without the hand-off first: still reported, but the
 *       owner's stack was not recorded (the context had one user so far).
 *   race_late [CALLS]
 *       The race of `race`, but T0 makes CALLS (300) calls on the context
 *       between the hand-off and its parse: the runtime records the stacks
 *       of the first 256 claims after a hand-off only, so the owner's stack
 *       was not recorded either.
 *   race_nested
 *       The race of `race`, but the owner's diagnostic handler first parses
 *       the garbage again in a second context, and that context's handler
 *       blocks: the race's context is held by the owner's outer call, which
 *       a callback interrupted.
 *   owner_exited [ROUNDS]
 *       A thread makes a context and a module and exits; the main thread
 *       then uses and disposes them (the context's owner is gone: a
 *       hand-off, not a race), ROUNDS (50) times, each worker reusing the
 *       last one's stack. Correct code: must exit 0 with nothing from ownsan.
 *   engine_dispose
 *       MCJIT engine on a module, LLVMDisposeExecutionEngine (which frees
 *       the module), its memory reused by malloc, then LLVMContextDispose.
 *       Correct code: must exit 0 with nothing from ownsan.
 *   cross_fn
 *       Seeded cross-context use: LLVMAddFunction into a module of a private
 *       context with a function type of the global context (LLVMInt32Type).
 *       --fixed: the type comes from the private context.
 *   cross_add
 *       Seeded cross-context use: LLVMBuildAdd of a parameter (private
 *       context) and LLVMConstInt(LLVMInt32Type(), ...) (global context).
 *   cross_shuffle
 *       Seeded cross-context use: LLVMBuildShuffleVector of a parameter
 *       (private context) and a zero vector of the global context. The
 *       mask always comes from a third context, as llvm-c-test --echo
 *       builds its masks in another context: LLVM only reads its integers
 *       (spec data_only). --fixed: the zero vector comes from the private
 *       context; the mask also goes to LLVMConstShuffleVector (and a type
 *       of the mask's context to LLVMGetCastOpcode, LLVM 15 on), then the
 *       mask's context is disposed and the module verified and printed:
 *       nothing of that context is left in it. Must exit 0 with nothing
 *       from ownsan.
 *   handoff [ROUNDS]
 *       One context handed back and forth between two threads ROUNDS (200)
 *       times with semaphores: each side builds into the same module in
 *       turn. Must exit 0 with nothing from ownsan.
 *   small_stack [KIB]
 *       A thread created with a KIB (64) KiB stack builds, changes and
 *       disposes a few modules in its own context. glibc takes a thread's
 *       static TLS (ownsan's per-thread caches among it) out of the stack
 *       it asked for: the thread must still start and have room. Must exit
 *       0 with nothing from ownsan.
 *
 * The handles a report should name are printed on stderr as
 * "threads: ROLE = 0x..."; stdout is the same with and without ownsan.
 * Every wait has a timeout and a watchdog (alarm) ends a stuck run with
 * exit status 124 and a line on stderr, so a deadlock is a failure, never a
 * hang. Each step that a report's stacks must name is its own noinline
 * function.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REL_NAME "threads"
#include "rel_plumbing.h"

#define STEP __attribute__((noinline))

static int g_fixed;

/*===-- Plumbing ----------------------------------------------------------===*/

static void note_handle(const char *role, const void *h) {
  fprintf(stderr, "threads: %s = %p\n", role, h);
}

/*===-- stress ------------------------------------------------------------===*/

static LLVMExecutionEngineRef g_ee;
static LLVMValueRef g_answer_fn;
static atomic_int g_engine_calls;

/* The shared engine: `i32 answer()` returning 42, in the main thread's
 * context, compiled once before the workers start. */
static LLVMContextRef make_engine(void) {
  LLVMLinkInMCJIT();
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
    die("no native target");
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("engine", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn =
      LLVMAddFunction(m, "answer", LLVMFunctionType(i32, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRet(b, LLVMConstInt(i32, 42, 0));
  LLVMDisposeBuilder(b);
  struct LLVMMCJITCompilerOptions opts;
  LLVMInitializeMCJITCompilerOptions(&opts, sizeof opts);
  char *err = NULL;
  if (LLVMCreateMCJITCompilerForModule(&g_ee, m, &opts, sizeof opts, &err)) {
    fprintf(stderr, "threads: MCJIT: %s\n", err ? err : "?");
    die("cannot create the engine");
  }
  g_answer_fn = fn;
  if (LLVMGetFunctionAddress(g_ee, "answer") == 0)
    die("answer() not compiled");
  return ctx;
}

STEP static void use_engine(void) {
  uint64_t addr = LLVMGetFunctionAddress(g_ee, "answer");
  if (!addr || ((int (*)(void))(uintptr_t)addr)() != 42)
    die("LLVMGetFunctionAddress(answer)() != 42");
  LLVMGenericValueRef gv = LLVMRunFunction(g_ee, g_answer_fn, 0, NULL);
  if (LLVMGenericValueToInt(gv, 1) != 42)
    die("LLVMRunFunction(answer) != 42");
  LLVMDisposeGenericValue(gv);
  atomic_fetch_add(&g_engine_calls, 1);
}

/* One create/use/dispose cycle in `ctx`. */
STEP static void one_cycle(LLVMContextRef ctx, int t, int it) {
  char name[48];
  snprintf(name, sizeof name, "m%d_%d", t, it);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef params[2] = {i32, i32};
  LLVMTypeRef fty = LLVMFunctionType(i32, params, 2, 0);
  LLVMValueRef f = LLVMAddFunction(m, "f", fty);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBasicBlockRef exit_bb = LLVMAppendBasicBlockInContext(ctx, f, "exit");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef x = LLVMGetParam(f, 0), y = LLVMGetParam(f, 1);
  LLVMSetValueName2(x, "x", 1);
  LLVMValueRef s = LLVMBuildAdd(b, x, y, "s");
  LLVMValueRef tmp = LLVMBuildMul(b, s, LLVMConstInt(i32, 3, 0), "tmp");
  LLVMInstructionEraseFromParent(tmp);
  LLVMValueRef d = LLVMBuildSub(b, s, x, "d");
  LLVMInstructionRemoveFromParent(d);
  LLVMInsertIntoBuilder(b, d);
  LLVMBuildBr(b, exit_bb);
  LLVMPositionBuilderAtEnd(b, exit_bb);
  LLVMBuildRet(b, s);
  /* use */
  size_t len = 0;
  const char *sn = LLVMGetValueName2(s, &len);
  if (len != 1 || sn[0] != 's')
    die("value name");
  if (LLVMCountBasicBlocks(f) != 2)
    die("block count");
  int n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i;
       i = LLVMGetNextInstruction(i))
    ++n;
  if (n != 3)
    die("instruction count");
  if (it % 8 == 0) {
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
      die(msg ? msg : "verify");
    LLVMDisposeMessage(msg);
  }
  if (it % 3 == 0) {
    LLVMValueRef g = LLVMAddFunction(m, "g", fty);
    LLVMBasicBlockRef gb = LLVMAppendBasicBlockInContext(ctx, g, "gb");
    LLVMPositionBuilderAtEnd(b, gb);
    LLVMBuildRet(b, LLVMGetParam(g, 1));
    LLVMBasicBlockRef extra = LLVMAppendBasicBlockInContext(ctx, g, "dead");
    LLVMDeleteBasicBlock(extra);
    LLVMDeleteFunction(g);
  }
  /* memory buffers */
  if (it % 4 == 0) {
    LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m);
    LLVMModuleRef back = NULL;
    if (LLVMParseBitcodeInContext2(ctx, buf, &back))
      die("bitcode round trip");
    LLVMDisposeMemoryBuffer(buf);
    if (!LLVMGetNamedFunction(back, "f"))
      die("round-tripped module lacks f");
    LLVMDisposeModule(back);
  } else {
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(name, strlen(name), "copy");
    if (LLVMGetBufferSize(buf) != strlen(name))
      die("buffer size");
    LLVMDisposeMemoryBuffer(buf);
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
}

struct worker {
  pthread_t thread;
  int index;
  int iters;
  int use_engine;
  pthread_barrier_t *start;
};

static void *stress_worker(void *arg) {
  struct worker *w = arg;
  if (w->start)
    pthread_barrier_wait(w->start);
  LLVMContextRef ctx = LLVMContextCreate();
  for (int it = 0; it < w->iters; ++it) {
    if (it % 250 == 249) {
      LLVMContextDispose(ctx);
      ctx = LLVMContextCreate();
    }
    one_cycle(ctx, w->index, it);
    if (w->use_engine && it % 8 == 0)
      use_engine();
  }
  LLVMContextDispose(ctx);
  return NULL;
}

static int run_workers(int iters, int nthreads, int with_engine, int cold) {
  if (nthreads < 1 || nthreads > 64 || iters < 1)
    die("bad arguments");
  struct worker w[64];
  pthread_barrier_t start;
  if (cold)
    pthread_barrier_init(&start, NULL, nthreads);
  for (int i = 0; i < nthreads; ++i) {
    w[i] = (struct worker){.index = i,
                           .iters = iters,
                           .use_engine = with_engine,
                           .start = cold ? &start : NULL};
    if (pthread_create(&w[i].thread, NULL, stress_worker, &w[i]))
      die("pthread_create");
  }
  for (int i = 0; i < nthreads; ++i)
    pthread_join(w[i].thread, NULL);
  if (cold)
    pthread_barrier_destroy(&start);
  return 0;
}

static int mode_stress(int iters, int nthreads) {
  LLVMContextRef ctx = make_engine();
  run_workers(iters, nthreads, 1, 0);
  /* The main thread uses its context again after the workers. */
  use_engine();
  LLVMDisposeExecutionEngine(g_ee); /* frees the "engine" module */
  LLVMContextDispose(ctx);
  printf("stress: %d threads x %d cycles, %d engine calls: done\n", nthreads,
         iters, atomic_load(&g_engine_calls));
  return 0;
}

static int mode_cold(int iters, int nthreads) {
  run_workers(iters, nthreads, 0, 1);
  printf("cold: %d threads x %d cycles: done\n", nthreads, iters);
  return 0;
}

/*===-- race --------------------------------------------------------------===*/

static sem_t g_warm_done, g_owner_inside, g_owner_returned, g_intruder_done;
static LLVMContextRef g_race_ctx;
static int g_no_warmup;  /* race_first: no hand-off before the race */
static int g_late_calls; /* race_late: T0's calls after the hand-off */
/* race_nested: the owner waits inside a call on a second context that its
 * diagnostic handler made (the race's context is held by the outer call). */
static int g_nested;
static LLVMContextRef g_inner_ctx;
static LLVMMemoryBufferRef g_garbage;

STEP void race_owner_nested_parse(void) {
  printf("race: owner's handler calls LLVMParseBitcodeInContext2 on a "
         "second context\n");
  fflush(stdout);
  LLVMModuleRef m = NULL;
  LLVMParseBitcodeInContext2(g_inner_ctx, g_garbage, &m);
}

static void race_diagnostic_handler(LLVMDiagnosticInfoRef di, void *user) {
  char *desc = LLVMGetDiagInfoDescription(di);
  printf("race: diagnostic (severity %d) received\n",
         (int)LLVMGetDiagInfoSeverity(di));
  fflush(stdout);
  LLVMDisposeMessage(desc);
  if (g_nested && user == NULL) {
    /* The outer parse's handler: parse again, in the second context, whose
     * handler (user != NULL) does the waiting. */
    race_owner_nested_parse();
    return;
  }
  sem_post(&g_owner_inside);
  if (!g_fixed)
    /* Still inside LLVMParseBitcodeInContext2: hold the context until the
     * other thread has made its call on it. */
    wait_sem(&g_intruder_done, 20, "the intruder's call");
}

STEP void race_intruder_warmup(void) {
  /* The hand-off: a second thread uses the context once. */
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("warm", g_race_ctx);
  LLVMDisposeModule(m);
}

STEP void race_intruder_call(void) {
  printf("race: intruder calls LLVMInt32TypeInContext\n");
  fflush(stdout);
  LLVMTypeRef t = LLVMInt32TypeInContext(g_race_ctx);
  if (!t)
    printf("race: intruder's call was skipped\n");
}

static void *race_intruder(void *arg) {
  (void)arg;
  if (!g_no_warmup)
    race_intruder_warmup();
  sem_post(&g_warm_done);
  wait_sem(&g_owner_inside, 20, "the owner to be inside its call");
  if (g_fixed)
    wait_sem(&g_owner_returned, 20, "the owner's call to return");
  race_intruder_call();
  sem_post(&g_intruder_done);
  return NULL;
}

STEP LLVMBool race_owner_parse(LLVMMemoryBufferRef garbage,
                               LLVMModuleRef *out) {
  printf("race: owner calls LLVMParseBitcodeInContext2\n");
  fflush(stdout);
  return LLVMParseBitcodeInContext2(g_race_ctx, garbage, out);
}

static int mode_race(void) {
  sem_init(&g_warm_done, 0, 0);
  sem_init(&g_owner_inside, 0, 0);
  sem_init(&g_owner_returned, 0, 0);
  sem_init(&g_intruder_done, 0, 0);
  g_race_ctx = LLVMContextCreate();
  note_handle("context", g_race_ctx);
  LLVMContextSetDiagnosticHandler(g_race_ctx, race_diagnostic_handler, NULL);
  static const char junk[] = "this is not bitcode, not at all";
  LLVMMemoryBufferRef garbage = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      junk, sizeof junk - 1, "garbage");
  g_garbage = garbage;
  if (g_nested) {
    g_inner_ctx = LLVMContextCreate();
    LLVMContextSetDiagnosticHandler(g_inner_ctx, race_diagnostic_handler,
                                    &g_nested);
  }
  pthread_t t;
  if (pthread_create(&t, NULL, race_intruder, NULL))
    die("pthread_create");
  wait_sem(&g_warm_done, 20, "the hand-off");
  for (int i = 0; i < g_late_calls; ++i)
    LLVMInt32TypeInContext(g_race_ctx);
  LLVMModuleRef m = NULL;
  LLVMBool failed = race_owner_parse(garbage, &m);
  printf("race: parse %s\n", failed ? "failed as expected" : "succeeded?!");
  sem_post(&g_owner_returned);
  pthread_join(t, NULL);
  LLVMDisposeMemoryBuffer(garbage);
  if (g_inner_ctx)
    LLVMContextDispose(g_inner_ctx);
  LLVMContextDispose(g_race_ctx);
  printf("race: done\n");
  return failed ? 0 : 1;
}

/*===-- engine_dispose ----------------------------------------------------===*/

/* An execution engine owns the module it was created for and frees it in
 * LLVMDisposeExecutionEngine. The context is disposed afterwards, once the
 * module's memory has been reused by malloc (not operator new). Correct
 * without ownsan; nothing may be reported and nothing may crash. */
static int mode_engine_dispose(void) {
  LLVMContextRef ctx = make_engine();
  use_engine();
  LLVMDisposeExecutionEngine(g_ee);
  enum { kBlocks = 20000 };
  static void *blocks[kBlocks];
  for (int i = 0; i < kBlocks; ++i) {
    size_t n = 16 + (size_t)(i % 128) * 8;
    blocks[i] = malloc(n);
    memset(blocks[i], 0x41, n);
  }
  LLVMContextDispose(ctx);
  for (int i = 0; i < kBlocks; ++i)
    free(blocks[i]);
  printf("engine_dispose: done\n");
  return 0;
}

/*===-- cross-context -----------------------------------------------------===*/

STEP LLVMTypeRef cross_make_fn_type(LLVMContextRef ctx) {
  LLVMTypeRef ret = g_fixed ? LLVMInt32TypeInContext(ctx) : LLVMInt32Type();
  return LLVMFunctionType(ret, NULL, 0, 0);
}

STEP LLVMValueRef cross_add_function(LLVMModuleRef m, LLVMTypeRef fty) {
  printf("cross_fn: LLVMAddFunction\n");
  fflush(stdout);
  return LLVMAddFunction(m, "f", fty);
}

static int mode_cross_fn(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  note_handle("context", ctx);
  note_handle("global", LLVMGetGlobalContext());
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("private", ctx);
  LLVMTypeRef fty = cross_make_fn_type(ctx);
  note_handle("subject", fty);
  LLVMValueRef f = cross_add_function(m, fty);
  printf("cross_fn: function %s\n", f ? "added" : "not added");
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  printf("cross_fn: done\n");
  return 0;
}

STEP LLVMValueRef cross_make_constant(LLVMContextRef ctx) {
  LLVMTypeRef t = g_fixed ? LLVMInt32TypeInContext(ctx) : LLVMInt32Type();
  return LLVMConstInt(t, 1, 0);
}

STEP LLVMValueRef cross_build_add(LLVMBuilderRef b, LLVMValueRef x,
                                  LLVMValueRef one) {
  printf("cross_add: LLVMBuildAdd\n");
  fflush(stdout);
  return LLVMBuildAdd(b, x, one, "sum");
}

static int mode_cross_add(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  note_handle("context", ctx);
  note_handle("global", LLVMGetGlobalContext());
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("private", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef one = cross_make_constant(ctx);
  note_handle("subject", one);
  LLVMValueRef sum = cross_build_add(b, LLVMGetParam(f, 0), one);
  if (sum)
    LLVMBuildRet(b, sum);
  printf("cross_add: %s\n", sum ? "built" : "not built");
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  printf("cross_add: done\n");
  return 0;
}

/*===-- cross_shuffle -----------------------------------------------------===*/

/* A mask made the way llvm-c-test --echo makes one: constants of a context
 * other than the module's (there the global one). */
STEP LLVMValueRef shuffle_make_mask(LLVMContextRef mask_ctx) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(mask_ctx);
  LLVMValueRef lanes[4] = {LLVMConstInt(i32, 3, 0), LLVMGetUndef(i32),
                           LLVMConstInt(i32, 5, 0), LLVMConstInt(i32, 0, 0)};
  return LLVMConstVector(lanes, 4);
}

STEP LLVMValueRef shuffle_make_operand(LLVMContextRef ctx) {
  LLVMTypeRef i32 = g_fixed ? LLVMInt32TypeInContext(ctx) : LLVMInt32Type();
  return LLVMConstNull(LLVMVectorType(i32, 4));
}

STEP LLVMValueRef shuffle_build(LLVMBuilderRef b, LLVMValueRef v1,
                                LLVMValueRef v2, LLVMValueRef mask) {
  printf("cross_shuffle: LLVMBuildShuffleVector\n");
  fflush(stdout);
  return LLVMBuildShuffleVector(b, v1, v2, mask, "shuffled");
}

static int mode_cross_shuffle(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  note_handle("context", ctx);
  note_handle("global", LLVMGetGlobalContext());
  LLVMContextRef mask_ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("private", ctx);
  LLVMTypeRef v4i32 = LLVMVectorType(LLVMInt32TypeInContext(ctx), 4);
  LLVMValueRef f =
      LLVMAddFunction(m, "shuffle", LLVMFunctionType(v4i32, &v4i32, 1, 0));
  LLVMValueRef param = LLVMGetParam(f, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef mask = shuffle_make_mask(mask_ctx);
  LLVMValueRef other = shuffle_make_operand(ctx);
  note_handle("subject", other);
  LLVMValueRef shuffled = shuffle_build(b, param, other, mask);
  printf("cross_shuffle: %s\n", shuffled ? "built" : "not built");
  LLVMValueRef folded = LLVMConstShuffleVector(LLVMConstAllOnes(v4i32),
                                               LLVMConstNull(v4i32), mask);
  LLVMBuildRet(b, LLVMBuildAdd(b, shuffled ? shuffled : param, folded, "sum"));
#if LLVM_VERSION_MAJOR >= 15
  LLVMTypeRef v4i64 = LLVMVectorType(LLVMInt64TypeInContext(mask_ctx), 4);
  printf("cross_shuffle: cast opcode %d\n",
         (int)LLVMGetCastOpcode(param, 0, v4i64, 0));
#endif
  LLVMDisposeBuilder(b);
  LLVMContextDispose(mask_ctx);
  char *error = NULL;
  LLVMBool broken = LLVMVerifyModule(m, LLVMReturnStatusAction, &error);
  printf("cross_shuffle: module %s\n", broken ? "broken" : "verified");
  LLVMDisposeMessage(error);
  char *text = LLVMPrintModuleToString(m);
  fputs(text, stdout);
  LLVMDisposeMessage(text);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  printf("cross_shuffle: done\n");
  return 0;
}

/*===-- handoff -----------------------------------------------------------===*/

static sem_t g_to_worker, g_to_main;
static LLVMContextRef g_ho_ctx;
static LLVMModuleRef g_ho_mod;
static LLVMValueRef g_ho_fn;
static int g_ho_rounds;

/* Worker's turn: append a block with an instruction and a return. */
static void *handoff_worker(void *arg) {
  (void)arg;
  for (int r = 0; r < g_ho_rounds; ++r) {
    wait_sem(&g_to_worker, 30, "the main thread's turn to end");
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g_ho_ctx);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(g_ho_ctx);
    LLVMBasicBlockRef last = LLVMGetLastBasicBlock(g_ho_fn);
    LLVMPositionBuilderAtEnd(b, last);
    LLVMValueRef v =
        LLVMBuildAdd(b, LLVMGetParam(g_ho_fn, 0), LLVMConstInt(i32, r, 0), "w");
    LLVMBuildRet(b, v);
    LLVMDisposeBuilder(b);
    sem_post(&g_to_main);
  }
  return NULL;
}

/*===-- small_stack -------------------------------------------------------===*/

STEP static void small_stack_cycle(LLVMContextRef ctx, int it) {
  char name[32];
  snprintf(name, sizeof name, "small%d", it);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef params[2] = {i32, i32};
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, params, 2, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef s = LLVMBuildAdd(b, LLVMGetParam(f, 0), LLVMGetParam(f, 1), "s");
  LLVMValueRef tmp = LLVMBuildMul(b, s, LLVMConstInt(i32, 3, 0), "tmp");
  LLVMInstructionEraseFromParent(tmp);
  LLVMBuildRet(b, s);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
}

static void *small_stack_worker(void *arg) {
  (void)arg;
  LLVMContextRef ctx = LLVMContextCreate();
  for (int it = 0; it < 50; ++it)
    small_stack_cycle(ctx, it);
  LLVMContextDispose(ctx);
  return NULL;
}

static int mode_small_stack(int kib) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, (size_t)kib * 1024))
    die("pthread_attr_setstacksize");
  pthread_t t;
  int err = pthread_create(&t, &attr, small_stack_worker, NULL);
  pthread_attr_destroy(&attr);
  if (err) {
    printf("small_stack: pthread_create with a %d KiB stack failed: %s\n", kib,
           strerror(err));
    return 1;
  }
  pthread_join(t, NULL);
  printf("small_stack: a thread with a %d KiB stack ran 50 cycles\n", kib);
  return 0;
}

/*===-- owner_exited ----------------------------------------------------===*/

static LLVMContextRef g_oe_ctx;
static LLVMModuleRef g_oe_mod;

static void *owner_exited_worker(void *arg) {
  (void)arg;
  g_oe_ctx = LLVMContextCreate();
  g_oe_mod = LLVMModuleCreateWithNameInContext("made_by_worker", g_oe_ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g_oe_ctx);
  LLVMAddFunction(g_oe_mod, "f", LLVMFunctionType(i32, NULL, 0, 0));
  return NULL;
}

static int mode_owner_exited(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    pthread_t t;
    if (pthread_create(&t, NULL, owner_exited_worker, NULL))
      die("pthread_create");
    pthread_join(t, NULL);
    LLVMValueRef f = LLVMGetNamedFunction(g_oe_mod, "f");
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g_oe_ctx);
    printf("owner_exited: round %d: %s, i64 is %u bits\n", r,
           f ? "f found" : "no f", LLVMGetIntTypeWidth(i64));
    LLVMDisposeModule(g_oe_mod);
    LLVMContextDispose(g_oe_ctx);
  }
  return 0;
}

static int mode_handoff(int rounds) {
  g_ho_rounds = rounds;
  sem_init(&g_to_worker, 0, 0);
  sem_init(&g_to_main, 0, 0);
  g_ho_ctx = LLVMContextCreate();
  g_ho_mod = LLVMModuleCreateWithNameInContext("handoff", g_ho_ctx);
  pthread_t t;
  if (pthread_create(&t, NULL, handoff_worker, NULL))
    die("pthread_create");
  for (int r = 0; r < rounds; ++r) {
    /* Main's turn: a new function with an entry block; the worker
     * finishes it. */
    char name[32];
    snprintf(name, sizeof name, "f%d", r);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g_ho_ctx);
    g_ho_fn =
        LLVMAddFunction(g_ho_mod, name, LLVMFunctionType(i32, &i32, 1, 0));
    LLVMAppendBasicBlockInContext(g_ho_ctx, g_ho_fn, "entry");
    sem_post(&g_to_worker);
    wait_sem(&g_to_main, 30, "the worker's turn to end");
    if (r % 50 == 0) {
      char *msg = NULL;
      if (LLVMVerifyModule(g_ho_mod, LLVMReturnStatusAction, &msg))
        die(msg ? msg : "verify");
      LLVMDisposeMessage(msg);
    }
  }
  pthread_join(t, NULL);
  int n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(g_ho_mod); f;
       f = LLVMGetNextFunction(f))
    ++n;
  LLVMDisposeModule(g_ho_mod);
  LLVMContextDispose(g_ho_ctx);
  printf("handoff: %d rounds, %d functions: done\n", rounds, n);
  return n == rounds ? 0 : 1;
}

/*===-- main --------------------------------------------------------------===*/

int main(int argc, char **argv) {
  int nargs = 0;
  const char *args[8] = {0};
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--fixed"))
      g_fixed = 1;
    else if (nargs < 8)
      args[nargs++] = argv[i];
  }
  if (nargs < 1) {
    fprintf(stderr, "usage: threads stress|cold|race|race_first|race_late|"
                    "race_nested|owner_exited|engine_dispose|cross_fn|cross_"
                    "add|cross_shuffle|handoff|"
                    "small_stack [ARGS] [--fixed]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = args[0];
  int a1 = nargs > 1 ? atoi(args[1]) : 0, a2 = nargs > 2 ? atoi(args[2]) : 0;
  /* Generous: sanitizers slow everything down; the drivers have their own,
   * longer timeouts. */
  watchdog(240);
  if (!strcmp(mode, "stress"))
    return mode_stress(a1 ? a1 : 2000, a2 ? a2 : 8);
  if (!strcmp(mode, "cold"))
    return mode_cold(a1 ? a1 : 200, a2 ? a2 : 8);
  if (!strcmp(mode, "race"))
    return mode_race();
  if (!strcmp(mode, "race_first")) {
    g_no_warmup = 1;
    return mode_race();
  }
  if (!strcmp(mode, "race_nested")) {
    g_nested = 1;
    return mode_race();
  }
  if (!strcmp(mode, "race_late")) {
    g_late_calls = a1 ? a1 : 300;
    return mode_race();
  }
  if (!strcmp(mode, "engine_dispose"))
    return mode_engine_dispose();
  if (!strcmp(mode, "cross_fn"))
    return mode_cross_fn();
  if (!strcmp(mode, "cross_add"))
    return mode_cross_add();
  if (!strcmp(mode, "cross_shuffle"))
    return mode_cross_shuffle();
  if (!strcmp(mode, "owner_exited"))
    return mode_owner_exited(a1 ? a1 : 50);
  if (!strcmp(mode, "handoff"))
    return mode_handoff(a1 ? a1 : 200);
  if (!strcmp(mode, "small_stack"))
    return mode_small_stack(a1 ? a1 : 64);
  fprintf(stderr, "threads: unknown mode %s\n", mode);
  return 2;
}
