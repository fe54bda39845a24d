/*===- seeded_mlir.c - MLIR-C clients with one seeded ownership bug each --===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: seeded_mlir CASE [--fixed]
 *
 * The MLIR-C twin of tests/seeded/c/seeded.c (issue 20), in its
 * conventions. Every case starts from the same tiny module, parsed in a
 * fresh context with the func, arith and scf dialects loaded:
 *
 *   module @m {
 *     func.func @f(%arg0: i32) -> i32 {
 *       %c1 = arith.constant 1 : i32
 *       %c42 = arith.constant 42 : i32        // no users: dead code
 *       %sum = arith.addi %arg0, %c1 : i32
 *       return %sum : i32
 *     }
 *     func.func @loop(%lb: index, %ub: index, %step: index) {
 *       scf.for %i = %lb to %ub step %step {
 *         %twice = arith.addi %i, %i : index
 *       }
 *       return
 *     }
 *   }
 *
 * and then makes one ownership mistake with the MLIR C API. With --fixed the
 * same steps run in a correct order (or without the extra destroy), every
 * object is destroyed, and the program exits 0.
 *
 * What ownsan must report for each case is written here, as FileCheck lines
 * right after the line that triggers it ("// CHECK-<case>: ..."), as in
 * seeded.c: the buggy run's stderr is piped into `FileCheck seeded_mlir.c
 * --check-prefix=CHECK-<case> -DPID=<its pid>`, and the prefixes are the
 * list of cases. [[@LINE-n]] is the line of the use in the case; the
 * pointers the program prints to stderr ("seeded: context = ...") are bound
 * to variables ([[CTX]]) that the report must repeat. An MLIR-C handle is a
 * struct of one pointer (MlirOperation {void *ptr;}); the program prints
 * that pointer.
 *
 * The CHECK lines hold what matters to each case (kind, handle type and
 * label, the call and argument, the freeing call and its cause, the
 * ownership chain where it says something, the SUMMARY) as the MLIR-C
 * runtime reports it; tests/mlir/CMakeLists.txt runs each case as the
 * ctest mlir.seeded.<case> (tests/seeded/check_report.py --checks this
 * file, the program linked with `ownsan link-flags` and without ownsan).
 * Two cases are not reported yet and have no test (the CMakeLists.txt
 * says why): attach_attached_op and leak_context; their CHECK lines are
 * the report they should give.
 *
 * Not a case: mlirOperationDestroy of an operation still in a block. IR.h
 * says it "takes an operation owned by the caller", but MLIR 19 and 22
 * implement it as Operation::erase (mlir/lib/CAPI/IR/IR.cpp,
 * mlirOperationDestroy -> unwrap(op)->erase()), which unlinks an attached
 * operation from its block before freeing it: no memory error (valgrind-
 * clean), so ownsan does not report it (its spec line is free(0), not
 * free_detached(0): src/profiles/mlir_c/ownership.spec).
 *
 * %c42 has no users, so it can be destroyed, moved or erased by a pass
 * without leaving a dangling use behind in the fixed runs.
 *
 * Each step is its own non-static, noinline function, so the use, free and
 * creation stacks of a report name different functions of this file. Every
 * step prints "<step>: <what it calls>" to stdout *before* calling MLIR, so
 * the last stdout line of a buggy run under ownsan is the misuse itself.
 * The handles a report talks about are printed to stderr as
 * "seeded: <role> = <pointer>" (stdout must not change from run to run).
 * Contexts are made with mlirContextCreateWithThreading(false), so the
 * passes of use_op_erased_by_pass run (and free) on thread T0 too.
 *
 * A case that the MLIR version cannot express would print "case not
 * available in MLIR <major>" and exit 77, as in seeded.c; every case exists
 * in MLIR 19. Exit 3 means the module did not parse.
 *
 * Leak cases (leak_op, leak_block, leak_region, leak_pass_manager,
 * leak_context): seeded.c has none; they run with
 * OWNSAN_OPTIONS=report_leaks=1, which their "// RUN-<case>:" line says
 * (check_report.py reads it; tests/lifetime/lifetime.c writes options the
 * same way). Their buggy run exits 0 without ownsan and reaches the end of
 * main; the leak report comes at exit, so their CHECK lines follow the line
 * that creates the leaked object, and the check of the last stdout line (a
 * report's use) does not apply to them. A pass manager is an opaque object
 * (the spec's new(ret)):
 * its leak names its C type, "1 MlirPassManager (mlir pass manager ...)".
 *
 * Build (MLIR 19; the C API is in static archives over libMLIR.so):
 *   cc -std=c11 -O0 -g -fno-omit-frame-pointer -Wall -Wextra \
 *      -I/usr/lib/llvm-19/include seeded_mlir.c -o seeded_mlir \
 *      -Wl,--start-group /usr/lib/llvm-19/lib/libMLIRCAPI*.a \
 *      -Wl,--end-group /usr/lib/llvm-19/lib/libMLIR.so \
 *      -L/usr/lib/llvm-19/lib -lLLVM -Wl,-rpath,/usr/lib/llvm-19/lib \
 *      -lstdc++ -lm
 * (the archives it needs: libMLIRCAPIIR, -Func, -Arith, -SCF, -Transforms;
 * mlirRegisterAllDialects, from libMLIRCAPIRegisterEverything, is not used.)
 *
 * Each case's comment says what the buggy run does without ownsan
 * ("native:", glibc malloc, MLIR 19.1.7 of Debian 12; it may change with
 * the allocator) and what `valgrind -q` reports. Every --fixed run is
 * valgrind-clean with no definite leak. In short:
 *
 *   case                            report              native buggy run
 *   use_op_after_module_destroy     use-after-free      exit 0
 *   use_op_after_parent_destroy     use-after-free      exit 0
 *   use_block_after_parent_destroy  use-after-free      exit 0
 *   use_region_after_parent_destroy use-after-free      exit 0
 *   use_after_context_destroy       use-after-free      exit 0
 *   use_attribute_after_context_destroy use-after-free  exit 0
 *   use_string_after_context_destroy use-after-free     exit 0
 *   double_destroy_op               double-free         SIGABRT
 *   destroy_attached_block          invalid-free        SIGSEGV later
 *   destroy_owned_op_strict         invalid-free        exit 0 (strict:
 *                                                       no memory error)
 *   use_region_after_op_create      use-after-free      exit 0
 *   destroy_region_after_op_create  double-free         SIGSEGV
 *   destroy_attached_region         invalid-free        SIGABRT
 *   attach_attached_op              invalid-transfer    SIGSEGV later
 *   use_op_erased_by_pass           use-after-free      exit 0
 *   use_op_erased_by_rewriter       use-after-free      exit 0
 *   use_value_after_op_erased       use-after-free      SIGSEGV after
 *   stale_child_after_reuse         use-after-free      exit 0 (wrong op)
 *   leak_op, leak_block, leak_region leak report        exit 0
 *   leak_pass_manager               leak report         exit 0
 *   leak_context                    leak report         exit 0
 *
 *===----------------------------------------------------------------------===*/

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/SCF.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/Rewrite.h>
#include <mlir-c/Support.h>
#include <mlir-c/Transforms.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define STEP __attribute__((noinline))

enum { EXIT_CASE_NOT_AVAILABLE = 77, EXIT_USAGE = 2, EXIT_SETUP = 3 };

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

/* An MlirStringCallback that prints to stdout; *(char *)user_data, if
 * given, keeps the last character printed. */
static void print_chunk(MlirStringRef chunk, void *user_data) {
  fwrite(chunk.data, 1, chunk.length, stdout);
  if (user_data && chunk.length)
    *(char *)user_data = chunk.data[chunk.length - 1];
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static const char tiny_module_source[] =
    "module @m {\n"
    "  func.func @f(%arg0: i32) -> i32 {\n"
    "    %c1 = arith.constant 1 : i32\n"
    "    %c42 = arith.constant 42 : i32\n"
    "    %sum = arith.addi %arg0, %c1 : i32\n"
    "    return %sum : i32\n"
    "  }\n"
    "  func.func @loop(%lb: index, %ub: index, %step: index) {\n"
    "    scf.for %i = %lb to %ub step %step {\n"
    "      %twice = arith.addi %i, %i : index\n"
    "    }\n"
    "    return\n"
    "  }\n"
    "}\n";

/* The tiny module every case starts from, and handles into it. */
struct tiny {
  MlirContext ctx;
  MlirModule mod;
  MlirBlock body;      /* the module's body */
  MlirOperation f;     /* func.func @f */
  MlirOperation c1;    /* %c1 = arith.constant 1 : i32 */
  MlirOperation c42;   /* %c42 = arith.constant 42 : i32 (dead) */
  MlirOperation sum;   /* %sum = arith.addi %arg0, %c1 */
  MlirOperation loop;  /* scf.for in @loop */
  MlirOperation twice; /* %twice = arith.addi %i, %i in the loop's body */
};

/*===-- Steps that create -------------------------------------------------===*/

STEP MlirContext make_context(void) {
  say(__func__, "mlirContextCreateWithThreading(false)");
  MlirContext ctx = mlirContextCreateWithThreading(false);
  note_handle("context", ctx.ptr);
  return ctx;
}

STEP void load_dialect(MlirContext ctx, MlirDialectHandle handle,
                       const char *name) {
  say(__func__, "mlirDialectHandleLoadDialect(%s, context)", name);
  mlirDialectHandleLoadDialect(handle, ctx);
}

STEP MlirModule parse_module(MlirContext ctx) {
  say(__func__, "mlirModuleCreateParse(context, \"module @m {...}\")");
  return mlirModuleCreateParse(ctx, str(tiny_module_source));
}

/* The first operation of the first block of `op`'s region #0. */
static MlirOperation first_nested_op(MlirOperation op) {
  MlirRegion region = mlirOperationGetRegion(op, 0);
  return mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(region));
}

STEP void find_ops(struct tiny *t) {
  say(__func__, "mlirModuleGetBody(module @m), then the first operation of "
                "each block");
  t->body = mlirModuleGetBody(t->mod);
  t->f = mlirBlockGetFirstOperation(t->body);
  MlirOperation loop_fn = mlirOperationGetNextInBlock(t->f);
  t->c1 = first_nested_op(t->f);
  t->c42 = mlirOperationGetNextInBlock(t->c1);
  t->sum = mlirOperationGetNextInBlock(t->c42);
  t->loop = first_nested_op(loop_fn);
  t->twice = first_nested_op(t->loop);
}

STEP void print_module(MlirModule mod) {
  say(__func__, "mlirOperationPrint(module @m)");
  char last = '\n';
  mlirOperationPrint(mlirModuleGetOperation(mod), print_chunk, &last);
  if (last != '\n')
    printf("\n");
}

/* Builds module @m in a new context. */
STEP int build_tiny(struct tiny *t) {
  t->ctx = make_context();
  load_dialect(t->ctx, mlirGetDialectHandle__func__(), "func");
  load_dialect(t->ctx, mlirGetDialectHandle__arith__(), "arith");
  load_dialect(t->ctx, mlirGetDialectHandle__scf__(), "scf");
  t->mod = parse_module(t->ctx);
  if (mlirModuleIsNull(t->mod)) {
    fprintf(stderr, "seeded: the module did not parse\n");
    return EXIT_SETUP;
  }
  find_ops(t);
  print_module(t->mod);
  return 0;
}

STEP MlirType make_i32_type(MlirContext ctx) {
  say(__func__, "mlirIntegerTypeGet(context, 32)");
  return mlirIntegerTypeGet(ctx, 32);
}

/* A detached `arith.constant <value> : i32`, owned by the caller. */
STEP MlirOperation make_constant(MlirContext ctx, int value) {
  say(__func__, "mlirOperationCreate(arith.constant %d : i32)", value);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirNamedAttribute attr =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")),
                            mlirIntegerAttrGet(i32, (int64_t)value));
  MlirOperationState state =
      mlirOperationStateGet(str("arith.constant"), mlirLocationUnknownGet(ctx));
  mlirOperationStateAddResults(&state, 1, &i32);
  mlirOperationStateAddAttributes(&state, 1, &attr);
  return mlirOperationCreate(&state);
}

STEP MlirRegion make_region(void) {
  say(__func__, "mlirRegionCreate()");
  return mlirRegionCreate();
}

STEP MlirBlock make_block(void) {
  say(__func__, "mlirBlockCreate(0, NULL, NULL)");
  return mlirBlockCreate(0, NULL, NULL);
}

STEP void append_block_to_region(MlirRegion region, MlirBlock block) {
  say(__func__, "mlirRegionAppendOwnedBlock(region, block)");
  mlirRegionAppendOwnedBlock(region, block);
}

/* A detached scf.execute_region that takes `region` (mlirOperationCreate
 * moves the region's blocks into the operation's own region and deletes
 * the Region object: see the region cases). */
STEP MlirOperation make_op_with_region(MlirContext ctx, MlirRegion region) {
  say(__func__, "mlirOperationCreate(scf.execute_region with region)");
  MlirOperationState state = mlirOperationStateGet(str("scf.execute_region"),
                                                   mlirLocationUnknownGet(ctx));
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  return mlirOperationCreate(&state);
}

/* mlirPassManagerCreate, with canonicalize nested on func.func. */
STEP MlirPassManager make_pass_manager(MlirContext ctx) {
  say(__func__, "mlirPassManagerCreate(context)");
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager on_funcs =
      mlirPassManagerGetNestedUnder(pm, str("func.func"));
  mlirOpPassManagerAddOwnedPass(on_funcs, mlirCreateTransformsCanonicalizer());
  return pm;
}

/*===-- Steps that free ---------------------------------------------------===*/

STEP void destroy_the_module(MlirModule mod) {
  say(__func__, "mlirModuleDestroy(module @m)");
  mlirModuleDestroy(mod);
}

STEP void destroy_the_context(MlirContext ctx) {
  say(__func__, "mlirContextDestroy(context)");
  mlirContextDestroy(ctx);
}

STEP void destroy_the_op(MlirOperation op, const char *label) {
  say(__func__, "mlirOperationDestroy(%s)", label);
  mlirOperationDestroy(op);
}

STEP void destroy_op_again(MlirOperation op, const char *label) {
  say(__func__, "mlirOperationDestroy(%s)", label);
  mlirOperationDestroy(op);
}

STEP void destroy_the_block(MlirBlock block) {
  say(__func__, "mlirBlockDestroy(block)");
  mlirBlockDestroy(block);
}

STEP void destroy_the_region(MlirRegion region) {
  say(__func__, "mlirRegionDestroy(region)");
  mlirRegionDestroy(region);
}

STEP void destroy_the_pass_manager(MlirPassManager pm) {
  say(__func__, "mlirPassManagerDestroy(pass manager)");
  mlirPassManagerDestroy(pm);
}

/* Detaches `op` and destroys it: the C API's erase. */
STEP void erase_the_op(MlirOperation op, const char *label) {
  say(__func__, "mlirOperationRemoveFromParent(%s)", label);
  mlirOperationRemoveFromParent(op);
  destroy_the_op(op, label);
}

/*===-- Steps that detach, attach and transform ---------------------------===*/

STEP void detach_the_op(MlirOperation op, const char *label) {
  say(__func__, "mlirOperationRemoveFromParent(%s)", label);
  mlirOperationRemoveFromParent(op);
}

STEP void detach_the_block(MlirBlock block) {
  say(__func__, "mlirBlockDetach(block)");
  mlirBlockDetach(block);
}

STEP void append_op_to_module_body(MlirBlock body, MlirOperation op,
                                   const char *label) {
  say(__func__, "mlirBlockAppendOwnedOperation(body of module @m, %s)", label);
  mlirBlockAppendOwnedOperation(body, op);
}

STEP void run_passes(MlirPassManager pm, MlirModule mod) {
  say(__func__, "mlirPassManagerRunOnOp(pass manager, module @m)");
  MlirLogicalResult result =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(mod));
  say(__func__, "%s",
      mlirLogicalResultIsSuccess(result) ? "success" : "failure");
}

STEP MlirRegion region_of_op(MlirOperation op) {
  say(__func__, "mlirOperationGetRegion(scf.execute_region, 0)");
  return mlirOperationGetRegion(op, 0);
}

/*===-- Steps that use ----------------------------------------------------===*/

STEP void use_op_name(MlirOperation op, const char *label) {
  say(__func__, "mlirOperationGetName(%s)", label);
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef s = mlirIdentifierStr(name);
  say(__func__, "got \"%.*s\"", (int)s.length, s.data);
}

STEP void use_type_width(MlirType type) {
  say(__func__, "mlirIntegerTypeGetWidth(i32)");
  unsigned width = mlirIntegerTypeGetWidth(type);
  say(__func__, "got %u", width);
}

STEP void use_value_type(MlirValue value) {
  say(__func__, "mlirValueGetType(%%c42)");
  MlirType type = mlirValueGetType(value);
  printf("%s: got ", __func__);
  mlirTypePrint(type, print_chunk, NULL);
  printf("\n");
}

STEP void use_region_first_block(MlirRegion region) {
  say(__func__, "mlirRegionGetFirstBlock(region)");
  MlirBlock block = mlirRegionGetFirstBlock(region);
  say(__func__, "got %s", mlirBlockIsNull(block) ? "no block" : "a block");
}

STEP void use_block_first_op(MlirBlock block) {
  say(__func__, "mlirBlockGetFirstOperation(block)");
  MlirOperation op = mlirBlockGetFirstOperation(block);
  say(__func__, "got %s",
      mlirOperationIsNull(op) ? "no operation" : "an operation");
}

STEP MlirAttribute make_int_attr(MlirContext ctx) {
  say(__func__, "mlirIntegerAttrGet(i32, 7)");
  return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 7);
}

STEP void use_int_attr(MlirAttribute attr) {
  say(__func__, "mlirIntegerAttrGetValueInt(7 : i32)");
  say(__func__, "got %lld", (long long)mlirIntegerAttrGetValueInt(attr));
}

/*===-- The cases ---------------------------------------------------------===*/
/*
 * Each case ends by destroying what is left, the module before its context
 * (MLIR's context does not own modules: a module outliving its context is
 * a leak, and destroying it afterwards reads the dead context).
 */

/* The func.func op belongs to module @m: mlirModuleDestroy frees it.
 * valgrind: "Invalid read of size 8" in mlirOperationGetName, inside @f's
 * block freed by Block::~Block under Operation::erase in mlirModuleDestroy.
 * (mlirOperationGetName and the other one-line C API functions are leaves:
 * valgrind names their caller's line as the innermost frame.)
 * native: exits 0 silently ("func.func": the freed memory still holds it). */
STEP int case_use_op_after_module_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_op_after_module_destroy: seeded: context = [[CTX:0x[0-9a-f]+]]
  note_handle("subject", t.f.ptr);
  // CHECK-use_op_after_module_destroy: seeded: subject = [[F:0x[0-9a-f]+]]
  if (fixed) {
    use_op_name(t.f, "func.func @f");
    destroy_the_module(t.mod);
  } else {
    destroy_the_module(t.mod);
    use_op_name(t.f, "func.func @f"); /* BUG: @f died with its module. */
    // CHECK-use_op_after_module_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirOperation [[F]] (operation "func.func" @f in block #0 of region #0 of module @m){{$}}
    // CHECK-use_op_after_module_destroy-NEXT: passed as argument 1 of mlirOperationGetName on thread T0:
    // CHECK-use_op_after_module_destroy-NEXT: #0 {{.*}} in use_op_name {{.*}}seeded_mlir.c:
    // CHECK-use_op_after_module_destroy-NEXT: #1 {{.*}} in case_use_op_after_module_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_op_after_module_destroy: freed by mlirModuleDestroy(module @m) on thread T0, because it belonged to that module:
    // CHECK-use_op_after_module_destroy-NEXT: #0 {{.*}} in destroy_the_module {{.*}}seeded_mlir.c:
    // CHECK-use_op_after_module_destroy: ownership chain when freed: context [[CTX]] -> module @m -> region #0 -> block #0 -> operation "func.func" @f{{$}}
    // CHECK-use_op_after_module_destroy: SUMMARY: OwnSan: use-after-free in mlirOperationGetName {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_op_name{{$}}
  }
  destroy_the_context(t.ctx);
  return 0;
}

/* %twice lives in the body of the scf.for, which the caller detached (so
 * owns) and destroyed.
 * valgrind: "Invalid read of size 8" in mlirOperationGetName, inside
 * %twice's block freed by Block::~Block under mlirOperationDestroy of the
 * scf.for.
 * native: exits 0 silently ("arith.addi"). */
STEP int case_use_op_after_parent_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  note_handle("subject", t.twice.ptr);
  // CHECK-use_op_after_parent_destroy: seeded: subject = [[TWICE:0x[0-9a-f]+]]
  if (fixed)
    use_op_name(t.twice, "%twice");
  detach_the_op(t.loop, "scf.for");
  destroy_the_op(t.loop, "scf.for");
  if (!fixed) {
    use_op_name(t.twice, "%twice"); /* BUG: died with the scf.for. */
    // CHECK-use_op_after_parent_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirOperation [[TWICE]] (operation "arith.addi" in block #0 of region #0 of operation "scf.for"){{$}}
    // CHECK-use_op_after_parent_destroy-NEXT: passed as argument 1 of mlirOperationGetName on thread T0:
    // CHECK-use_op_after_parent_destroy-NEXT: #0 {{.*}} in use_op_name {{.*}}seeded_mlir.c:
    // CHECK-use_op_after_parent_destroy-NEXT: #1 {{.*}} in case_use_op_after_parent_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_op_after_parent_destroy: freed by mlirOperationDestroy(operation "scf.for") on thread T0, because it belonged to that operation:
    // CHECK-use_op_after_parent_destroy-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-use_op_after_parent_destroy: ownership chain when freed: operation "scf.for" -> region #0 -> block #0 -> operation "arith.addi"{{$}}
    // CHECK-use_op_after_parent_destroy: SUMMARY: OwnSan: use-after-free in mlirOperationGetName {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_op_name{{$}}
  }
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* The body block of the scf.for, which the caller detached (so owns) and
 * destroyed with its region.
 * valgrind: "Invalid read of size 8" in mlirBlockGetFirstOperation, 32
 * bytes inside the 72-byte Block freed under mlirOperationDestroy of the
 * scf.for.
 * native: exits 0 silently ("got no operation": the freed block's list
 * reads empty). */
STEP int case_use_block_after_parent_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(t.loop, 0));
  note_handle("subject", body.ptr);
  // CHECK-use_block_after_parent_destroy: seeded: subject = [[BODY:0x[0-9a-f]+]]
  if (fixed)
    use_block_first_op(body);
  detach_the_op(t.loop, "scf.for");
  destroy_the_op(t.loop, "scf.for");
  if (!fixed) {
    use_block_first_op(body); /* BUG: died with the scf.for. */
    // CHECK-use_block_after_parent_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirBlock [[BODY]] (block #0 of region #0 of operation "scf.for"){{$}}
    // CHECK-use_block_after_parent_destroy-NEXT: passed as argument 1 of mlirBlockGetFirstOperation on thread T0:
    // CHECK-use_block_after_parent_destroy-NEXT: #0 {{.*}} in use_block_first_op {{.*}}seeded_mlir.c:
    // CHECK-use_block_after_parent_destroy-NEXT: #1 {{.*}} in case_use_block_after_parent_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_block_after_parent_destroy: freed by mlirOperationDestroy(operation "scf.for") on thread T0, because it belonged to that operation:
    // CHECK-use_block_after_parent_destroy-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-use_block_after_parent_destroy: ownership chain when freed: operation "scf.for" -> region #0 -> block #0{{$}}
    // CHECK-use_block_after_parent_destroy: SUMMARY: OwnSan: use-after-free in mlirBlockGetFirstOperation {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_block_first_op{{$}}
  }
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* The body region of the scf.for, which the caller detached and destroyed.
 * valgrind: "Invalid read of size 8" in use_region_first_block (the
 * inlined mlirRegionGetFirstBlock), 80 bytes inside the scf.for's
 * 200-byte malloc block (the region lives in its operation's allocation),
 * freed by mlirOperationDestroy.
 * native: exits 0 silently ("got no block"). */
STEP int case_use_region_after_parent_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirRegion body = mlirOperationGetRegion(t.loop, 0);
  note_handle("subject", body.ptr);
  // CHECK-use_region_after_parent_destroy: seeded: subject = [[REGION:0x[0-9a-f]+]]
  if (fixed)
    use_region_first_block(body);
  detach_the_op(t.loop, "scf.for");
  destroy_the_op(t.loop, "scf.for");
  if (!fixed) {
    use_region_first_block(body); /* BUG: died with the scf.for. */
    // CHECK-use_region_after_parent_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirRegion [[REGION]] (region #0 of operation "scf.for"){{$}}
    // CHECK-use_region_after_parent_destroy-NEXT: passed as argument 1 of mlirRegionGetFirstBlock on thread T0:
    // CHECK-use_region_after_parent_destroy-NEXT: #0 {{.*}} in use_region_first_block {{.*}}seeded_mlir.c:
    // CHECK-use_region_after_parent_destroy-NEXT: #1 {{.*}} in case_use_region_after_parent_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_region_after_parent_destroy: freed by mlirOperationDestroy(operation "scf.for") on thread T0, because it belonged to that operation:
    // CHECK-use_region_after_parent_destroy-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-use_region_after_parent_destroy: ownership chain when freed: operation "scf.for" -> region #0{{$}}
    // CHECK-use_region_after_parent_destroy: SUMMARY: OwnSan: use-after-free in mlirRegionGetFirstBlock {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_region_first_block{{$}}
  }
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* Attributes are uniqued in their context too.
 * valgrind: "Invalid read of size 4" in IntegerAttr::getInt under
 * mlirIntegerAttrGetValueInt, inside a 4,096-byte slab of the context's
 * allocator freed by mlirContextDestroy.
 * native: exits 0 silently ("got 7", read from the freed slab). */
STEP int case_use_attribute_after_context_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_attribute_after_context_destroy: seeded: context = [[CTX:0x[0-9a-f]+]]
  MlirAttribute seven = make_int_attr(t.ctx);
  note_handle("subject", seven.ptr);
  // CHECK-use_attribute_after_context_destroy: seeded: subject = [[ATTR:0x[0-9a-f]+]]
  destroy_the_module(t.mod);
  if (fixed) {
    use_int_attr(seven);
    destroy_the_context(t.ctx);
  } else {
    destroy_the_context(t.ctx);
    use_int_attr(seven); /* BUG: the attribute died with its context. */
    // CHECK-use_attribute_after_context_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirAttribute [[ATTR]] (attribute 7 : i32){{$}}
    // CHECK-use_attribute_after_context_destroy-NEXT: passed as argument 1 of mlirIntegerAttrGetValueInt on thread T0:
    // CHECK-use_attribute_after_context_destroy-NEXT: #0 {{.*}} in use_int_attr {{.*}}seeded_mlir.c:
    // CHECK-use_attribute_after_context_destroy-NEXT: #1 {{.*}} in case_use_attribute_after_context_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_attribute_after_context_destroy: freed by mlirContextDestroy(context [[CTX]]) on thread T0, because it belonged to that context:
    // CHECK-use_attribute_after_context_destroy-NEXT: #0 {{.*}} in destroy_the_context {{.*}}seeded_mlir.c:
    // CHECK-use_attribute_after_context_destroy: created by mlirIntegerAttrGet on thread T0:
    // CHECK-use_attribute_after_context_destroy-NEXT: #0 {{.*}} in make_int_attr {{.*}}seeded_mlir.c:
    // CHECK-use_attribute_after_context_destroy: ownership chain when freed: context [[CTX]] -> attribute 7 : i32{{$}}
    // CHECK-use_attribute_after_context_destroy: SUMMARY: OwnSan: use-after-free in mlirIntegerAttrGetValueInt {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_int_attr{{$}}
  }
  return 0;
}

/* Types are uniqued in their context: i32 dies with it. Both runs destroy
 * the module first.
 * valgrind: "Invalid read of size 4" in IntegerType::getWidth under
 * mlirIntegerTypeGetWidth, inside the StorageUniquer's slab freed by
 * MLIRContext::~MLIRContext in mlirContextDestroy.
 * native: exits 0 silently ("got 32"). */
STEP int case_use_after_context_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_after_context_destroy: seeded: context = [[CTX:0x[0-9a-f]+]]
  MlirType i32 = make_i32_type(t.ctx);
  note_handle("subject", i32.ptr);
  // CHECK-use_after_context_destroy: seeded: subject = [[I32:0x[0-9a-f]+]]
  destroy_the_module(t.mod);
  if (fixed) {
    use_type_width(i32);
    destroy_the_context(t.ctx);
  } else {
    destroy_the_context(t.ctx);
    use_type_width(i32); /* BUG: i32 died with its context. */
    // CHECK-use_after_context_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirType [[I32]] (type i32){{$}}
    // CHECK-use_after_context_destroy-NEXT: passed as argument 1 of mlirIntegerTypeGetWidth on thread T0:
    // CHECK-use_after_context_destroy-NEXT: #0 {{.*}} in use_type_width {{.*}}seeded_mlir.c:
    // CHECK-use_after_context_destroy-NEXT: #1 {{.*}} in case_use_after_context_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_after_context_destroy: freed by mlirContextDestroy(context [[CTX]]) on thread T0, because it belonged to that context:
    // CHECK-use_after_context_destroy-NEXT: #0 {{.*}} in destroy_the_context {{.*}}seeded_mlir.c:
    // CHECK-use_after_context_destroy: ownership chain when freed: context [[CTX]] -> type i32{{$}}
    // CHECK-use_after_context_destroy: SUMMARY: OwnSan: use-after-free in mlirIntegerTypeGetWidth {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_type_width{{$}}
  }
  return 0;
}

/* A binding keeps the MlirStringRef mlirStringAttrGetValue lent (@f's
 * name: the bytes belong to the context, in its attribute storage) and
 * passes it back to MLIR after mlirContextDestroy.
 * valgrind: "Invalid read of size 1" in mlir::StringAttr::get under
 * mlirStringAttrGet, 1,120 bytes inside a 4,096-byte block (a slab of the
 * context's allocator) freed by mlirContextDestroy.
 * native: exits 0 silently, having copied whatever the freed slab held. */
STEP MlirStringRef keep_symbol_name(MlirOperation op) {
  say(__func__, "mlirStringAttrGetValue(sym_name of @f)");
  MlirAttribute name = mlirOperationGetAttributeByName(op, str("sym_name"));
  return mlirStringAttrGetValue(name);
}

STEP void use_kept_string(MlirContext ctx, MlirStringRef s) {
  say(__func__, "mlirStringAttrGet(ctx, kept name)");
  MlirAttribute copy = mlirStringAttrGet(ctx, s);
  say(__func__, "mlirStringAttrGet -> %s",
      mlirAttributeIsNull(copy) ? "null" : "an attribute");
}

STEP int case_use_string_after_context_destroy(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_string_after_context_destroy: seeded: context = [[CTX:0x[0-9a-f]+]]
  MlirStringRef name = keep_symbol_name(t.f);
  note_handle("subject", name.data);
  // CHECK-use_string_after_context_destroy: seeded: subject = [[S:0x[0-9a-f]+]]
  destroy_the_module(t.mod);
  MlirContext other = make_context();
  if (fixed) {
    use_kept_string(other, name);
    destroy_the_context(t.ctx);
  } else {
    destroy_the_context(t.ctx);
    use_kept_string(other, name); /* BUG: the bytes died with t.ctx. */
    // CHECK-use_string_after_context_destroy: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirStringRef [[S]] (string [[S]] "f"){{$}}
    // CHECK-use_string_after_context_destroy-NEXT: passed as argument 2 of mlirStringAttrGet on thread T0:
    // CHECK-use_string_after_context_destroy-NEXT: #0 {{.*}} in use_kept_string {{.*}}seeded_mlir.c:
    // CHECK-use_string_after_context_destroy-NEXT: #1 {{.*}} in case_use_string_after_context_destroy {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_string_after_context_destroy: freed by mlirContextDestroy(context [[CTX]]) on thread T0, because it belonged to that context:
    // CHECK-use_string_after_context_destroy-NEXT: #0 {{.*}} in destroy_the_context {{.*}}seeded_mlir.c:
    // CHECK-use_string_after_context_destroy: created by mlirStringAttrGetValue on thread T0:
    // CHECK-use_string_after_context_destroy-NEXT: #0 {{.*}} in keep_symbol_name {{.*}}seeded_mlir.c:
    // CHECK-use_string_after_context_destroy: ownership chain when freed: context [[CTX]] -> string [[S]] "f"{{$}}
    // CHECK-use_string_after_context_destroy: SUMMARY: OwnSan: use-after-free in mlirStringAttrGet {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_kept_string{{$}}
  }
  destroy_the_context(other);
  return 0;
}

/* valgrind: invalid reads in Operation::erase and an "Invalid free()" in
 * the second mlirOperationDestroy.
 * native: SIGABRT in the second mlirOperationDestroy ("free(): double free
 * detected in tcache 2"). */
STEP int case_double_destroy_op(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirOperation op = make_constant(t.ctx, 7);
  note_handle("subject", op.ptr);
  // CHECK-double_destroy_op: seeded: subject = [[OP:0x[0-9a-f]+]]
  destroy_the_op(op, "arith.constant 7");
  if (!fixed) {
    destroy_op_again(op, "arith.constant 7"); /* BUG: already destroyed. */
    // CHECK-double_destroy_op: ==[[PID]]==ERROR: OwnSan: double-free on MlirOperation [[OP]] (operation "arith.constant"){{$}}
    // CHECK-double_destroy_op-NEXT: passed as argument 1 of mlirOperationDestroy on thread T0:
    // CHECK-double_destroy_op-NEXT: #0 {{.*}} in destroy_op_again {{.*}}seeded_mlir.c:
    // CHECK-double_destroy_op-NEXT: #1 {{.*}} in case_double_destroy_op {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-double_destroy_op: freed by mlirOperationDestroy(operation "arith.constant") on thread T0:{{$}}
    // CHECK-double_destroy_op-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-double_destroy_op: created by mlirOperationCreate on thread T0:
    // CHECK-double_destroy_op-NEXT: #0 {{.*}} in make_constant {{.*}}seeded_mlir.c:
    // CHECK-double_destroy_op: SUMMARY: OwnSan: double-free in mlirOperationDestroy {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in destroy_op_again{{$}}
  }
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* mlirBlockDestroy takes a block owned by the caller (`delete`); once
 * appended, the block is its region's, which still links it.
 * valgrind: nothing in mlirBlockDestroy itself; then invalid reads and
 * writes in Block::dropAllReferences and an "Invalid free()" when
 * mlirRegionDestroy walks the region's block list, which still links the
 * freed block.
 * native: SIGSEGV in mlirRegionDestroy (Region::~Region). */
STEP int case_destroy_attached_block(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirRegion region = make_region();
  MlirBlock block = make_block();
  note_handle("subject", block.ptr);
  // CHECK-destroy_attached_block: seeded: subject = [[B:0x[0-9a-f]+]]
  note_handle("region", region.ptr);
  // CHECK-destroy_attached_block: seeded: region = [[R:0x[0-9a-f]+]]
  append_block_to_region(region, block);
  if (fixed)
    detach_the_block(block);
  destroy_the_block(block); /* BUG unless detached: still in the region. */
  // CHECK-destroy_attached_block: ==[[PID]]==ERROR: OwnSan: invalid-free on MlirBlock [[B]] (block #0 of region [[R]]){{$}}
  // CHECK-destroy_attached_block-NEXT: mlirBlockDestroy frees only detached blocks; this one is still in region [[R]]{{$}}
  // CHECK-destroy_attached_block-NEXT: passed as argument 1 of mlirBlockDestroy on thread T0:
  // CHECK-destroy_attached_block-NEXT: #0 {{.*}} in destroy_the_block {{.*}}seeded_mlir.c:
  // CHECK-destroy_attached_block-NEXT: #1 {{.*}} in case_destroy_attached_block {{.*}}seeded_mlir.c:[[@LINE-5]]:
  // CHECK-destroy_attached_block-NOT: freed
  // CHECK-destroy_attached_block: ownership chain: region [[R]] -> block #0{{$}}
  // CHECK-destroy_attached_block: SUMMARY: OwnSan: invalid-free in mlirBlockDestroy {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in destroy_the_block{{$}}
  destroy_the_region(region);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* mlirOperationDestroy takes "an operation owned by the caller" (IR.h),
 * but MLIR 19 and 22 implement it with Operation::erase, which unlinks an
 * attached operation first: no memory error follows, so ownsan reports it
 * only with strict_ownership=1, and lets the call go ahead.
 * valgrind: clean.
 * native: exits 0 (%c42 gone from @f). */
STEP int case_destroy_owned_op_strict(bool fixed) {
  // RUN-destroy_owned_op_strict: OWNSAN_OPTIONS=strict_ownership=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  note_handle("subject", t.c42.ptr);
  // CHECK-destroy_owned_op_strict: seeded: subject = [[C42:0x[0-9a-f]+]]
  if (fixed)
    detach_the_op(t.c42, "%c42");
  destroy_the_op(t.c42, "%c42"); /* BUG unless detached: @f's block owns it. */
  // CHECK-destroy_owned_op_strict: ==[[PID]]==ERROR: OwnSan: invalid-free on MlirOperation [[C42]] (operation "arith.constant" in block #0 of region #0 of operation "func.func" @f in block #0 of region #0 of module @m){{$}}
  // CHECK-destroy_owned_op_strict-NEXT: mlirOperationDestroy frees only detached operations; this one is still in block #0 (the header's contract: MLIR unlinks it first, so no memory error follows; reported because strict_ownership=1){{$}}
  // CHECK-destroy_owned_op_strict-NEXT: passed as argument 1 of mlirOperationDestroy on thread T0:
  // CHECK-destroy_owned_op_strict-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
  // CHECK-destroy_owned_op_strict-NEXT: #1 {{.*}} in case_destroy_owned_op_strict {{.*}}seeded_mlir.c:[[@LINE-5]]:
  // CHECK-destroy_owned_op_strict: SUMMARY: OwnSan: invalid-free in mlirOperationDestroy {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in destroy_the_op{{$}}
  print_module(t.mod);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* The region cases. In MLIR 19, mlirOperationCreate (mlir/lib/CAPI/IR/
 * IR.cpp) wraps each region of the state in a std::unique_ptr<Region> held
 * by its C++ OperationState (`cppState.addRegion(std::unique_ptr<Region>(
 * unwrap(state->regions[i])))`); Operation::create (mlir/lib/IR/
 * Operation.cpp) builds the operation's own regions inside its allocation
 * and moves each given region's blocks into them (`op->getRegion(i)
 * .takeBody(*regions[i])`); the OperationState's destructor then deletes
 * the emptied Region objects when mlirOperationCreate returns. So the
 * MlirRegion given to mlirOperationStateAddOwnedRegions is freed by
 * mlirOperationCreate (IR.h: "caller owned child objects are transferred in
 * this call and must not be further used"), and the operation's region is
 * another object (mlirOperationGetRegion), which only the operation frees. */

/* valgrind: "Invalid read of size 8" in mlirRegionGetFirstBlock, inside
 * the 24-byte Region freed by OperationState::~OperationState in
 * mlirOperationCreate (which confirms the above on MLIR 19.1.7).
 * native: exits 0 silently ("got a block": garbage read as a block). */
STEP int case_use_region_after_op_create(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirRegion region = make_region();
  append_block_to_region(region, make_block());
  note_handle("subject", region.ptr);
  // CHECK-use_region_after_op_create: seeded: subject = [[R:0x[0-9a-f]+]]
  MlirOperation op = make_op_with_region(t.ctx, region);
  if (fixed) {
    use_region_first_block(region_of_op(op));
  } else {
    use_region_first_block(region); /* BUG: mlirOperationCreate took it. */
    // CHECK-use_region_after_op_create: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirRegion [[R]] (region [[R]]){{$}}
    // CHECK-use_region_after_op_create-NEXT: passed as argument 1 of mlirRegionGetFirstBlock on thread T0:
    // CHECK-use_region_after_op_create-NEXT: #0 {{.*}} in use_region_first_block {{.*}}seeded_mlir.c:
    // CHECK-use_region_after_op_create-NEXT: #1 {{.*}} in case_use_region_after_op_create {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_region_after_op_create: freed during mlirOperationCreate on thread T0, by MLIR itself:
    // CHECK-use_region_after_op_create-NEXT: #0 {{.*}} in make_op_with_region {{.*}}seeded_mlir.c:
    // CHECK-use_region_after_op_create: SUMMARY: OwnSan: use-after-free in mlirRegionGetFirstBlock {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_region_first_block{{$}}
  }
  destroy_the_op(op, "scf.execute_region");
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* valgrind: "Invalid read of size 8" in Region::~Region and an "Invalid
 * free()" in mlirRegionDestroy, of the Region that OperationState::
 * ~OperationState freed in mlirOperationCreate.
 * native: SIGSEGV in mlirRegionDestroy (Block::dropAllReferences under
 * Region::~Region). */
STEP int case_destroy_region_after_op_create(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirRegion region = make_region();
  append_block_to_region(region, make_block());
  note_handle("subject", region.ptr);
  // CHECK-destroy_region_after_op_create: seeded: subject = [[R:0x[0-9a-f]+]]
  MlirOperation op = make_op_with_region(t.ctx, region);
  if (!fixed) {
    destroy_the_region(region); /* BUG: mlirOperationCreate deleted it. */
    // CHECK-destroy_region_after_op_create: ==[[PID]]==ERROR: OwnSan: double-free on MlirRegion [[R]] (region [[R]]){{$}}
    // CHECK-destroy_region_after_op_create-NEXT: passed as argument 1 of mlirRegionDestroy on thread T0:
    // CHECK-destroy_region_after_op_create-NEXT: #0 {{.*}} in destroy_the_region {{.*}}seeded_mlir.c:
    // CHECK-destroy_region_after_op_create-NEXT: #1 {{.*}} in case_destroy_region_after_op_create {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-destroy_region_after_op_create: freed during mlirOperationCreate on thread T0, by MLIR itself:
    // CHECK-destroy_region_after_op_create-NEXT: #0 {{.*}} in make_op_with_region {{.*}}seeded_mlir.c:
    // CHECK-destroy_region_after_op_create: SUMMARY: OwnSan: double-free in mlirRegionDestroy {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in destroy_the_region{{$}}
  }
  destroy_the_op(op, "scf.execute_region");
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* The operation's own region lives inside the operation's allocation:
 * mlirRegionDestroy `delete`s a pointer that malloc never returned.
 * valgrind: "Invalid free()" in mlirRegionDestroy, 64 bytes inside the
 * operation's block (malloc'd by Operation::create).
 * native: SIGABRT in mlirRegionDestroy ("free(): invalid size"). */
STEP int case_destroy_attached_region(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-destroy_attached_region: seeded: context = [[CTX:0x[0-9a-f]+]]
  MlirRegion given = make_region();
  append_block_to_region(given, make_block());
  MlirOperation op = make_op_with_region(t.ctx, given);
  MlirRegion region = region_of_op(op);
  note_handle("subject", region.ptr);
  // CHECK-destroy_attached_region: seeded: subject = [[R:0x[0-9a-f]+]]
  if (!fixed) {
    destroy_the_region(region); /* BUG: the operation's region. */
    // CHECK-destroy_attached_region: ==[[PID]]==ERROR: OwnSan: invalid-free on MlirRegion [[R]] (region #0 of operation "scf.execute_region"){{$}}
    // CHECK-destroy_attached_region-NEXT: mlirRegionDestroy frees only detached regions; this one is still in operation "scf.execute_region"{{$}}
    // CHECK-destroy_attached_region-NEXT: passed as argument 1 of mlirRegionDestroy on thread T0:
    // CHECK-destroy_attached_region-NEXT: #0 {{.*}} in destroy_the_region {{.*}}seeded_mlir.c:
    // CHECK-destroy_attached_region-NEXT: #1 {{.*}} in case_destroy_attached_region {{.*}}seeded_mlir.c:[[@LINE-5]]:
    // CHECK-destroy_attached_region-NOT: freed
    // CHECK-destroy_attached_region: ownership chain: context [[CTX]] -> operation "scf.execute_region" -> region #0{{$}}
    // CHECK-destroy_attached_region: SUMMARY: OwnSan: invalid-free in mlirRegionDestroy {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in destroy_the_region{{$}}
  }
  destroy_the_op(op, "scf.execute_region");
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* mlirBlockAppendOwnedOperation takes an operation the caller owns; %c42
 * is still in @f's entry block. (Moving it: mlirOperationRemoveFromParent
 * first, or mlirOperationMoveAfter/Before.)
 * Release builds of MLIR skip ilist_traits<Operation>::addNodeToList's
 * "already in an operation block!" assertion: %c42 ends up linked into
 * both blocks, and the damage shows in the next walk.
 * valgrind: nothing in mlirBlockAppendOwnedOperation; then an "Invalid read
 * of size 4" in mlir::verify under mlirOperationPrint (print_module), and
 * the run never ends (stopped after 600 s).
 * native: SIGSEGV in mlirOperationPrint (print_module; the verifier walks
 * the corrupted lists). */
STEP int case_attach_attached_op(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  note_handle("subject", t.c42.ptr);
  // CHECK-attach_attached_op: seeded: subject = [[C42:0x[0-9a-f]+]]
  if (fixed)
    detach_the_op(t.c42, "%c42");
  append_op_to_module_body(t.body, t.c42, "%c42"); /* BUG unless detached. */
  // CHECK-attach_attached_op: ==[[PID]]==ERROR: OwnSan: invalid-transfer on MlirOperation [[C42]] (operation "arith.constant" in block #0 of region #0 of operation "func.func" @f in block #0 of region #0 of module @m){{$}}
  // CHECK-attach_attached_op-NEXT: {{.*}}mlirBlockAppendOwnedOperation{{.*}}
  // CHECK-attach_attached_op-NEXT: passed as argument 2 of mlirBlockAppendOwnedOperation on thread T0:
  // CHECK-attach_attached_op-NEXT: #0 {{.*}} in append_op_to_module_body {{.*}}seeded_mlir.c:
  // CHECK-attach_attached_op-NEXT: #1 {{.*}} in case_attach_attached_op {{.*}}seeded_mlir.c:[[@LINE-5]]:
  // CHECK-attach_attached_op: SUMMARY: OwnSan: invalid-transfer in mlirBlockAppendOwnedOperation {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in append_op_to_module_body{{$}}
  print_module(t.mod);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* canonicalize erases the dead %c42 (and the scf.for, whose body does
 * nothing) while the caller still holds %c42.
 * valgrind: "Invalid read of size 8" in mlirOperationGetName, inside %c42's
 * block freed by RewriterBase::eraseOp under applyPatternsAndFoldGreedily
 * in mlirPassManagerRunOnOp.
 * native: exits 0 silently ("arith.constant"). */
STEP int case_use_op_erased_by_pass(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_op_erased_by_pass: seeded: context = [[CTX:0x[0-9a-f]+]]
  MlirPassManager pm = make_pass_manager(t.ctx);
  note_handle("subject", t.c42.ptr);
  // CHECK-use_op_erased_by_pass: seeded: subject = [[C42:0x[0-9a-f]+]]
  if (fixed)
    use_op_name(t.c42, "%c42");
  run_passes(pm, t.mod);
  if (!fixed) {
    use_op_name(t.c42, "%c42"); /* BUG: canonicalize erased it. */
    // CHECK-use_op_erased_by_pass: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirOperation [[C42]] (operation "arith.constant" in block #0 of region #0 of operation "func.func" @f in block #0 of region #0 of module @m){{$}}
    // CHECK-use_op_erased_by_pass-NEXT: passed as argument 1 of mlirOperationGetName on thread T0:
    // CHECK-use_op_erased_by_pass-NEXT: #0 {{.*}} in use_op_name {{.*}}seeded_mlir.c:
    // CHECK-use_op_erased_by_pass-NEXT: #1 {{.*}} in case_use_op_erased_by_pass {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_op_erased_by_pass: freed during mlirPassManagerRunOnOp on thread T0, by MLIR itself:
    // CHECK-use_op_erased_by_pass-NEXT: #0 {{.*}} in run_passes {{.*}}seeded_mlir.c:
    // CHECK-use_op_erased_by_pass: ownership chain when freed: context [[CTX]] -> module @m -> region #0 -> block #0 -> operation "func.func" @f -> region #0 -> block #0 -> operation "arith.constant"{{$}}
    // CHECK-use_op_erased_by_pass: SUMMARY: OwnSan: use-after-free in mlirOperationGetName {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_op_name{{$}}
  }
  print_module(t.mod);
  destroy_the_pass_manager(pm);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* A rewrite erases the scf.for (mlirRewriterBaseEraseOp, as a pattern's
 * rewriter does) with its body, while the caller still holds %twice.
 * valgrind: "Invalid read of size 8" in mlirOperationGetName, inside
 * %twice's block freed by Block::~Block under RewriterBase::eraseOp.
 * native: exits 0 silently ("arith.addi"). */
STEP void erase_with_rewriter(MlirOperation op, const char *label) {
  say(__func__, "mlirRewriterBaseEraseOp(rewriter, %s)", label);
  MlirRewriterBase rewriter = mlirIRRewriterCreateFromOp(op);
  mlirRewriterBaseEraseOp(rewriter, op);
  mlirIRRewriterDestroy(rewriter);
}

STEP int case_use_op_erased_by_rewriter(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-use_op_erased_by_rewriter: seeded: context = [[CTX:0x[0-9a-f]+]]
  note_handle("subject", t.twice.ptr);
  // CHECK-use_op_erased_by_rewriter: seeded: subject = [[TWICE:0x[0-9a-f]+]]
  if (fixed)
    use_op_name(t.twice, "%twice");
  erase_with_rewriter(t.loop, "scf.for");
  if (!fixed) {
    use_op_name(t.twice, "%twice"); /* BUG: erased with the scf.for. */
    // CHECK-use_op_erased_by_rewriter: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirOperation [[TWICE]] (operation "arith.addi" in block #0 of region #0 of operation "scf.for" in block #0 of region #0 of operation "func.func" @loop in block #0 of region #0 of module @m){{$}}
    // CHECK-use_op_erased_by_rewriter-NEXT: passed as argument 1 of mlirOperationGetName on thread T0:
    // CHECK-use_op_erased_by_rewriter-NEXT: #0 {{.*}} in use_op_name {{.*}}seeded_mlir.c:
    // CHECK-use_op_erased_by_rewriter-NEXT: #1 {{.*}} in case_use_op_erased_by_rewriter {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_op_erased_by_rewriter: freed by mlirRewriterBaseEraseOp(operation "scf.for" in block #0 of region #0 of operation "func.func" @loop in block #0 of region #0 of module @m) on thread T0, because it belonged to that operation:
    // CHECK-use_op_erased_by_rewriter-NEXT: #0 {{.*}} in erase_with_rewriter {{.*}}seeded_mlir.c:
    // CHECK-use_op_erased_by_rewriter: ownership chain when freed: context [[CTX]] -> module @m -> region #0 -> block #0 -> operation "func.func" @loop -> region #0 -> block #0 -> operation "scf.for" -> region #0 -> block #0 -> operation "arith.addi"{{$}}
    // CHECK-use_op_erased_by_rewriter: SUMMARY: OwnSan: use-after-free in mlirOperationGetName {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_op_name{{$}}
  }
  print_module(t.mod);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* An op's results live in the op's allocation (before the Operation
 * object): they die with it.
 * valgrind: "Invalid read of size 8" in mlirValueGetType, 8 bytes inside
 * %c42's block freed by mlirOperationDestroy.
 * native: SIGSEGV in mlirTypePrint (Type::getContext), on the garbage type
 * that mlirValueGetType read from the freed result (malloc's free-list
 * pointers overwrite it). */
STEP int case_use_value_after_op_erased(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirValue value = mlirOperationGetResult(t.c42, 0);
  note_handle("subject", value.ptr);
  // CHECK-use_value_after_op_erased: seeded: subject = [[V:0x[0-9a-f]+]]
  if (fixed)
    use_value_type(value);
  erase_the_op(t.c42, "%c42");
  if (!fixed) {
    use_value_type(value); /* BUG: %c42's result died with it. */
    // CHECK-use_value_after_op_erased: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirValue [[V]] (result #0 of operation "arith.constant"){{$}}
    // CHECK-use_value_after_op_erased-NEXT: passed as argument 1 of mlirValueGetType on thread T0:
    // CHECK-use_value_after_op_erased-NEXT: #0 {{.*}} in use_value_type {{.*}}seeded_mlir.c:
    // CHECK-use_value_after_op_erased-NEXT: #1 {{.*}} in case_use_value_after_op_erased {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-use_value_after_op_erased: freed by mlirOperationDestroy(operation "arith.constant") on thread T0, because it belonged to that operation:
    // CHECK-use_value_after_op_erased-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-use_value_after_op_erased: ownership chain when freed: operation "arith.constant" -> result #0{{$}}
    // CHECK-use_value_after_op_erased: SUMMARY: OwnSan: use-after-free in mlirValueGetType {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_value_type{{$}}
  }
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

enum { REUSE_COUNT = 64 };

STEP int make_many_constants(MlirContext ctx, MlirOperation *ops, int n,
                             MlirOperation stale) {
  say(__func__, "mlirOperationCreate(arith.constant : i32) x %d", n);
  int landed = -1;
  for (int i = 0; i < n; ++i) {
    MlirType i32 = mlirIntegerTypeGet(ctx, 32);
    MlirNamedAttribute attr =
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")),
                              mlirIntegerAttrGet(i32, (int64_t)i));
    MlirOperationState state = mlirOperationStateGet(
        str("arith.constant"), mlirLocationUnknownGet(ctx));
    mlirOperationStateAddResults(&state, 1, &i32);
    mlirOperationStateAddAttributes(&state, 1, &attr);
    ops[i] = mlirOperationCreate(&state);
    if (landed < 0 && ops[i].ptr == stale.ptr)
      landed = i;
  }
  return landed;
}

/* llvm-project issue 92344 (the Python bindings' liveOperations): a handle
 * to a child of an erased op, whose address a new op may take. Without
 * ownsan the stale handle then names the new op (a wrong answer, no crash);
 * under ownsan the freed address stays out of reuse (quarantine) and the
 * use is reported with the child's own history, and with the newer op the
 * address would hold natively: new constant #0, as the native run shows
 * ("reused by new constant #0"), which ownsan's replay of glibc's
 * per-thread cache predicts (src/runtime/native_reuse.cpp). Whether the address
 * was reused goes to stderr ("seeded: reused by new constant #N" or "seeded:
 * not reused"), not to stdout, and only in the buggy run (the fixed run's
 * stderr must be the native program's, and the quarantine changes it).
 * valgrind: "Invalid read of size 8" in mlirOperationGetName, inside %c1's
 * block freed by Block::~Block under mlirOperationDestroy of @f (valgrind
 * keeps freed blocks from reuse too).
 * native: exits 0 silently: new constant #0 takes %c1's address, and the
 * stale handle answers "arith.constant" for it. */
STEP int case_stale_child_after_reuse(bool fixed) {
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  note_handle("subject", t.c1.ptr);
  // CHECK-stale_child_after_reuse: seeded: subject = [[C1:0x[0-9a-f]+]]
  if (fixed)
    use_op_name(t.c1, "%c1");
  erase_the_op(t.f, "func.func @f");
  MlirOperation fresh[REUSE_COUNT];
  int landed = make_many_constants(t.ctx, fresh, REUSE_COUNT, t.c1);
  if (!fixed) {
    if (landed >= 0)
      fprintf(stderr, "seeded: reused by new constant #%d\n", landed);
    else
      fprintf(stderr, "seeded: not reused\n");
    // CHECK-stale_child_after_reuse: seeded: not reused
    note_handle("new constant #0", fresh[0].ptr);
    // CHECK-stale_child_after_reuse: seeded: new constant #0 = [[NEW0:0x[0-9a-f]+]]
    use_op_name(t.c1, "%c1"); /* BUG: %c1 died with @f. */
    // CHECK-stale_child_after_reuse: ==[[PID]]==ERROR: OwnSan: use-after-free on MlirOperation [[C1]] (operation "arith.constant" in block #0 of region #0 of operation "func.func" @f){{$}}
    // CHECK-stale_child_after_reuse-NEXT: passed as argument 1 of mlirOperationGetName on thread T0:
    // CHECK-stale_child_after_reuse-NEXT: #0 {{.*}} in use_op_name {{.*}}seeded_mlir.c:
    // CHECK-stale_child_after_reuse-NEXT: #1 {{.*}} in case_stale_child_after_reuse {{.*}}seeded_mlir.c:[[@LINE-4]]:
    // CHECK-stale_child_after_reuse: freed by mlirOperationDestroy(operation "func.func" @f) on thread T0, because it belonged to that operation:
    // CHECK-stale_child_after_reuse-NEXT: #0 {{.*}} in destroy_the_op {{.*}}seeded_mlir.c:
    // CHECK-stale_child_after_reuse: identity: [[C1]]#1 (address#generation); no object has been created at this address since it was freed{{$}}
    // CHECK-stale_child_after_reuse-NEXT: without ownsan the address would now hold a newer object: glibc gives a freed block to the next request of its size, which was for operation "arith.constant" (now at [[NEW0]]#1; the quarantine kept this address from it), created by mlirOperationCreate on thread T0:
    // CHECK-stale_child_after_reuse-NEXT: #0 {{.*}} in make_many_constants {{.*}}seeded_mlir.c:
    // CHECK-stale_child_after_reuse: ownership chain when freed: operation "func.func" @f -> region #0 -> block #0 -> operation "arith.constant"{{$}}
    // CHECK-stale_child_after_reuse: SUMMARY: OwnSan: use-after-free in mlirOperationGetName {{.*}}seeded_mlir.c:{{[0-9]+}}:{{[0-9]+}} in use_op_name{{$}}
  }
  for (int i = 0; i < REUSE_COUNT; ++i)
    mlirOperationDestroy(fresh[i]);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/*===-- Leaks (run with OWNSAN_OPTIONS=report_leaks=1) --------------------===*/

/* valgrind --leak-check=full: the op's block "definitely lost".
 * native: exits 0. */
STEP int case_leak_op(bool fixed) {
  // RUN-leak_op: OWNSAN_OPTIONS=report_leaks=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirOperation op = make_constant(t.ctx, 7);
  note_handle("subject", op.ptr);
  // CHECK-leak_op: seeded: subject = [[OP:0x[0-9a-f]+]]
  // CHECK-leak_op: ==[[PID]]==ERROR: OwnSan: detected leaks of owned MLIR objects{{$}}
  // CHECK-leak_op-NEXT: 1 MlirOperation (operation [[OP]]) created by mlirOperationCreate on thread T0, never disposed:
  // CHECK-leak_op-NEXT: #0 {{.*}} in make_constant {{.*}}seeded_mlir.c:
  // CHECK-leak_op-NEXT: #1 {{.*}} in case_leak_op {{.*}}seeded_mlir.c:[[@LINE-6]]:
  // CHECK-leak_op: SUMMARY: OwnSan: 1 leaked object(s) from 1 allocation site(s){{$}}
  if (fixed)
    destroy_the_op(op, "arith.constant 7");
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* A block made and never given to a region nor destroyed.
 * valgrind --leak-check=full: the 72-byte Block "definitely lost".
 * native: exits 0. */
STEP int case_leak_block(bool fixed) {
  // RUN-leak_block: OWNSAN_OPTIONS=report_leaks=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirBlock block = make_block();
  note_handle("subject", block.ptr);
  // CHECK-leak_block: seeded: subject = [[BLOCK:0x[0-9a-f]+]]
  // CHECK-leak_block: ==[[PID]]==ERROR: OwnSan: detected leaks of owned MLIR objects{{$}}
  // CHECK-leak_block-NEXT: 1 MlirBlock (block [[BLOCK]]) created by mlirBlockCreate on thread T0, never disposed:
  // CHECK-leak_block-NEXT: #0 {{.*}} in make_block {{.*}}seeded_mlir.c:
  // CHECK-leak_block-NEXT: #1 {{.*}} in case_leak_block {{.*}}seeded_mlir.c:[[@LINE-6]]:
  // CHECK-leak_block: SUMMARY: OwnSan: 1 leaked object(s) from 1 allocation site(s){{$}}
  if (fixed)
    destroy_the_block(block);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* A region made and never given to an operation nor destroyed.
 * valgrind --leak-check=full: the 24-byte Region "definitely lost".
 * native: exits 0. */
STEP int case_leak_region(bool fixed) {
  // RUN-leak_region: OWNSAN_OPTIONS=report_leaks=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirRegion region = make_region();
  note_handle("subject", region.ptr);
  // CHECK-leak_region: seeded: subject = [[REGION:0x[0-9a-f]+]]
  // CHECK-leak_region: ==[[PID]]==ERROR: OwnSan: detected leaks of owned MLIR objects{{$}}
  // CHECK-leak_region-NEXT: 1 MlirRegion (region [[REGION]]) created by mlirRegionCreate on thread T0, never disposed:
  // CHECK-leak_region-NEXT: #0 {{.*}} in make_region {{.*}}seeded_mlir.c:
  // CHECK-leak_region-NEXT: #1 {{.*}} in case_leak_region {{.*}}seeded_mlir.c:[[@LINE-6]]:
  // CHECK-leak_region: SUMMARY: OwnSan: 1 leaked object(s) from 1 allocation site(s){{$}}
  if (fixed)
    destroy_the_region(region);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* valgrind --leak-check=full: the PassManager (and its canonicalize pass)
 * "definitely lost".
 * native: exits 0. */
STEP int case_leak_pass_manager(bool fixed) {
  // RUN-leak_pass_manager: OWNSAN_OPTIONS=report_leaks=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  MlirPassManager pm = make_pass_manager(t.ctx);
  note_handle("subject", pm.ptr);
  // CHECK-leak_pass_manager: seeded: subject = [[PM:0x[0-9a-f]+]]
  // CHECK-leak_pass_manager: ==[[PID]]==ERROR: OwnSan: detected leaks of owned MLIR objects{{$}}
  // CHECK-leak_pass_manager-NEXT: 1 MlirPassManager (mlir pass manager [[PM]]) created by mlirPassManagerCreate on thread T0, never disposed:
  // CHECK-leak_pass_manager-NEXT: #0 {{.*}} in make_pass_manager {{.*}}seeded_mlir.c:
  // CHECK-leak_pass_manager-NEXT: #1 {{.*}} in case_leak_pass_manager {{.*}}seeded_mlir.c:[[@LINE-6]]:
  // CHECK-leak_pass_manager: SUMMARY: OwnSan: 1 leaked object(s) from 1 allocation site(s){{$}}
  if (fixed)
    destroy_the_pass_manager(pm);
  destroy_the_module(t.mod);
  destroy_the_context(t.ctx);
  return 0;
}

/* valgrind --leak-check=full: the MLIRContext "definitely lost".
 * native: exits 0. */
STEP int case_leak_context(bool fixed) {
  // RUN-leak_context: OWNSAN_OPTIONS=report_leaks=1
  struct tiny t;
  if (build_tiny(&t))
    return EXIT_SETUP;
  // CHECK-leak_context: seeded: context = [[CTX:0x[0-9a-f]+]]
  // CHECK-leak_context: ==[[PID]]==ERROR: OwnSan: detected leaks of owned MLIR objects{{$}}
  // CHECK-leak_context-NEXT: 1 MlirContext (context [[CTX]]) created by mlirContextCreateWithThreading on thread T0, never disposed:
  // CHECK-leak_context-NEXT: #0 {{.*}} in make_context {{.*}}seeded_mlir.c:
  // CHECK-leak_context-NEXT: #1 {{.*}} in build_tiny {{.*}}seeded_mlir.c:
  // CHECK-leak_context: SUMMARY: OwnSan: 1 leaked object(s) from 1 allocation site(s){{$}}
  destroy_the_module(t.mod);
  if (fixed)
    destroy_the_context(t.ctx);
  return 0;
}

static const struct {
  const char *name;
  int (*run)(bool fixed);
} cases[] = {
    {"use_op_after_module_destroy", case_use_op_after_module_destroy},
    {"use_op_after_parent_destroy", case_use_op_after_parent_destroy},
    {"use_block_after_parent_destroy", case_use_block_after_parent_destroy},
    {"use_region_after_parent_destroy", case_use_region_after_parent_destroy},
    {"use_after_context_destroy", case_use_after_context_destroy},
    {"use_attribute_after_context_destroy",
     case_use_attribute_after_context_destroy},
    {"use_string_after_context_destroy", case_use_string_after_context_destroy},
    {"double_destroy_op", case_double_destroy_op},
    {"destroy_attached_block", case_destroy_attached_block},
    {"destroy_owned_op_strict", case_destroy_owned_op_strict},
    {"use_region_after_op_create", case_use_region_after_op_create},
    {"destroy_region_after_op_create", case_destroy_region_after_op_create},
    {"destroy_attached_region", case_destroy_attached_region},
    {"attach_attached_op", case_attach_attached_op},
    {"use_op_erased_by_pass", case_use_op_erased_by_pass},
    {"use_op_erased_by_rewriter", case_use_op_erased_by_rewriter},
    {"use_value_after_op_erased", case_use_value_after_op_erased},
    {"stale_child_after_reuse", case_stale_child_after_reuse},
    {"leak_op", case_leak_op},
    {"leak_block", case_leak_block},
    {"leak_region", case_leak_region},
    {"leak_pass_manager", case_leak_pass_manager},
    {"leak_context", case_leak_context},
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
