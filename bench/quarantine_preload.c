/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A quarantine and nothing else: preloaded into a plain program, it holds
   the blocks the program's operator delete frees in a first-in first-out
   queue of OWNSAN_BENCH_QUARANTINE_MB megabytes (64, ownsan's default
   quarantine_size_mb) before handing them to free(). It tracks no object and
   checks no call: what it costs is what any tool pays that keeps freed
   memory from being reused at once (ownsan, AddressSanitizer), whose
   program's new objects land in memory that left the caches long ago.

   Which blocks (OWNSAN_BENCH_QUARANTINE_SCOPE): "dispose" (the default)
   holds those of 64 bytes or more freed inside LLVMDisposeModule or
   LLVMDisposeExecutionEngine, the nearest a tool that sees no handles gets
   to ownsan's choice, the blocks of objects the program held handles to (in
   the IR-building workload, the values a module's dispose frees; the
   smaller blocks it frees are their names and operand lists); "all" holds
   every block, as AddressSanitizer does. OWNSAN_BENCH_QUARANTINE_MAX_BLOCK
   (bytes) leaves larger blocks out: an execution engine's dispose frees its
   own structures beside its module's values. OWNSAN_BENCH_QUARANTINE_COUNT=1
   prints the blocks and bytes held, to set beside ownsan's `verbosity=1`
   quarantine line.
   Each thread has its own dispose scope; the queue is shared, under a lock
   with OWNSAN_BENCH_QUARANTINE_LOCKED=1 (programs with threads; left out
   otherwise, so that a single thread's floor counts no lock). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The queue lives in the held blocks themselves (each has room for these
   16 bytes: malloc gives at least 24), written while the block is still in
   the cache: no memory of its own, so nothing is counted but the holding. */
typedef struct Held {
  struct Held *next; /* the next newer */
  size_t size;
} Held;

static Held *oldest, *newest;
static size_t held, held_bytes, limit_bytes, max_block, taken, taken_bytes;
static int initialized, hold_all, locked;
static __thread int in_dispose __attribute__((tls_model("initial-exec")));
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t queue_mu = PTHREAD_MUTEX_INITIALIZER;

static void Init(void) {
  const char *mb = getenv("OWNSAN_BENCH_QUARANTINE_MB");
  limit_bytes = (size_t)(mb ? atol(mb) : 64) << 20;
  const char *scope = getenv("OWNSAN_BENCH_QUARANTINE_SCOPE");
  hold_all = scope && !strcmp(scope, "all");
  const char *max = getenv("OWNSAN_BENCH_QUARANTINE_MAX_BLOCK");
  max_block = max ? (size_t)atol(max) : (size_t)-1;
  const char *lock = getenv("OWNSAN_BENCH_QUARANTINE_LOCKED");
  locked = lock && !strcmp(lock, "1");
  __atomic_store_n(&initialized, 1, __ATOMIC_RELEASE);
}

static void Hold(void *p) {
  if (!p)
    return;
  /* (pthread_once only until initialized: every delete passes here.) */
  if (!__atomic_load_n(&initialized, __ATOMIC_ACQUIRE))
    pthread_once(&init_once, Init);
  size_t size = malloc_usable_size(p);
  if ((!hold_all && (!in_dispose || size < 64)) || size < sizeof(Held) ||
      size > max_block) {
    free(p);
    return;
  }
  Held *h = p;
  h->next = NULL;
  h->size = size;
  /* Oldest first, freed once the lock is let go. */
  Held *leaving = NULL, **leaving_end = &leaving;
  if (locked)
    pthread_mutex_lock(&queue_mu);
  if (newest)
    newest->next = h;
  else
    oldest = h;
  newest = h;
  ++held;
  held_bytes += size;
  ++taken;
  taken_bytes += size;
  while (held_bytes > limit_bytes) {
    Held *out = oldest;
    oldest = out->next;
    if (!oldest)
      newest = NULL;
    --held;
    held_bytes -= out->size;
    out->next = NULL;
    *leaving_end = out;
    leaving_end = &out->next;
  }
  if (locked)
    pthread_mutex_unlock(&queue_mu);
  while (leaving) {
    Held *out = leaving;
    leaving = out->next;
    free(out);
  }
}

static void __attribute__((destructor)) Report(void) {
  if (getenv("OWNSAN_BENCH_QUARANTINE_COUNT"))
    fprintf(stderr,
            "quarantine_preload: %zu blocks (%zu bytes) taken, %zu held\n",
            taken, taken_bytes, held);
}

/* The calls inside which a tracked module's values are freed: a module's
   own dispose, and an execution engine's, which owns the modules it was
   given (the JIT server's MCJIT loop, workload (d)). */
#define DISPOSE_SCOPE(Name)                                                    \
  void Name(void *object) {                                                    \
    static void (*real)(void *);                                               \
    if (!real)                                                                 \
      real = (void (*)(void *))dlsym(RTLD_NEXT, #Name);                        \
    ++in_dispose;                                                              \
    real(object);                                                              \
    --in_dispose;                                                              \
  }
DISPOSE_SCOPE(LLVMDisposeModule)
DISPOSE_SCOPE(LLVMDisposeExecutionEngine)

/* operator delete, every form libstdc++ exports (sized, aligned, arrays). */
void _ZdlPv(void *p) { Hold(p); }
void _ZdlPvm(void *p, size_t n) { (void)n, Hold(p); }
void _ZdaPv(void *p) { Hold(p); }
void _ZdaPvm(void *p, size_t n) { (void)n, Hold(p); }
void _ZdlPvSt11align_val_t(void *p, size_t a) { (void)a, Hold(p); }
void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t a) {
  (void)n, (void)a, Hold(p);
}
void _ZdaPvSt11align_val_t(void *p, size_t a) { (void)a, Hold(p); }
void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t a) {
  (void)n, (void)a, Hold(p);
}
