/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ir_workload.c - IR-building workloads for ownsan's end-to-end benchmarks.
 *
 *   ir_workload modules N      build, verify and dispose N modules (a fresh
 *                              context every 50 modules); prints a checksum
 *   ir_workload live N KIND    keep N live tracked objects, KIND = inst
 *                              (LLVMBuildAdd) or const (LLVMConstInt), then
 *                              print "maxrss_kb=K" (getrusage peak RSS)
 *   ir_workload sites N        N create/dispose events (LLVMCreateBuilder...
 *                              + LLVMDisposeBuilder, 2 events each pair)
 *                              spread over kSites distinct call sites
 *   ir_workload churn N        create and free N objects in one process (a
 *                              long-running JIT's loop: a module with a
 *                              function, a block, an argument, 5 named
 *                              instructions and a ret, 10 objects, then its
 * dispose); print "maxrss_kb=K" ir_workload soak SECONDS   the churn loop for
 * SECONDS; print the resident set once a second ("rss_kb t=S K") ir_workload
 * threads N      N short threads one after the other, each creating and freeing
 * one object, after 1M objects churned (history and quarantine at their
 * bounds); print the resident set before and after the threads
 *   ir_workload depth D N      the churn loop for N objects at stack depth D
 *                              (D nested frames under it); print the time
 *                              per object ("ns_per_object=X")
 *
 * Every LLVM-C call goes through the normal symbols, so under `ownsan run`
 * each is wrapped. Built with frame pointers and without sibling calls so
 * that each call site keeps a distinct native stack.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* One module: F functions, each a counted loop with a few arithmetic
 * instructions, a phi pair and a conditional branch. */
static unsigned long build_module(LLVMContextRef ctx, int index) {
  enum { F = 20 };
  char name[64];
  snprintf(name, sizeof name, "module%d", index);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef params[2] = {i64, i64};
  LLVMTypeRef fty = LLVMFunctionType(i64, params, 2, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  unsigned long sum = 0;
  for (int f = 0; f < F; ++f) {
    char fname[32];
    snprintf(fname, sizeof fname, "f%d", f);
    LLVMValueRef fn = LLVMAddFunction(m, fname, fty);
    LLVMValueRef a = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, fn, "loop");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, fn, "exit");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef i = LLVMBuildPhi(b, i64, "i");
    LLVMValueRef acc = LLVMBuildPhi(b, i64, "acc");
    LLVMValueRef t1 = LLVMBuildMul(b, i, a, "t1");
    LLVMValueRef t2 = LLVMBuildXor(b, t1, LLVMConstInt(i64, f + 1, 0), "t2");
    LLVMValueRef t3 = LLVMBuildAdd(b, acc, t2, "t3");
    LLVMValueRef t4 = LLVMBuildLShr(b, t3, LLVMConstInt(i64, 3, 0), "t4");
    LLVMValueRef acc2 = LLVMBuildSub(b, t3, t4, "acc2");
    LLVMValueRef i2 = LLVMBuildAdd(b, i, LLVMConstInt(i64, 1, 0), "i2");
    LLVMValueRef c = LLVMBuildICmp(b, LLVMIntSLT, i2, n, "c");
    LLVMBuildCondBr(b, c, loop, exit);
    LLVMPositionBuilderAtEnd(b, exit);
    LLVMBuildRet(b, acc2);
    LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
    LLVMValueRef iv[2] = {zero, i2};
    LLVMValueRef accv[2] = {zero, acc2};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(i, iv, from, 2);
    LLVMAddIncoming(acc, accv, from, 2);
    sum += LLVMCountBasicBlocks(fn);
  }
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    fprintf(stderr, "ir_workload: invalid module: %s\n", msg);
    exit(1);
  }
  LLVMDisposeMessage(msg);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in))
        sum += (unsigned long)LLVMGetInstructionOpcode(in);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  return sum;
}

static int run_modules(long n) {
  unsigned long sum = 0;
  LLVMContextRef ctx = NULL;
  for (long i = 0; i < n; ++i) {
    if (i % 50 == 0) {
      if (ctx)
        LLVMContextDispose(ctx);
      ctx = LLVMContextCreate();
    }
    sum += build_module(ctx, (int)i);
  }
  LLVMContextDispose(ctx);
  printf("modules=%ld checksum=%lu\n", n, sum);
  return 0;
}

static long maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static int run_live(long n, const char *kind) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  volatile unsigned long sink = 0;
  if (strcmp(kind, "inst") == 0) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("live", ctx);
    LLVMTypeRef params[2] = {i64, i64};
    LLVMValueRef fn =
        LLVMAddFunction(m, "f", LLVMFunctionType(i64, params, 2, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "e"));
    LLVMValueRef x = LLVMGetParam(fn, 0), y = LLVMGetParam(fn, 1);
    for (long i = 0; i < n; ++i)
      sink += (unsigned long)LLVMBuildAdd(b, x, y, "");
  } else if (strcmp(kind, "const") == 0) {
    for (long i = 0; i < n; ++i)
      sink += (unsigned long)LLVMConstInt(i64, (unsigned long long)i, 0);
  } else {
    fprintf(stderr, "ir_workload: unknown kind %s\n", kind);
    return 2;
  }
  printf("objects=%ld kind=%s maxrss_kb=%ld\n", n, kind, maxrss_kb());
  fflush(stdout);
  /* Exit without freeing: only the peak matters. */
  return sink == 1 ? 3 : 0;
}

/* kSites distinct call sites, each one create + one dispose event. */
#define SITE(k)                                                                \
  static __attribute__((noinline)) void site_##k(LLVMContextRef c) {           \
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);                          \
    LLVMDisposeBuilder(b);                                                     \
    __asm__ volatile("" ::: "memory");                                         \
  }
/* (By hand: lines of macro calls.) */
/* clang-format off */
#define SITE10(p)                                                              \
  SITE(p##0) SITE(p##1) SITE(p##2) SITE(p##3) SITE(p##4) SITE(p##5)            \
      SITE(p##6) SITE(p##7) SITE(p##8) SITE(p##9)
SITE10(1) SITE10(2) SITE10(3) SITE10(4) SITE10(5) SITE10(6) SITE10(7)
    SITE10(8) SITE10(9) SITE10(10) SITE10(11) SITE10(12) SITE10(13)
        SITE10(14) SITE10(15) SITE10(16) SITE10(17) SITE10(18) SITE10(19)
            SITE10(20)
#define REF10(p)                                                               \
  site_##p##0, site_##p##1, site_##p##2, site_##p##3, site_##p##4,             \
      site_##p##5, site_##p##6, site_##p##7, site_##p##8, site_##p##9
static void (*const kSiteFns[])(LLVMContextRef) = {
    REF10(1),  REF10(2),  REF10(3),  REF10(4),  REF10(5),
    REF10(6),  REF10(7),  REF10(8),  REF10(9),  REF10(10),
    REF10(11), REF10(12), REF10(13), REF10(14), REF10(15),
    REF10(16), REF10(17), REF10(18), REF10(19), REF10(20)};
/* clang-format on */
enum { kSites = sizeof kSiteFns / sizeof kSiteFns[0] };

static int run_sites(long events) {
  LLVMContextRef ctx = LLVMContextCreate();
  long pairs = events / 2;
  long rss_before = maxrss_kb();
  for (long i = 0; i < pairs; ++i)
    kSiteFns[i % kSites](ctx);
  printf("events=%ld sites=%d maxrss_kb_before=%ld maxrss_kb=%ld\n", pairs * 2,
         (int)kSites, rss_before, maxrss_kb());
  fflush(stdout);
  LLVMContextDispose(ctx);
  return 0;
}

/* One turn of the churn loop: 10 objects created, then freed. */
enum { kChurnObjects = 10 };
static void churn_once(LLVMContextRef ctx, LLVMTypeRef fty, LLVMBuilderRef b,
                       LLVMValueRef one) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("query", ctx);
  LLVMValueRef fn = LLVMAddFunction(m, "compiled_query", fty);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef v = LLVMGetParam(fn, 0);
  for (int i = 0; i < 5; ++i)
    v = LLVMBuildAdd(b, v, one, "partial_sum");
  LLVMBuildRet(b, v);
  LLVMClearInsertionPosition(b);
  LLVMDisposeModule(m);
}

static long rss_kb_now(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* objects <= 0: run for `seconds`, sampling the resident set. */
static int run_churn(long objects, double seconds) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i64, &i64, 1, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  long done = 0;
  if (objects > 0) {
    for (; done < objects; done += kChurnObjects)
      churn_once(ctx, fty, b, one);
  } else {
    double start = now_s(), next = start + 1;
    for (int t = 1;;) {
      for (int i = 0; i < 64; ++i, done += kChurnObjects)
        churn_once(ctx, fty, b, one);
      double now = now_s();
      if (now >= next) {
        printf("rss_kb t=%d %ld\n", t++, rss_kb_now());
        fflush(stdout);
        next += 1;
        if (now - start >= seconds)
          break;
      }
    }
  }
  printf("objects=%ld maxrss_kb=%ld\n", done, maxrss_kb());
  fflush(stdout);
  LLVMDisposeBuilder(b);
  LLVMContextDispose(ctx);
  return 0;
}

/* The churn loop at stack depth `depth` (issue 22: the cost of an object
 * must not grow with the stack under it, as a database's deep recursion
 * did); prints the time per object. */
static int churn_timed(long objects) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i64, &i64, 1, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  double start = now_s();
  long done = 0;
  for (; done < objects; done += kChurnObjects)
    churn_once(ctx, fty, b, one);
  double elapsed = now_s() - start;
  LLVMDisposeBuilder(b);
  LLVMContextDispose(ctx);
  printf("objects=%ld ns_per_object=%.1f\n", done, elapsed * 1e9 / done);
  fflush(stdout);
  return 0;
}

/* Recursion that keeps its frames (a volatile local and work after the
 * call: no sibling call). */
__attribute__((noinline)) static int at_depth(long depth, long objects) {
  volatile long frame = depth;
  if (depth <= 1)
    return churn_timed(objects);
  int rc = at_depth(depth - 1, objects);
  return rc + (int)(frame - depth);
}

static void *short_thread(void *arg) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext((LLVMContextRef)arg);
  LLVMDisposeBuilder(b);
  return NULL;
}

static int run_threads(long n) {
  LLVMContextRef ctx = LLVMContextCreate();
  /* First what the run's objects cost, whichever thread makes them: 1M
   * objects churned fill the history and the quarantine to their bounds.
   * What the threads add after that is their own. */
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i64, &i64, 1, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  for (long done = 0; done < 1000000; done += kChurnObjects)
    churn_once(ctx, fty, b, one);
  LLVMDisposeBuilder(b);
  pthread_t t;
  /* One thread first: what any first thread maps (the allocator's arena). */
  pthread_create(&t, NULL, short_thread, ctx);
  pthread_join(t, NULL);
  long before = rss_kb_now();
  for (long i = 0; i < n; ++i) {
    if (pthread_create(&t, NULL, short_thread, ctx) != 0)
      return 3;
    pthread_join(t, NULL);
  }
  printf("threads=%ld rss_kb_before=%ld rss_kb_after=%ld\n", n, before,
         rss_kb_now());
  fflush(stdout);
  LLVMContextDispose(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "modules") == 0)
    return run_modules(atol(argv[2]));
  if (argc >= 4 && strcmp(argv[1], "live") == 0)
    return run_live(atol(argv[2]), argv[3]);
  if (argc >= 3 && strcmp(argv[1], "sites") == 0)
    return run_sites(atol(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "churn") == 0)
    return run_churn(atol(argv[2]), 0);
  if (argc >= 3 && strcmp(argv[1], "soak") == 0)
    return run_churn(0, atof(argv[2]));
  if (argc >= 4 && strcmp(argv[1], "depth") == 0)
    return at_depth(atol(argv[2]), atol(argv[3]));
  if (argc >= 3 && strcmp(argv[1], "threads") == 0)
    return run_threads(atol(argv[2]));
  fprintf(stderr,
          "usage: ir_workload modules N | live N inst|const | "
          "sites EVENTS | churn N | soak SECONDS | threads N | depth D N\n");
  return 2;
}
