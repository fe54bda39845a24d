/*===- reentrancy.c - LLVM-C calls made from inside LLVM's callbacks -------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: reentrancy MODE [N]
 *
 *   diag [N]      A context's diagnostic handler
 *(LLVMContextSetDiagnosticHandler) makes LLVM-C calls on that same context
 *while LLVM is inside LLVMParseBitcodeInContext2 (garbage bytes), N (50) times:
 *                 reads the diagnostic, creates types, a module with a
 *                 function and a block, disposes most of it; the module of
 *                 the first call is kept and used after the handler returned.
 *   diag_threads [N]
 *                 The same on 4 threads at once, each with its own context.
 *   diag_bug      diag, then a seeded use-after-free of a function of the
 *                 module the handler created (disposed after the handler
 *                 returned): ownsan must still report it correctly.
 *   diag_dispose  The handler disposes a module that was created (and seen
 *                 by ownsan) before the call; the context is disposed later,
 *                 after the module's memory was reused by malloc. Correct
 *                 code: nothing may be reported and nothing may crash.
 *   orc           LLJIT + a custom materialization unit for `answer`; the
 *                 materialize callback, running inside LLVMOrcLLJITLookup,
 *                 builds `i32 answer() { ret 42 }` with the LLVM-C API in a
 *                 new ThreadSafeContext and emits it through the IR transform
 *                 layer. The looked-up function must return 42.
 *   orc_thread    The same, but the callback hands the materialization
 *                 responsibility to another thread, which builds and emits
 *                 the module (its calls are outermost calls, fully checked)
 *                 while the main thread waits inside LLVMOrcLLJITLookup.
 *
 *   jump [N]      A diagnostic handler leaves LLVMParseBitcodeInContext2 with
 *                 a jump, N (100) times, by longjmp, _longjmp, siglongjmp and
 *                 __longjmp_chk in turn; every fifth time from a handler
 *                 called inside a parse the first handler started (a jump
 *                 out of two calls). Then another thread uses the context
 *                 (properly sequenced: the main thread makes no call until it
 *                 has joined it), then a seeded double dispose of a module.
 *   jump_builtin [N]
 *                 The same with __builtin_setjmp/__builtin_longjmp, which no
 *                 libc function sees (as a language runtime's own jumps); the
 *                 main thread makes one call of its own before the hand-off.
 *   throw [N]     The same with a C++ exception the handler throws and the
 *                 program catches (throw_through.cpp), through libLLVM's
 *                 frames and the wrappers; the main thread makes no call
 *                 between its last catch and the hand-off.
 *   signals [N]   A timer signals the main thread every 50 us; the handler
 *                 makes read-only LLVM-C calls on a context of its own while
 *                 the main thread builds and disposes a module of 20
 *                 functions N (2000) times, and until the handler ran 100
 *                 times. The handler is installed with sigaction; reading
 *                 the action back, and signal(), give it back as installed.
 *   signals_unseen [N]
 *                 The same with the handler installed by glibc's __sigaction
 *                 (as handlers ownsan cannot see: installed before it was
 *                 loaded, or by a runtime's own system calls).
 *   signals_fresh [N]
 *                 signals, but each handler call walks 20 instructions of a
 *                 parsed function of 200,000 the program never touched:
 *                 handles the handler sees first (native: no allocation).
 *   signals_jump  A SIGUSR2 handler leaves itself by siglongjmp, 20 times
 *                 (raise), then a seeded double dispose of a module when
 *                 REENTRANCY_SEEDED_BUG is set.
 *
 * Prints "MODE: done" at the end. Every wait has a timeout; a watchdog
 * (alarm) ends a stuck run with exit status 124.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REL_NAME "reentrancy"
#include "../threads/rel_plumbing.h"

#define STEP __attribute__((noinline))

/*===-- Diagnostic handlers -----------------------------------------------===*/

struct diag_state {
  LLVMContextRef ctx;
  int calls;
  LLVMModuleRef kept;   /* created inside the first handler call */
  LLVMModuleRef victim; /* diag_dispose: disposed inside the handler */
  int parses;           /* diag_threads: how many diagnostics to trigger */
};

static void diag_handler(LLVMDiagnosticInfoRef di, void *user) {
  struct diag_state *s = user;
  if (LLVMContextGetDiagnosticContext(s->ctx) != user)
    die("LLVMContextGetDiagnosticContext");
  char *desc = LLVMGetDiagInfoDescription(di);
  if (!desc || !*desc)
    die("empty diagnostic");
  LLVMDisposeMessage(desc);
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
    die("diagnostic severity");
  /* Build on the context LLVM is using right now. */
  LLVMTypeRef i32 = LLVMInt32TypeInContext(s->ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(
      s->calls == 0 ? "from_handler" : "scratch", s->ctx);
  LLVMValueRef f = LLVMAddFunction(m, "h", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(s->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(s->ctx, f, "e"));
  LLVMBuildRet(
      b, LLVMBuildAdd(b, LLVMGetParam(f, 0), LLVMConstInt(i32, 1, 0), "r"));
  LLVMDisposeBuilder(b);
  if (LLVMVerifyFunction(f, LLVMReturnStatusAction))
    die("handler's function does not verify");
  if (s->calls == 0)
    s->kept = m;
  else
    LLVMDisposeModule(m);
  if (s->victim) {
    LLVMDisposeModule(s->victim);
    s->victim = NULL;
  }
  s->calls++;
}

STEP static void trigger_diagnostic(LLVMContextRef ctx) {
  static const char junk[] = "definitely not bitcode";
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(junk, sizeof junk - 1, "junk");
  LLVMModuleRef m = NULL;
  if (!LLVMParseBitcodeInContext2(ctx, buf, &m))
    die("garbage parsed as bitcode");
  LLVMDisposeMemoryBuffer(buf);
}

/* After the handler: use what it created, from outside. */
STEP static LLVMValueRef use_kept(struct diag_state *s) {
  size_t len = 0;
  const char *id = LLVMGetModuleIdentifier(s->kept, &len);
  if (len != 12 || memcmp(id, "from_handler", 12))
    die("kept module's name");
  LLVMValueRef h = LLVMGetNamedFunction(s->kept, "h");
  if (!h || LLVMCountBasicBlocks(h) != 1)
    die("kept module's function");
  LLVMTypeRef v = LLVMVoidTypeInContext(s->ctx);
  return LLVMAddFunction(s->kept, "g", LLVMFunctionType(v, NULL, 0, 0));
}

STEP static void dispose_kept(struct diag_state *s) {
  LLVMDisposeModule(s->kept);
}

STEP static void use_dead_function(LLVMValueRef g) {
  size_t len = 0;
  LLVMGetValueName2(g, &len);
}

static void diag_run(struct diag_state *s, int n) {
  s->ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(s->ctx, diag_handler, s);
  for (int i = 0; i < n; ++i)
    trigger_diagnostic(s->ctx);
  if (s->calls != n)
    die("handler not called once per parse");
}

static void *diag_thread(void *arg) {
  struct diag_state *s = arg;
  diag_run(s, s->parses);
  use_kept(s);
  dispose_kept(s);
  LLVMContextDispose(s->ctx);
  return NULL;
}

static int mode_diag(int n, int bug) {
  struct diag_state s = {0};
  diag_run(&s, n);
  LLVMValueRef g = use_kept(&s);
  fprintf(stderr, "reentrancy: subject = %p\n", (void *)g);
  printf("diag: %d handler calls\n", s.calls);
  dispose_kept(&s);
  if (bug)
    use_dead_function(g);
  LLVMContextDispose(s.ctx);
  return 0;
}

static int mode_diag_threads(int n) {
  struct diag_state s[4];
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) {
    memset(&s[i], 0, sizeof s[i]);
    s[i].parses = n;
    if (pthread_create(&t[i], NULL, diag_thread, &s[i]))
      die("pthread_create");
  }
  for (int i = 0; i < 4; ++i)
    pthread_join(t[i], NULL);
  printf("diag_threads: 4 threads x %d diagnostics\n", n);
  return 0;
}

static int mode_diag_dispose(void) {
  struct diag_state s = {0};
  s.ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(s.ctx, diag_handler, &s);
  s.victim = LLVMModuleCreateWithNameInContext("victim", s.ctx);
  LLVMAddFunction(s.victim, "v",
                  LLVMFunctionType(LLVMVoidTypeInContext(s.ctx), NULL, 0, 0));
  trigger_diagnostic(s.ctx); /* the handler disposes s.victim */
  if (s.victim)
    die("the handler did not dispose the victim");
  enum { kBlocks = 20000 };
  static void *blocks[kBlocks];
  for (int i = 0; i < kBlocks; ++i) {
    size_t n = 16 + (size_t)(i % 128) * 8;
    blocks[i] = malloc(n);
    memset(blocks[i], 0x41, n);
  }
  LLVMDisposeModule(s.kept);
  LLVMContextDispose(s.ctx);
  for (int i = 0; i < kBlocks; ++i)
    free(blocks[i]);
  return 0;
}

/*===-- Jumps out of wrapped calls ---------------------------------------===*/

/* What _FORTIFY_SOURCE turns longjmp into; glibc exports it. */
extern void __longjmp_chk(sigjmp_buf env, int val) __attribute__((noreturn));

static struct {
  sigjmp_buf env;
  void *builtin_env[5]; /* __builtin_setjmp's buffer */
  int builtin;
  int iteration;
  LLVMContextRef outer, inner;
  LLVMMemoryBufferRef junk;
  int escapes; /* handler calls that jumped */
} jump_state;

STEP static void parse_junk(LLVMContextRef ctx) {
  LLVMModuleRef m = NULL;
  LLVMParseBitcodeInContext2(ctx, jump_state.junk, &m);
  die("LLVMParseBitcodeInContext2 returned: the handler did not jump");
}

/* Leaves through the libc function of this iteration, or
 * __builtin_longjmp (never inlined into the function that set it up). */
__attribute__((noinline, noreturn)) static void jump_back(void) {
  jump_state.escapes++;
  if (jump_state.builtin)
    __builtin_longjmp(jump_state.builtin_env, 1);
  switch (jump_state.iteration % 4) {
  case 0:
    longjmp(jump_state.env, 1);
  case 1:
    _longjmp(jump_state.env, 1);
  case 2:
    siglongjmp(jump_state.env, 1);
  default:
    __longjmp_chk(jump_state.env, 1);
  }
}

static void jumping_handler(LLVMDiagnosticInfoRef di, void *user) {
  (void)di;
  /* Every fifth time, first a parse on the other context, whose handler
   * jumps out of both calls. */
  if (user == jump_state.outer && jump_state.iteration % 5 == 4)
    parse_junk(jump_state.inner);
  jump_back();
}

STEP static void jump_once(void) {
  if (jump_state.builtin) {
    if (__builtin_setjmp(jump_state.builtin_env) == 0)
      parse_junk(jump_state.outer);
    return;
  }
  if (sigsetjmp(jump_state.env, 1) == 0)
    parse_junk(jump_state.outer);
}

static void *use_outer_on_thread(void *arg) {
  (void)arg;
  LLVMModuleRef m =
      LLVMModuleCreateWithNameInContext("other_thread", jump_state.outer);
  LLVMAddFunction(
      m, "t",
      LLVMFunctionType(LLVMVoidTypeInContext(jump_state.outer), NULL, 0, 0));
  LLVMDisposeModule(m);
  return NULL;
}

STEP static void dispose_victim(LLVMModuleRef m) { LLVMDisposeModule(m); }
STEP static void dispose_victim_again(LLVMModuleRef m) { LLVMDisposeModule(m); }

/* Module "victim": created, disposed, and with REENTRANCY_SEEDED_BUG set
 * disposed again (the seeded double dispose after jumps). */
STEP static void victim_lifecycle(LLVMContextRef ctx) {
  LLVMModuleRef victim = LLVMModuleCreateWithNameInContext("victim", ctx);
  fprintf(stderr, "reentrancy: subject = %p\n", (void *)victim);
  dispose_victim(victim);
  if (getenv("REENTRANCY_SEEDED_BUG"))
    dispose_victim_again(victim);
}

/* throw_through.cpp */
void throw_through_setup(LLVMContextRef outer, LLVMContextRef inner);
int throw_through_parse(int n);
void throw_through_teardown(void);

static int mode_throw(int n) {
  jump_state.outer = LLVMContextCreate();
  jump_state.inner = LLVMContextCreate();
  throw_through_setup(jump_state.outer, jump_state.inner);
  int escapes = throw_through_parse(n);
  if (escapes != n)
    die("not every handler call threw");
  /* (No call of this thread's own before the hand-off: the catch closed
   * the calls the exceptions left.) */
  pthread_t t;
  if (pthread_create(&t, NULL, use_outer_on_thread, NULL))
    die("pthread_create");
  pthread_join(t, NULL);
  printf("throw: %d exceptions, then the context used by another thread\n",
         escapes);
  throw_through_teardown();
  victim_lifecycle(jump_state.outer);
  LLVMContextDispose(jump_state.inner);
  LLVMContextDispose(jump_state.outer);
  return 0;
}

static int mode_jump(int n, int builtin) {
  jump_state.builtin = builtin;
  jump_state.outer = LLVMContextCreate();
  jump_state.inner = LLVMContextCreate();
  static const char junk[] = "definitely not bitcode";
  jump_state.junk =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(junk, sizeof junk - 1, "junk");
  LLVMContextSetDiagnosticHandler(jump_state.outer, jumping_handler,
                                  jump_state.outer);
  LLVMContextSetDiagnosticHandler(jump_state.inner, jumping_handler,
                                  jump_state.inner);
  for (jump_state.iteration = 0; jump_state.iteration < n;
       ++jump_state.iteration)
    jump_once();
  if (jump_state.escapes != n)
    die("not every handler call jumped");
  /* (a call of this thread's own: the first after the last jump) */
  if (builtin && LLVMGetTypeKind(LLVMInt32Type()) != LLVMIntegerTypeKind)
    die("LLVMGetTypeKind");
  pthread_t t;
  if (pthread_create(&t, NULL, use_outer_on_thread, NULL))
    die("pthread_create");
  pthread_join(t, NULL);
  printf("%s: %d jumps, then the context used by another thread\n",
         builtin ? "jump_builtin" : "jump", jump_state.escapes);
  victim_lifecycle(jump_state.outer);
  LLVMDisposeMemoryBuffer(jump_state.junk);
  LLVMContextDispose(jump_state.inner);
  LLVMContextDispose(jump_state.outer);
  return 0;
}

/*===-- Signal handlers ---------------------------------------------------===*/

static struct {
  LLVMContextRef ctx;
  LLVMModuleRef m;
  LLVMValueRef f;
  volatile sig_atomic_t calls, bad;
} sig_state;

/* glibc's exported alias of sigaction, which an LD_PRELOAD interposer of
 * sigaction does not see (not declared by the headers). */
int __sigaction(int, const struct sigaction *, struct sigaction *);

/* signals_fresh: the handler's walk over a function nobody touched. */
static struct {
  LLVMValueRef fn, at;
  volatile sig_atomic_t steps;
} walk_state;

static void walking_handler(int sig) {
  (void)sig;
  int saved_errno = errno;
  for (int k = 0; k < 20; ++k) {
    walk_state.at =
        walk_state.at
            ? LLVMGetNextInstruction(walk_state.at)
            : LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(walk_state.fn));
    walk_state.steps++;
  }
  sig_state.calls++;
  errno = saved_errno;
}

/* A function of `n` adds, parsed from text: its instructions are handles
 * the program never got through the C API. */
static LLVMValueRef parse_long_function(LLVMContextRef ctx, int n) {
  size_t cap = (size_t)n * 40 + 128, len = 0;
  char *ir = malloc(cap);
  len += (size_t)snprintf(ir + len, cap - len, "define i32 @long(i32 %%x) {\n");
  for (int i = 0; i < n; ++i)
    len += (size_t)snprintf(ir + len, cap - len, "  %%v%d = add i32 %%x, %d\n",
                            i, i);
  len += (size_t)snprintf(ir + len, cap - len, "  ret i32 %%v0\n}\n");
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len, "long");
  free(ir);
  LLVMModuleRef m = NULL;
  char *err = NULL;
  if (LLVMParseIRInContext(ctx, buf, &m, &err))
    die("LLVMParseIRInContext");
  return LLVMGetNamedFunction(m, "long");
}

/* Read-only calls on the handler's own context (no allocation natively). */
static void reading_handler(int sig) {
  (void)sig;
  int saved_errno = errno;
  LLVMValueRef f = LLVMGetFirstFunction(sig_state.m);
  size_t len = 0;
  const char *name = LLVMGetValueName2(f, &len);
  LLVMBasicBlockRef bb = LLVMGetEntryBasicBlock(f);
  if (f != sig_state.f || LLVMGetModuleContext(sig_state.m) != sig_state.ctx ||
      len != 4 || memcmp(name, "read", 4) || LLVMCountParams(f) != 1 ||
      LLVMCountBasicBlocks(f) != 1 ||
      LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(f, 0))) != LLVMIntegerTypeKind ||
      LLVMGetInstructionOpcode(LLVMGetLastInstruction(bb)) != LLVMRet)
    sig_state.bad++;
  sig_state.calls++;
  errno = saved_errno;
}

/* A module of 20 functions, each a block of a few instructions. */
STEP static void build_and_dispose(LLVMContextRef ctx, int i) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("work", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i32, &i32, 1, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (int k = 0; k < 20; ++k) {
    LLVMValueRef f = LLVMAddFunction(m, "w", fty);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "e"));
    LLVMValueRef v = LLVMGetParam(f, 0);
    for (int j = 0; j < 4; ++j)
      v = LLVMBuildMul(b, LLVMBuildAdd(b, v, LLVMConstInt(i32, i + j, 0), "a"),
                       v, "m");
    LLVMBuildRet(b, v);
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
}

enum signals_variant { kSeen, kUnseen, kFresh };

static int mode_signals(int n, enum signals_variant variant) {
  sig_state.ctx = LLVMContextCreate();
  sig_state.m = LLVMModuleCreateWithNameInContext("handler", sig_state.ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(sig_state.ctx);
  sig_state.f =
      LLVMAddFunction(sig_state.m, "read", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(sig_state.ctx);
  LLVMPositionBuilderAtEnd(
      b, LLVMAppendBasicBlockInContext(sig_state.ctx, sig_state.f, "e"));
  LLVMBuildRet(b, LLVMGetParam(sig_state.f, 0));
  LLVMDisposeBuilder(b);
  reading_handler(0); /* once outside a handler: every handle seen */
  if (variant == kFresh)
    walk_state.fn = parse_long_function(sig_state.ctx, 200000);
  struct sigaction sa, back;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = variant == kFresh ? walking_handler : reading_handler;
  sa.sa_flags = SA_RESTART;
  if ((variant == kUnseen ? __sigaction : sigaction)(SIGUSR1, &sa, NULL))
    die("sigaction");
  /* The program reads back what it installed. */
  if (sigaction(SIGUSR1, NULL, &back) || back.sa_handler != sa.sa_handler ||
      (back.sa_flags & SA_SIGINFO) || !(back.sa_flags & SA_RESTART))
    die("sigaction read back another handler");
  if (variant != kUnseen && signal(SIGUSR1, sa.sa_handler) != sa.sa_handler)
    die("signal() returned another handler");
  /* A high-resolution timer aimed at this thread: signals at random points
   * of its work, every 50 us of wall-clock time. */
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGUSR1;
  sev._sigev_un._tid = gettid(); /* (sigev_notify_thread_id) */
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
    die("timer_create");
  struct itimerspec period = {{0, 50000}, {0, 50000}};
  if (timer_settime(timer, 0, &period, NULL))
    die("timer_settime");
  LLVMContextRef ctx = LLVMContextCreate();
  /* (Until 100 signals at least, on a busy machine too.) */
  for (int i = 0; i < n || sig_state.calls < 101; ++i)
    build_and_dispose(ctx, i);
  timer_delete(timer);
  signal(SIGUSR1, SIG_IGN);
  LLVMContextDispose(ctx);
  if (sig_state.bad)
    die("a handler call saw wrong values");

  fprintf(stderr, "reentrancy: %d handler calls\n", (int)sig_state.calls);
  printf("signals: %d modules built and disposed under signals\n", n);
  if (walk_state.fn)
    LLVMDisposeModule(LLVMGetGlobalParent(walk_state.fn));
  LLVMDisposeModule(sig_state.m);
  LLVMContextDispose(sig_state.ctx);
  return 0;
}

/* signals_jump: a handler that leaves itself by siglongjmp. */
static sigjmp_buf handler_exit;

static void leaving_handler(int sig) {
  (void)sig;
  /* A call inside the handler, before it leaves. */
  if (LLVMGetModuleContext(sig_state.m) != sig_state.ctx)
    sig_state.bad++;
  sig_state.calls++;
  siglongjmp(handler_exit, 1);
}

static int mode_signals_jump(void) {
  sig_state.ctx = LLVMContextCreate();
  sig_state.m = LLVMModuleCreateWithNameInContext("handler", sig_state.ctx);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = leaving_handler;
  if (sigaction(SIGUSR2, &sa, NULL))
    die("sigaction");
  for (int i = 0; i < 20; ++i)
    if (!sigsetjmp(handler_exit, 1))
      raise(SIGUSR2);
  if (sig_state.calls != 20 || sig_state.bad)
    die("the handler did not run 20 times");
  printf("signals_jump: 20 handlers left by siglongjmp\n");
  victim_lifecycle(sig_state.ctx);
  LLVMDisposeModule(sig_state.m);
  LLVMContextDispose(sig_state.ctx);
  return 0;
}

/*===-- ORC ---------------------------------------------------------------===*/

struct orc_state {
  LLVMOrcLLJITRef jit;
  int on_thread;
  atomic_int materialized, destroyed;
  LLVMOrcMaterializationResponsibilityRef pending;
  sem_t go;
};

static void check_error(LLVMErrorRef err, const char *what) {
  if (!err)
    return;
  char *msg = LLVMGetErrorMessage(err);
  fprintf(stderr, "reentrancy: %s: %s\n", what, msg);
  LLVMDisposeErrorMessage(msg);
  die(what);
}

/* i32 answer() { ret 42 }, built with the C API in a new context. */
STEP static LLVMOrcThreadSafeModuleRef build_answer(void) {
#if LLVM_VERSION_MAJOR >= 21
  /* LLVM 21 replaced LLVMOrcThreadSafeContextGetContext: the thread-safe
   * context now takes a context the caller made. */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMOrcThreadSafeContextRef tsc =
      LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
#else
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
#endif
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("orc_answer", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f =
      LLVMAddFunction(m, "answer", LLVMFunctionType(i32, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef t =
      LLVMBuildAdd(b, LLVMConstInt(i32, 40, 0), LLVMConstInt(i32, 2, 0), "t");
  LLVMBuildRet(b, t);
  LLVMDisposeBuilder(b);
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    die(msg ? msg : "verify");
  LLVMDisposeMessage(msg);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  return tsm;
}

STEP static void emit_answer(struct orc_state *s,
                             LLVMOrcMaterializationResponsibilityRef mr) {
  LLVMOrcIRTransformLayerEmit(LLVMOrcLLJITGetIRTransformLayer(s->jit), mr,
                              build_answer());
}

static void orc_materialize(void *ctx,
                            LLVMOrcMaterializationResponsibilityRef mr) {
  struct orc_state *s = ctx;
  atomic_fetch_add(&s->materialized, 1);
  if (s->on_thread) {
    s->pending = mr;
    sem_post(&s->go);
    return;
  }
  emit_answer(s, mr); /* LLVM-C calls from inside LLVMOrcLLJITLookup */
}

static void orc_discard(void *ctx, LLVMOrcJITDylibRef jd,
                        LLVMOrcSymbolStringPoolEntryRef sym) {
  (void)ctx;
  (void)jd;
  (void)sym;
  die("discard called");
}

static void orc_destroy(void *ctx) {
  struct orc_state *s = ctx;
  atomic_fetch_add(&s->destroyed, 1);
}

static void *orc_worker(void *arg) {
  struct orc_state *s = arg;
  wait_sem(&s->go, 60, "the materialize callback");
  emit_answer(s, s->pending);
  return NULL;
}

static int mode_orc(int on_thread) {
  static struct orc_state s;
  s.on_thread = on_thread;
  sem_init(&s.go, 0, 0);
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
    die("no native target");
  check_error(LLVMOrcCreateLLJIT(&s.jit, NULL), "LLVMOrcCreateLLJIT");
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(s.jit);
  LLVMJITSymbolFlags flags = {
      LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable, 0};
  LLVMOrcCSymbolFlagsMapPair sym = {
      LLVMOrcLLJITMangleAndIntern(s.jit, "answer"), flags};
  LLVMOrcMaterializationUnitRef mu = LLVMOrcCreateCustomMaterializationUnit(
      "answer_mu", &s, &sym, 1, NULL, orc_materialize, orc_discard,
      orc_destroy);
  check_error(LLVMOrcJITDylibDefine(jd, mu), "LLVMOrcJITDylibDefine");
  pthread_t t;
  if (on_thread && pthread_create(&t, NULL, orc_worker, &s))
    die("pthread_create");
  LLVMOrcExecutorAddress addr = 0;
  check_error(LLVMOrcLLJITLookup(s.jit, &addr, "answer"), "LLVMOrcLLJITLookup");
  if (on_thread)
    pthread_join(t, NULL);
  int v = ((int (*)(void))(uintptr_t)addr)();
  printf("%s: answer() = %d, materialized %d time(s)\n",
         on_thread ? "orc_thread" : "orc", v, atomic_load(&s.materialized));
  check_error(LLVMOrcDisposeLLJIT(s.jit), "LLVMOrcDisposeLLJIT");
  return v == 42 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: reentrancy diag|diag_threads|diag_bug|"
            "diag_dispose|jump|jump_builtin|throw|signals|signals_unseen|"
            "signals_fresh|signals_jump|orc|orc_thread [N]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  watchdog(120);
  const char *mode = argv[1];
  int n = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 1)
    n = 50;
  int rc;
  if (!strcmp(mode, "diag"))
    rc = mode_diag(n, 0);
  else if (!strcmp(mode, "diag_bug"))
    rc = mode_diag(3, 1);
  else if (!strcmp(mode, "diag_threads"))
    rc = mode_diag_threads(n);
  else if (!strcmp(mode, "diag_dispose"))
    rc = mode_diag_dispose();
  else if (!strcmp(mode, "jump"))
    rc = mode_jump(argc > 2 ? n : 100, 0);
  else if (!strcmp(mode, "jump_builtin"))
    rc = mode_jump(argc > 2 ? n : 100, 1);
  else if (!strcmp(mode, "throw"))
    rc = mode_throw(argc > 2 ? n : 100);
  else if (!strcmp(mode, "signals"))
    rc = mode_signals(argc > 2 ? n : 2000, kSeen);
  else if (!strcmp(mode, "signals_unseen"))
    rc = mode_signals(argc > 2 ? n : 2000, kUnseen);
  else if (!strcmp(mode, "signals_fresh"))
    rc = mode_signals(argc > 2 ? n : 2000, kFresh);
  else if (!strcmp(mode, "signals_jump"))
    rc = mode_signals_jump();
  else if (!strcmp(mode, "orc"))
    rc = mode_orc(0);
  else if (!strcmp(mode, "orc_thread"))
    rc = mode_orc(1);
  else {
    fprintf(stderr, "reentrancy: unknown mode %s\n", mode);
    return 2;
  }
  printf("%s: done\n", mode);
  return rc;
}
