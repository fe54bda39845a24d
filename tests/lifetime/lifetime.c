/* Seeded programs for values LLVM frees by itself, address reuse, the
 * quarantine and builders left pointing into freed IR.
 *
 * usage: lifetime CASE [--fixed]
 * Each case prints what it does; the seeded misuse is the last step. With
 * --fixed the misuse is left out and the program must exit 0 with no
 * report. Cases that need an API missing from this LLVM exit 77.
 */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR < 17
#include <llvm-c/Transforms/Scalar.h>
#endif

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static int fixed;

static void step(const char *what) {
  printf("%s\n", what);
  fflush(stdout);
}

/* ---- passes -------------------------------------------------------------
 * define internal void @unused() { ret void }
 * define i32 @f(i32 %x) {
 * entry: %dead = add i32 %x, 7 ; %live = mul i32 %x, 3 ; br label %next
 * next:  %r = add i32 %live, 1 ; ret i32 %r }
 */
struct pass_module {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMValueRef unused, f, dead, live, r;
  LLVMBasicBlockRef entry, next;
};

NOINLINE static void build_pass_module(struct pass_module *p) {
  p->ctx = LLVMContextCreate();
  p->mod = LLVMModuleCreateWithNameInContext("m", p->ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(p->ctx);
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(p->ctx), NULL, 0, 0);
  p->unused = LLVMAddFunction(p->mod, "unused", vty);
  LLVMSetLinkage(p->unused, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
  LLVMPositionBuilderAtEnd(
      b, LLVMAppendBasicBlockInContext(p->ctx, p->unused, "e"));
  LLVMBuildRetVoid(b);
  LLVMTypeRef fty = LLVMFunctionType(i32, &i32, 1, 0);
  p->f = LLVMAddFunction(p->mod, "f", fty);
  LLVMValueRef x = LLVMGetParam(p->f, 0);
  p->entry = LLVMAppendBasicBlockInContext(p->ctx, p->f, "entry");
  p->next = LLVMAppendBasicBlockInContext(p->ctx, p->f, "next");
  LLVMPositionBuilderAtEnd(b, p->entry);
  p->dead = LLVMBuildAdd(b, x, LLVMConstInt(i32, 7, 0), "dead");
  p->live = LLVMBuildMul(b, x, LLVMConstInt(i32, 3, 0), "live");
  LLVMBuildBr(b, p->next);
  LLVMPositionBuilderAtEnd(b, p->next);
  p->r = LLVMBuildAdd(b, p->live, LLVMConstInt(i32, 1, 0), "r");
  LLVMBuildRet(b, p->r);
  LLVMDisposeBuilder(b);
}

NOINLINE static void run_pipeline(LLVMModuleRef m, const char *pipeline) {
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, pipeline, NULL, opts);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    fprintf(stderr, "LLVMRunPasses: %s\n", msg);
    LLVMDisposeErrorMessage(msg);
    exit(2);
  }
  LLVMDisposePassBuilderOptions(opts);
}

NOINLINE static void use_value_name(LLVMValueRef v) {
  size_t len;
  const char *n = LLVMGetValueName2(v, &len);
  printf("name: %.*s\n", (int)len, n);
}

NOINLINE static void use_block_name(LLVMBasicBlockRef bb) {
  printf("block: %s\n", LLVMGetBasicBlockName(bb));
}

static void finish(struct pass_module *p) {
  LLVMDisposeModule(p->mod);
  LLVMContextDispose(p->ctx);
}

static int case_pass(const char *pipeline) {
  struct pass_module p;
  build_pass_module(&p);
  step(pipeline);
  run_pipeline(p.mod, pipeline);
  /* What the passes keep stays usable. */
  use_value_name(p.f);
  use_value_name(p.live);
  use_value_name(p.r);
  use_block_name(p.entry);
  if (!fixed) {
    step("use what the pass deleted");
    if (!strcmp(pipeline, "dce"))
      use_value_name(p.dead);
    else if (!strcmp(pipeline, "simplifycfg"))
      use_block_name(p.next);
    else
      use_value_name(p.unused);
  }
  finish(&p);
  return 0;
}

static int case_legacy_dce(void) {
#if LLVM_VERSION_MAJOR < 17
  struct pass_module p;
  build_pass_module(&p);
  LLVMPassManagerRef pm = LLVMCreateFunctionPassManagerForModule(p.mod);
  LLVMAddDCEPass(pm);
  LLVMInitializeFunctionPassManager(pm);
  step("legacy dce");
  LLVMRunFunctionPassManager(pm, p.f);
  LLVMFinalizeFunctionPassManager(pm);
  LLVMDisposePassManager(pm);
  use_value_name(p.live);
  if (!fixed) {
    step("use what the pass deleted");
    use_value_name(p.dead);
  }
  finish(&p);
  return 0;
#else
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return 77;
#endif
}

/* ---- reuse: free one object, create 10,000 of its kind, use the stale -- */
enum { kNew = 10000 };

struct reuse_env {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTypeRef i32;
  LLVMValueRef fn;
  LLVMBasicBlockRef bb;
  LLVMBuilderRef b;
};

static void reuse_env_init(struct reuse_env *e) {
  e->ctx = LLVMContextCreate();
  e->mod = LLVMModuleCreateWithNameInContext("m", e->ctx);
  e->i32 = LLVMInt32TypeInContext(e->ctx);
  e->fn =
      LLVMAddFunction(e->mod, "host", LLVMFunctionType(e->i32, &e->i32, 1, 0));
  e->bb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
  e->b = LLVMCreateBuilderInContext(e->ctx);
  LLVMPositionBuilderAtEnd(e->b, e->bb);
}

NOINLINE static void *make_one(struct reuse_env *e, const char *kind, int i) {
  char name[32];
  snprintf(name, sizeof name, "%s%d", kind, i);
  if (!strcmp(kind, "instruction"))
    return LLVMBuildAdd(e->b, LLVMGetParam(e->fn, 0),
                        LLVMConstInt(e->i32, (unsigned)i, 0), name);
  if (!strcmp(kind, "block"))
    return LLVMAppendBasicBlockInContext(e->ctx, e->fn, name);
  if (!strcmp(kind, "function"))
    return LLVMAddFunction(e->mod, name,
                           LLVMFunctionType(e->i32, &e->i32, 1, 0));
  if (!strcmp(kind, "global"))
    return LLVMAddGlobal(e->mod, e->i32, name);
  if (!strcmp(kind, "module"))
    return LLVMModuleCreateWithNameInContext(name, e->ctx);
  if (!strcmp(kind, "builder"))
    return LLVMCreateBuilderInContext(e->ctx);
  /* memory buffer */
  return LLVMCreateMemoryBufferWithMemoryRangeCopy("0123456789", 10, name);
}

NOINLINE static void free_one(const char *kind, void *h) {
  if (!strcmp(kind, "instruction"))
    LLVMInstructionEraseFromParent(h);
  else if (!strcmp(kind, "block"))
    LLVMDeleteBasicBlock(h);
  else if (!strcmp(kind, "function"))
    LLVMDeleteFunction(h);
  else if (!strcmp(kind, "global"))
    LLVMDeleteGlobal(h);
  else if (!strcmp(kind, "module"))
    LLVMDisposeModule(h);
  else if (!strcmp(kind, "builder"))
    LLVMDisposeBuilder(h);
  else
    LLVMDisposeMemoryBuffer(h);
}

NOINLINE static void use_stale(const char *kind, void *h) {
  size_t len;
  if (!strcmp(kind, "instruction"))
    printf("%d\n", (int)LLVMGetInstructionOpcode(h));
  else if (!strcmp(kind, "block"))
    printf("%s\n", LLVMGetBasicBlockName(h));
  else if (!strcmp(kind, "function") || !strcmp(kind, "global"))
    printf("%s\n", LLVMGetValueName2(h, &len));
  else if (!strcmp(kind, "module"))
    printf("%s\n", LLVMGetModuleIdentifier(h, &len));
  else if (!strcmp(kind, "builder"))
    printf("%p\n", (void *)LLVMGetInsertBlock(h));
  else
    printf("%zu\n", LLVMGetBufferSize(h));
}

static int case_reuse(const char *kind) {
  struct reuse_env e;
  reuse_env_init(&e);
  void *stale = make_one(&e, kind, -1);
  fprintf(stderr, "lifetime: stale = %p\n", stale);
  step("free it");
  free_one(kind, stale);
  static void *fresh[kNew];
  int same = 0;
  for (int i = 0; i < kNew; ++i) {
    fresh[i] = make_one(&e, kind, i);
    same += fresh[i] == stale;
  }
  printf("created %d new %s objects\n", kNew, kind);
  fprintf(stderr, "lifetime: new objects at the stale address: %d\n", same);
  if (!fixed) {
    step("use the stale handle");
    use_stale(kind, stale);
  }
  for (int i = 0; i < kNew; ++i) {
    if (!strcmp(kind, "module"))
      LLVMDisposeModule(fresh[i]);
    else if (!strcmp(kind, "builder"))
      LLVMDisposeBuilder(fresh[i]);
    else if (!strcmp(kind, "memory_buffer"))
      LLVMDisposeMemoryBuffer(fresh[i]);
  }
  LLVMDisposeBuilder(e.b);
  LLVMDisposeModule(e.mod);
  LLVMContextDispose(e.ctx);
  return 0;
}

/* A freed builder's memory taken over by a memory buffer (run with
 * quarantine_size_mb=0): the stale builder handle now points at a live
 * object of another kind, which no valid LLVMBuilderRef can. */
static int case_reuse_other_kind(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMBuilderRef stale = LLVMCreateBuilderInContext(ctx);
  size_t size = malloc_usable_size(stale);
  step("free the builder");
  LLVMDisposeBuilder(stale);
  LLVMMemoryBufferRef taker = NULL;
  static char name[4096];
  /* Buffers of every size up to the builder's, kept alive so that each
   * round takes other free chunks first, until one lands on the builder's
   * chunk (allocator-dependent, hence the rounds). */
  static LLVMMemoryBufferRef keep[40000];
  int kept = 0;
  for (int round = 0; round < 64 && !taker; ++round) {
    for (size_t len = 0; len < size && len < sizeof name - 1 && !taker; ++len) {
      memset(name, 'n', len);
      name[len] = 0;
      LLVMMemoryBufferRef mb =
          LLVMCreateMemoryBufferWithMemoryRange("data", 4, name, 0);
      if ((void *)mb == (void *)stale)
        taker = mb;
      else if (kept < (int)(sizeof keep / sizeof keep[0]))
        keep[kept++] = mb;
      else
        LLVMDisposeMemoryBuffer(mb);
    }
  }
  for (int i = 0; i < kept; ++i)
    LLVMDisposeMemoryBuffer(keep[i]);
  if (!taker) {
    printf("no memory buffer landed on the freed builder\n");
    return 3;
  }
  printf("a memory buffer now lives at the freed builder's address\n");
  if (!fixed) {
    step("use the stale builder");
    printf("%p\n", (void *)LLVMGetInsertBlock(stale));
  }
  LLVMDisposeMemoryBuffer(taker);
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- quarantine bound: dispose 100,000 objects -------------------------- */
static int case_quarantine_bound(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 100000; ++i) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMDisposeBuilder(b);
  }
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, bb);
  for (int i = 0; i < 100000; ++i) {
    LLVMValueRef v = LLVMBuildAdd(b, LLVMGetParam(fn, 0),
                                  LLVMConstInt(i32, (unsigned)i, 0), "v");
    LLVMInstructionEraseFromParent(v);
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  printf("disposed 200000 objects\n");
  return 0;
}

/* ---- history bound: a stale function whose record was evicted ------------
 * Run with history_size_mb=1: the 60,000 globals disposed after @f push its
 * record out of the history, while the quarantine keeps its address from
 * reuse; the use of the stale handle is still reported. */
static int case_history_evicted(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(i32, &i32, 1, 0));
  step("dispose the module of @f");
  LLVMDisposeModule(m);
  step("create and dispose 600 modules of 100 globals");
  for (int i = 0; i < 600; ++i) {
    LLVMModuleRef churn = LLVMModuleCreateWithNameInContext("churn", ctx);
    for (int g = 0; g < 100; ++g)
      LLVMAddGlobal(churn, i32, "");
    LLVMDisposeModule(churn);
  }
  if (!fixed) {
    step("use the stale function");
    size_t len;
    printf("%s\n", LLVMGetValueName2(f, &len));
  }
  LLVMContextDispose(ctx);
  return 0;
}

/* ---- short threads: 20,000 threads each dispose one builder, then 30,000
 * objects are churned (run with history_size_mb=1: the threads' records
 * are evicted). */
static void *dispose_one_builder(void *ctx) {
  LLVMDisposeBuilder(LLVMCreateBuilderInContext((LLVMContextRef)ctx));
  return NULL;
}

static int case_thread_exit(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 20000; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, dispose_one_builder, ctx) != 0)
      return 3;
    pthread_join(t, NULL);
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  for (int i = 0; i < 300; ++i) {
    LLVMModuleRef churn = LLVMModuleCreateWithNameInContext("churn", ctx);
    for (int g = 0; g < 100; ++g)
      LLVMAddGlobal(churn, i32, "");
    LLVMDisposeModule(churn);
  }
  LLVMContextDispose(ctx);
  printf("20000 threads disposed a builder each\n");
  return 0;
}

/* Each dispose is a freeing call of its own, with a free event no other
 * record shares: 12,000 records and events, which overflow
 * history_size_mb=1 only if the events count in it. */
static int case_lone_disposes(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 12000; ++i)
    LLVMDisposeBuilder(LLVMCreateBuilderInContext(ctx));
  LLVMContextDispose(ctx);
  printf("12000 builders disposed one by one\n");
  return 0;
}

/* ---- builders left pointing into freed IR ------------------------------- */
static int case_builder(int before_instruction) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef fn =
      LLVMAddFunction(m, "foo", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(ctx, fn, "other");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef x = LLVMGetParam(fn, 0);
  LLVMValueRef anchor = LLVMBuildAdd(b, x, x, "anchor");
  if (before_instruction) {
    LLVMPositionBuilderBefore(b, anchor);
    step("erase the instruction the builder inserts before");
    LLVMInstructionEraseFromParent(anchor);
  } else {
    step("delete the block the builder inserts into");
    LLVMDeleteBasicBlock(entry);
  }
  if (fixed) {
    step("position the builder again");
    LLVMPositionBuilderAtEnd(b, other);
  }
  step("build");
  LLVMBuildAdd(b, x, x, "sum");
  LLVMBuildRet(b, x);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: lifetime CASE [--fixed]\n");
    return 2;
  }
  fixed = argc > 2 && !strcmp(argv[2], "--fixed");
  const char *c = argv[1];
  if (!strcmp(c, "pass_dce"))
    return case_pass("dce");
  if (!strcmp(c, "pass_simplifycfg"))
    return case_pass("simplifycfg");
  if (!strcmp(c, "pass_globaldce"))
    return case_pass("globaldce");
  if (!strcmp(c, "legacy_dce"))
    return case_legacy_dce();
  if (!strncmp(c, "reuse_", 6) && strcmp(c, "reuse_other_kind"))
    return case_reuse(c + 6);
  if (!strcmp(c, "reuse_other_kind"))
    return case_reuse_other_kind();
  if (!strcmp(c, "quarantine_bound"))
    return case_quarantine_bound();
  if (!strcmp(c, "history_evicted"))
    return case_history_evicted();
  if (!strcmp(c, "thread_exit"))
    return case_thread_exit();
  if (!strcmp(c, "lone_disposes"))
    return case_lone_disposes();
  if (!strcmp(c, "builder_block_deleted"))
    return case_builder(0);
  if (!strcmp(c, "builder_before_erased"))
    return case_builder(1);
  fprintf(stderr, "unknown case %s\n", c);
  return 2;
}
