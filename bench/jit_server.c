/*===- jit_server.c - A JIT server's day: build, compile, run, dispose ----===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Issue 22's workload (d): one long-running process that, N times, builds a
 * small module (4 functions of 26 instructions each), compiles it, calls
 * it and disposes everything, as a database compiling queries or a
 * graphics driver compiling shaders does all day.
 *
 *   jit_server lljit|mcjit THREADS N [WARMUP]
 *
 * THREADS threads share the N iterations, each with its own contexts and
 * engine. lljit: one LLJIT per thread, made once; each iteration adds its
 * module (a new ThreadSafeContext) under a fresh resource tracker of the
 * main JITDylib, looks the 4 functions up, calls them, and removes the
 * tracker (the code and the module go). mcjit: each iteration makes a
 * context, a module and an MCJIT engine over it, calls the functions, and
 * disposes the engine (with the module) and the context.
 *
 * WARMUP iterations more (shared likewise) run first, untimed: a server's
 * steady state, once what the process holds back (ownsan's quarantine)
 * is full, is measured after them.
 *
 * Prints "jit=... threads=T iterations=N checksum=C us_per_iteration=U
 * cpu_us_per_iteration=P maxrss_kb=R" (U and P: the timed iterations'
 * wall and process CPU time): the checksum is the same with and without
 * ownsan.
 *
 *===----------------------------------------------------------------------===*/

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h> /* LLVM_VERSION_MAJOR */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { FUNCTIONS = 4, STEPS = 8 };

typedef uint64_t (*Fn)(uint64_t);

static void die(const char *what, char *msg) {
  fprintf(stderr, "jit_server: %s: %s\n", what, msg ? msg : "(no message)");
  exit(1);
}

static void die_error(const char *what, LLVMErrorRef err) {
  die(what, LLVMGetErrorMessage(err));
}

/* f<k>(x): STEPS rounds of x = ((x * (2k+3)) ^ (k+r)) + (x >> 3), then ret:
 * 3 * STEPS + 2 = 26 instructions with the constants' uses. */
static LLVMModuleRef build_module(LLVMContextRef ctx, long iteration) {
  char name[32];
  snprintf(name, sizeof name, "query%ld", iteration);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i64, &i64, 1, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (int k = 0; k < FUNCTIONS; ++k) {
    char fname[8];
    snprintf(fname, sizeof fname, "f%d", k);
    LLVMValueRef fn = LLVMAddFunction(m, fname, fty);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "e"));
    LLVMValueRef x = LLVMGetParam(fn, 0);
    for (int r = 0; r < STEPS; ++r) {
      LLVMValueRef mul =
          LLVMBuildMul(b, x, LLVMConstInt(i64, 2 * k + 3, 0), "m");
      LLVMValueRef mix = LLVMBuildXor(b, mul, LLVMConstInt(i64, k + r, 0), "x");
      LLVMValueRef shr = LLVMBuildLShr(b, x, LLVMConstInt(i64, 3, 0), "s");
      x = LLVMBuildAdd(b, mix, shr, "a");
    }
    LLVMBuildRet(b, x);
  }
  LLVMDisposeBuilder(b);
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    die("invalid module", msg);
  LLVMDisposeMessage(msg);
  return m;
}

/* What the compiled functions return, computed here. */
static uint64_t expected(uint64_t arg) {
  uint64_t sum = 0;
  for (int k = 0; k < FUNCTIONS; ++k) {
    uint64_t x = arg;
    for (int r = 0; r < STEPS; ++r)
      x = ((x * (uint64_t)(2 * k + 3)) ^ (uint64_t)(k + r)) + (x >> 3);
    sum += x;
  }
  return sum;
}

struct worker {
  int mcjit;
  long first, count, warmup;
  pthread_barrier_t *timed; /* passed when the warm-up is done, or null */
  uint64_t checksum;
};

/* Iteration j of a worker: the warm-up's are j < 0 (the clock starts at
 * j == 0, once every worker is there); returns the module's index. */
static long begin_iteration(struct worker *w, long j) {
  if (j == 0 && w->timed)
    pthread_barrier_wait(w->timed);
  return w->first + j;
}

static uint64_t call_all(Fn fns[FUNCTIONS], long iteration) {
  uint64_t sum = 0;
  for (int k = 0; k < FUNCTIONS; ++k)
    sum += fns[k]((uint64_t)iteration);
  if (sum != expected((uint64_t)iteration)) {
    fprintf(stderr, "jit_server: wrong result at iteration %ld\n", iteration);
    exit(1);
  }
  return sum;
}

static void run_mcjit(struct worker *w) {
  for (long j = -w->warmup; j < w->count; ++j) {
    long i = begin_iteration(w, j);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build_module(ctx, i);
    struct LLVMMCJITCompilerOptions opts;
    LLVMInitializeMCJITCompilerOptions(&opts, sizeof opts);
    LLVMExecutionEngineRef ee;
    char *msg = NULL;
    if (LLVMCreateMCJITCompilerForModule(&ee, m, &opts, sizeof opts, &msg))
      die("LLVMCreateMCJITCompilerForModule", msg);
    Fn fns[FUNCTIONS];
    for (int k = 0; k < FUNCTIONS; ++k) {
      char fname[8];
      snprintf(fname, sizeof fname, "f%d", k);
      fns[k] = (Fn)(uintptr_t)LLVMGetFunctionAddress(ee, fname);
      if (!fns[k])
        die("LLVMGetFunctionAddress", fname);
    }
    uint64_t sum = call_all(fns, i);
    if (j >= 0)
      w->checksum += sum;
    LLVMDisposeExecutionEngine(ee); /* (with the module) */
    LLVMContextDispose(ctx);
  }
}

static void run_lljit(struct worker *w) {
  LLVMOrcLLJITRef jit;
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, NULL);
  if (err)
    die_error("LLVMOrcCreateLLJIT", err);
  LLVMOrcJITDylibRef main_jd = LLVMOrcLLJITGetMainJITDylib(jit);
  for (long j = -w->warmup; j < w->count; ++j) {
    long i = begin_iteration(w, j);
#if LLVM_VERSION_MAJOR >= 21
    /* (A ThreadSafeContext no longer lends its context: the module is
     * built in a context the new ThreadSafeContext then takes over.) */
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build_module(ctx, i);
    LLVMOrcThreadSafeContextRef tsc =
        LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
#else
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMModuleRef m = build_module(LLVMOrcThreadSafeContextGetContext(tsc), i);
#endif
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
    LLVMOrcResourceTrackerRef rt =
        LLVMOrcJITDylibCreateResourceTracker(main_jd);
    if ((err = LLVMOrcLLJITAddLLVMIRModuleWithRT(jit, rt, tsm)))
      die_error("LLVMOrcLLJITAddLLVMIRModuleWithRT", err);
    Fn fns[FUNCTIONS];
    for (int k = 0; k < FUNCTIONS; ++k) {
      char fname[8];
      snprintf(fname, sizeof fname, "f%d", k);
      LLVMOrcExecutorAddress addr;
      if ((err = LLVMOrcLLJITLookup(jit, &addr, fname)))
        die_error("LLVMOrcLLJITLookup", err);
      fns[k] = (Fn)(uintptr_t)addr;
    }
    uint64_t sum = call_all(fns, i);
    if (j >= 0)
      w->checksum += sum;
    if ((err = LLVMOrcResourceTrackerRemove(rt)))
      die_error("LLVMOrcResourceTrackerRemove", err);
    LLVMOrcReleaseResourceTracker(rt);
    LLVMOrcDisposeThreadSafeContext(tsc); /* (the module holds a ref too) */
  }
  if ((err = LLVMOrcDisposeLLJIT(jit)))
    die_error("LLVMOrcDisposeLLJIT", err);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  if (w->mcjit)
    run_mcjit(w);
  else
    run_lljit(w);
  return NULL;
}

int main(int argc, char **argv) {
  if ((argc != 4 && argc != 5) ||
      (strcmp(argv[1], "lljit") && strcmp(argv[1], "mcjit"))) {
    fprintf(stderr, "usage: %s lljit|mcjit THREADS N [WARMUP]\n", argv[0]);
    return 2;
  }
  int mcjit = strcmp(argv[1], "mcjit") == 0;
  int threads = atoi(argv[2]);
  long n = atol(argv[3]);
  long warmup = argc == 5 ? atol(argv[4]) : 0;
  /* (Every worker has a timed iteration, so each reaches the barrier.) */
  if (threads < 1 || threads > 64 || n < threads || warmup < 0) {
    fprintf(stderr, "%s: THREADS in 1..64, N >= THREADS, WARMUP >= 0\n",
            argv[0]);
    return 2;
  }
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  if (mcjit)
    LLVMLinkInMCJIT();
  struct timespec t0, t1;
  struct rusage ru0, ru;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  getrusage(RUSAGE_SELF, &ru0);
  pthread_barrier_t timed;
  if (warmup)
    pthread_barrier_init(&timed, NULL, (unsigned)threads + 1);
  struct worker workers[64];
  pthread_t ids[64];
  for (int t = 0; t < threads; ++t) {
    workers[t].mcjit = mcjit;
    workers[t].first = n * t / threads;
    workers[t].count = n * (t + 1) / threads - workers[t].first;
    workers[t].warmup = warmup * (t + 1) / threads - warmup * t / threads;
    workers[t].timed = warmup ? &timed : NULL;
    workers[t].checksum = 0;
    if (pthread_create(&ids[t], NULL, worker_main, &workers[t]) != 0) {
      fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
      return 1;
    }
  }
  if (warmup) { /* the clock starts when every worker is done warming up */
    pthread_barrier_wait(&timed);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    getrusage(RUSAGE_SELF, &ru0);
  }
  uint64_t checksum = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    checksum += workers[t].checksum;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
               (double)(t1.tv_nsec - t0.tv_nsec)) /
              1e3 / (double)n;
  getrusage(RUSAGE_SELF, &ru);
  double cpu_us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec -
                           ru0.ru_utime.tv_sec - ru0.ru_stime.tv_sec) *
                      1e6 +
                  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec -
                           ru0.ru_utime.tv_usec - ru0.ru_stime.tv_usec);
  printf("jit=%s threads=%d iterations=%ld checksum=%llu us_per_iteration=%.1f"
         " cpu_us_per_iteration=%.1f maxrss_kb=%ld\n",
         argv[1], threads, n, (unsigned long long)checksum, us,
         cpu_us / (double)n, ru.ru_maxrss);
  return 0;
}
