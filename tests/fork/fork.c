/*===- fork.c - ownsan across fork() and exec() ---------------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: fork MODE [N]
 *
 *   bug [N]       Four threads keep creating, using and disposing modules in
 *                 their own contexts while the main thread forks N (4)
 *                 children one after the other (each fork right after a
 *                 burst of module creation and disposal on the forking
 *                 thread). Each child starts two
 *                 threads of its own that do the same work, joins them, then
 *                 makes one seeded use-after-free: LLVMGetValueName2 on a
 *                 function of a module it disposed (child_make, child_dispose,
 *                 child_use). The parent waits for each child (with a
 *                 timeout: a child stuck on a lock inherited from the parent
 *                 is killed and reported as "timeout") and prints
 *                 "fork: child K pid P status S" (S: the raw wait status).
 *   clean [N]     The same children without the bug: each must exit 0.
 *   single        One child with the bug, forked by a single-threaded parent
 *                 (the smallest reproducer of a fork problem).
 *   from_thread [N]
 *                 Like bug, but the forks are made by one of the worker
 *                 threads, not by the main thread.
 *   claimed       A worker thread is inside an LLVM-C call on its context
 *                 (blocked in the context's diagnostic handler) when the
 *                 main thread forks. The child uses that same context: the
 *                 worker does not exist there, so no context-race may be
 *                 reported; then the seeded bug must be.
 *   leaks         For OWNSAN_OPTIONS=report_leaks=1. The parent makes a
 *                 context, a module "parent" and a builder, then forks two
 *                 children one after the other; both use the inherited
 *                 objects and leave them to the parent. Child 0 also makes a
 *                 module of its own (child_leaky_make) and never disposes
 *                 it ("fork: PID leaked = 0x..." on stderr); child 1 leaks
 *                 nothing. Both end with exit(0). The parent disposes
 *                 everything it made.
 *   from_handler  One child with the bug, forked inside the parent's SIGUSR1
 *                 handler (as PostgreSQL's postmaster starts its background
 *                 and parallel workers); the child never returns from the
 *                 handler. The parent has made LLVM-C calls before.
 *   bug_only      No fork: just the seeded use-after-free (for exec'ed and
 *                 spawned children).
 *   spawn PROG [ARGS...]
 *                 posix_spawn()s PROG while worker threads run, waits for it
 *                 and prints "spawn: child pid P status S".
 *
 * Each child prints "fork: child K ok" on stdout before its seeded bug. The
 * handles a report must name are printed on stderr as
 * "fork: PID subject = 0x..." (PID: the child's own pid).
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REL_NAME "fork"
#include "../threads/rel_plumbing.h"

#define STEP __attribute__((noinline))

extern char **environ;

/*===-- Work done by every thread, in the parent and in the children ------===*/

STEP static void some_work(LLVMContextRef ctx, int i) {
  char name[32];
  snprintf(name, sizeof name, "w%d", i);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef v = LLVMBuildAdd(b, LLVMGetParam(f, 0),
                                LLVMConstInt(i32, (unsigned)i, 0), "v");
  LLVMBuildRet(b, v);
  size_t len;
  if (!LLVMGetValueName2(v, &len) || len != 1)
    die("value name");
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(name, strlen(name), "buf");
  LLVMDisposeMemoryBuffer(buf);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
}

/* Right before each fork the forking thread does some LLVM work whose last
 * step frees an instruction: LLVMInstructionEraseFromParent on an `add`
 * (a 128-byte allocation with its two operands, in LLVM 14 and 19). With
 * OWNSAN_OPTIONS=quarantine_size_mb=0 (or once the quarantine is full, in
 * a long-running process) that memory goes straight back to malloc while
 * the runtime still remembers the freed instruction at that address, so the
 * next 128-byte allocation on this thread, the one around fork(), reuses
 * it. The context is disposed after the fork (unprime). */
static LLVMContextRef g_prime_ctx;

STEP static void prime_heap(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("prime", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f = LLVMAddFunction(m, "p", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "e"));
  LLVMValueRef x = LLVMGetParam(f, 0);
  LLVMValueRef last = LLVMBuildAdd(b, x, x, "last");
  LLVMBuildRet(b, x);
  LLVMDisposeBuilder(b);
  LLVMInstructionEraseFromParent(last);
  g_prime_ctx = ctx;
}

static void unprime(void) { LLVMContextDispose(g_prime_ctx); }

static atomic_int g_stop;

struct worker {
  pthread_t thread;
  int index;
  int forks; /* from_thread: this worker forks the children */
};

static int fork_children(int n, int with_bug);

static void *worker_main(void *arg) {
  struct worker *w = arg;
  LLVMContextRef ctx = LLVMContextCreate();
  int i = 0;
  if (w->forks) {
    fork_children(w->forks, 1);
    atomic_store(&g_stop, 1);
  }
  while (!atomic_load(&g_stop)) {
    some_work(ctx, i++);
    if (i % 100 == 0) {
      LLVMContextDispose(ctx);
      ctx = LLVMContextCreate();
    }
  }
  LLVMContextDispose(ctx);
  return NULL;
}

/* Children: short-lived work on fresh threads. */
static void *child_worker(void *arg) {
  (void)arg;
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 50; ++i)
    some_work(ctx, i);
  LLVMContextDispose(ctx);
  return NULL;
}

/*===-- The seeded bug ----------------------------------------------------===*/

STEP LLVMValueRef child_make(LLVMContextRef ctx, LLVMModuleRef *m) {
  *m = LLVMModuleCreateWithNameInContext("child", ctx);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  return LLVMAddFunction(*m, "victim", fty);
}

STEP void child_dispose(LLVMModuleRef m) { LLVMDisposeModule(m); }

STEP void child_use(LLVMValueRef f) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(f, &len);
  printf("fork: %d: name of a dead function: %.*s\n", (int)getpid(), (int)len,
         name ? name : "");
}

static void seeded_bug(LLVMContextRef ctx) {
  LLVMModuleRef m;
  LLVMValueRef f = child_make(ctx, &m);
  fprintf(stderr, "fork: %d subject = %p\n", (int)getpid(), (void *)f);
  fprintf(stderr, "fork: %d context = %p\n", (int)getpid(), (void *)ctx);
  child_dispose(m);
  child_use(f);
}

static void child_body(int k, int with_bug, LLVMContextRef inherited) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i)
    if (pthread_create(&t[i], NULL, child_worker, NULL))
      die("pthread_create in child");
  LLVMContextRef ctx = inherited ? inherited : LLVMContextCreate();
  for (int i = 0; i < 50; ++i)
    some_work(ctx, i);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  printf("fork: child %d ok\n", k);
  fflush(stdout);
  if (with_bug)
    seeded_bug(ctx);
  if (!inherited)
    LLVMContextDispose(ctx);
  fflush(NULL);
  _exit(0);
}

/* Waits for `pid` for at most `seconds`; kills it on timeout. */
static int wait_child(pid_t pid, int seconds, int *status) {
  for (int i = 0; i < seconds * 100; ++i) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid)
      return 1;
    if (r < 0 && errno != EINTR)
      die("waitpid");
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return 0;
}

static int fork_children(int n, int with_bug) {
  for (int k = 0; k < n; ++k) {
    usleep(20000); /* let the workers get going */
    prime_heap();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
      die("fork");
    if (pid == 0)
      child_body(k, with_bug, NULL);
    unprime();
    int status = 0;
    if (!wait_child(pid, 30, &status))
      printf("fork: child %d pid %d timeout\n", k, (int)pid);
    else
      printf("fork: child %d pid %d status %d\n", k, (int)pid, status);
  }
  return 0;
}

static void start_workers(struct worker *w, int n, int forker) {
  for (int i = 0; i < n; ++i) {
    w[i] = (struct worker){.index = i, .forks = i == 0 ? forker : 0};
    if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
      die("pthread_create");
  }
}

static void stop_workers(struct worker *w, int n) {
  atomic_store(&g_stop, 1);
  for (int i = 0; i < n; ++i)
    pthread_join(w[i].thread, NULL);
}

/*===-- from_handler ------------------------------------------------------===*/

static volatile sig_atomic_t g_handler_child = -1;

static void forking_handler(int sig) {
  (void)sig;
  pid_t pid = fork();
  if (pid == 0)
    child_body(0, 1, NULL); /* (never returns) */
  g_handler_child = pid;
}

static int mode_from_handler(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  some_work(ctx, 0);
  LLVMContextDispose(ctx);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forking_handler;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL))
    die("sigaction");
  fflush(NULL);
  raise(SIGUSR1);
  if (g_handler_child < 0)
    die("fork in the handler");
  int status = 0;
  if (!wait_child(g_handler_child, 30, &status))
    printf("fork: child 0 pid %d timeout\n", (int)g_handler_child);
  else
    printf("fork: child 0 pid %d status %d\n", (int)g_handler_child, status);
  return 0;
}

/*===-- claimed -----------------------------------------------------------===*/

static sem_t g_inside, g_release;
static LLVMContextRef g_claimed_ctx;

static void claimed_handler(LLVMDiagnosticInfoRef di, void *user) {
  (void)di;
  (void)user;
  sem_post(&g_inside);
  wait_sem(&g_release, 60, "the fork to be done");
}

static void *claimer(void *arg) {
  (void)arg;
  static const char junk[] = "not bitcode";
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(junk, sizeof junk - 1, "junk");
  LLVMModuleRef m = NULL;
  /* Inside this call (on g_claimed_ctx) the handler blocks. */
  if (!LLVMParseBitcodeInContext2(g_claimed_ctx, buf, &m))
    die("garbage parsed");
  LLVMDisposeMemoryBuffer(buf);
  return NULL;
}

static int mode_claimed(void) {
  sem_init(&g_inside, 0, 0);
  sem_init(&g_release, 0, 0);
  g_claimed_ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(g_claimed_ctx, claimed_handler, NULL);
  /* The main thread uses the context once, so the worker's use is a
   * hand-off and the context counts as shared. */
  some_work(g_claimed_ctx, 0);
  pthread_t t;
  if (pthread_create(&t, NULL, claimer, NULL))
    die("pthread_create");
  wait_sem(&g_inside, 60, "the worker to be inside its call");
  prime_heap();
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    die("fork");
  if (pid > 0)
    unprime();
  if (pid == 0) {
    /* The claiming thread is gone: the context is free here. Drop the
     * handler (it would wait for a semaphore nobody posts). */
    LLVMContextSetDiagnosticHandler(g_claimed_ctx, NULL, NULL);
    child_body(0, 1, g_claimed_ctx);
  }
  int status = 0;
  if (!wait_child(pid, 30, &status))
    printf("fork: child 0 pid %d timeout\n", (int)pid);
  else
    printf("fork: child 0 pid %d status %d\n", (int)pid, status);
  sem_post(&g_release);
  pthread_join(t, NULL);
  LLVMContextDispose(g_claimed_ctx);
  return 0;
}

/*===-- leaks -------------------------------------------------------------===*/

STEP static LLVMModuleRef child_leaky_make(LLVMContextRef ctx) {
  return LLVMModuleCreateWithNameInContext("child_leak", ctx);
}

static int mode_leaks(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef parent_module =
      LLVMModuleCreateWithNameInContext("parent", ctx);
  LLVMBuilderRef parent_builder = LLVMCreateBuilderInContext(ctx);
  for (int k = 0; k < 2; ++k) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
      die("fork");
    if (pid == 0) {
      size_t len = 0;
      if (!LLVMGetModuleIdentifier(parent_module, &len) || len != 6)
        die("inherited module");
      LLVMModuleRef own = LLVMModuleCreateWithNameInContext("child_own", ctx);
      LLVMDisposeModule(own);
      if (k == 0)
        fprintf(stderr, "fork: %d leaked = %p\n", (int)getpid(),
                (void *)child_leaky_make(ctx));
      printf("fork: child %d ok\n", k);
      exit(0);
    }
    int status = 0;
    if (!wait_child(pid, 30, &status))
      printf("fork: child %d pid %d timeout\n", k, (int)pid);
    else
      printf("fork: child %d pid %d status %d\n", k, (int)pid, status);
  }
  LLVMDisposeBuilder(parent_builder);
  LLVMDisposeModule(parent_module);
  LLVMContextDispose(ctx);
  return 0;
}

/*===-- spawn -------------------------------------------------------------===*/

static int mode_spawn(char **argv) {
  struct worker w[2];
  start_workers(w, 2, 0);
  usleep(20000);
  pid_t pid;
  int err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
  if (err) {
    fprintf(stderr, "fork: posix_spawn %s: %s\n", argv[0], strerror(err));
    return 3;
  }
  int status = 0;
  if (!wait_child(pid, 120, &status))
    printf("spawn: child pid %d timeout\n", (int)pid);
  else
    printf("spawn: child pid %d status %d\n", (int)pid, status);
  stop_workers(w, 2);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fork bug|clean|single|from_thread|from_handler|"
                    "claimed|leaks|bug_only|"
                    "spawn [N | PROG ARGS...]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argv[1];
  int n = argc > 2 ? atoi(argv[2]) : 4;
  if (n < 1 || n > 100)
    n = 4;
  watchdog(90);
  if (!strcmp(mode, "bug") || !strcmp(mode, "clean")) {
    struct worker w[4];
    start_workers(w, 4, 0);
    fork_children(n, !strcmp(mode, "bug"));
    stop_workers(w, 4);
    printf("fork: parent done\n");
    return 0;
  }
  if (!strcmp(mode, "single")) {
    fork_children(1, 1); /* no other thread in the parent */
    printf("fork: parent done\n");
    return 0;
  }
  if (!strcmp(mode, "from_thread")) {
    struct worker w[4];
    start_workers(w, 4, n);
    pthread_join(w[0].thread, NULL); /* the forking worker stops everyone */
    for (int i = 1; i < 4; ++i)
      pthread_join(w[i].thread, NULL);
    printf("fork: parent done\n");
    return 0;
  }
  if (!strcmp(mode, "from_handler")) {
    int rc = mode_from_handler();
    printf("fork: parent done\n");
    return rc;
  }
  if (!strcmp(mode, "claimed")) {
    int rc = mode_claimed();
    printf("fork: parent done\n");
    return rc;
  }
  if (!strcmp(mode, "leaks")) {
    int rc = mode_leaks();
    printf("fork: parent done\n");
    return rc;
  }
  if (!strcmp(mode, "bug_only")) {
    LLVMContextRef ctx = LLVMContextCreate();
    some_work(ctx, 0);
    printf("fork: bug_only pid %d\n", (int)getpid());
    fflush(stdout);
    seeded_bug(ctx);
    LLVMContextDispose(ctx);
    return 0;
  }
  if (!strcmp(mode, "spawn") && argc > 2)
    return mode_spawn(argv + 2);
  fprintf(stderr, "fork: unknown mode %s\n", mode);
  return 2;
}
