/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mlir_workload.c - an IR-building MLIR-C workload, the way a binding
 * drives the C API (issue 20's benchmark row, bench/mlir_bench.py).
 *
 *   mlir_workload N F
 *
 * One context (func, arith and scf loaded through their dialect handles,
 * threading off so that the passes run on the main thread) and one pass
 * manager (canonicalize and cse, nested on func.func), then N times:
 *
 *   1. build a module of F functions through the generic operation API
 *      (mlirOperationStateGet / AddOperands / AddResults / AddAttributes /
 *      AddOwnedRegions, mlirOperationCreate, mlirBlockCreate,
 *      mlirRegionAppendOwnedBlock, mlirBlockAppendOwnedOperation): each
 *      function holds 22 arith operations (constants, some duplicated for
 *      cse, some foldable for canonicalize, one dead) and an scf.for with an
 *      iter_arg whose body holds two more, then func.return (28 operations
 *      with the func.func: 561 per module of 20 functions, 439 after the
 *      passes);
 *   2. walk it as bindings do (mlirBlockGetFirstOperation /
 *      mlirOperationGetNextInBlock, mlirOperationGetName, the regions and
 *      blocks of each operation, recursively), counting operations;
 *   3. run the pass manager on it (mlirPassManagerRunOnOp), which erases
 *      and replaces operations;
 *   4. verify it (mlirOperationVerify), walk it again, destroy it.
 *
 * At the end the pass manager and the context are destroyed: nothing is
 * left alive. Prints the operations seen before and after the passes and a
 * hash of their names: the checked and the native build must agree.
 *
 * Every MLIR-C call goes through the C API's normal symbols, so a build
 * linked with `ownsan link-flags` checks each of them.
 */
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/SCF.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/Support.h>
#include <mlir-c/Transforms.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct env {
  MlirContext ctx;
  MlirLocation loc;
  MlirType i32, index;
  MlirIdentifier value_id, predicate_id;
};

struct counts {
  unsigned long ops;
  unsigned long name_hash;
};

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/* Creates NAME with the given operands, results and attributes, appends it
 * to BLOCK, and returns it. */
static MlirOperation append_op(struct env *e, MlirBlock block, const char *name,
                               intptr_t n_operands, const MlirValue *operands,
                               intptr_t n_results, const MlirType *results,
                               intptr_t n_attrs,
                               const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(str(name), e->loc);
  if (n_operands)
    mlirOperationStateAddOperands(&st, n_operands, operands);
  if (n_results)
    mlirOperationStateAddResults(&st, n_results, results);
  if (n_attrs)
    mlirOperationStateAddAttributes(&st, n_attrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockAppendOwnedOperation(block, op);
  return op;
}

static MlirValue constant(struct env *e, MlirBlock block, MlirType type,
                          int64_t v) {
  MlirNamedAttribute attr =
      mlirNamedAttributeGet(e->value_id, mlirIntegerAttrGet(type, v));
  MlirOperation op =
      append_op(e, block, "arith.constant", 0, NULL, 1, &type, 1, &attr);
  return mlirOperationGetResult(op, 0);
}

static MlirValue binary(struct env *e, MlirBlock block, const char *name,
                        MlirValue lhs, MlirValue rhs) {
  MlirValue operands[2] = {lhs, rhs};
  MlirType type = mlirValueGetType(lhs);
  MlirOperation op = append_op(e, block, name, 2, operands, 1, &type, 0, NULL);
  return mlirOperationGetResult(op, 0);
}

/* scf.for %iv = 0 to 4 step 1 iter_args(%acc = INIT) -> i32 {
 *   %c = arith.index_cast %iv : index to i32
 *   %n = arith.addi %acc, %c : i32
 *   scf.yield %n : i32
 * } */
static MlirValue loop(struct env *e, MlirBlock block, MlirValue init) {
  MlirValue lb = constant(e, block, e->index, 0);
  MlirValue ub = constant(e, block, e->index, 4);
  MlirValue step = constant(e, block, e->index, 1);
  MlirType arg_types[2] = {e->index, e->i32};
  MlirLocation arg_locs[2] = {e->loc, e->loc};
  MlirBlock body = mlirBlockCreate(2, arg_types, arg_locs);
  MlirValue iv = mlirBlockGetArgument(body, 0);
  MlirValue acc = mlirBlockGetArgument(body, 1);
  MlirOperation cast =
      append_op(e, body, "arith.index_cast", 1, &iv, 1, &e->i32, 0, NULL);
  MlirValue n =
      binary(e, body, "arith.addi", acc, mlirOperationGetResult(cast, 0));
  append_op(e, body, "scf.yield", 1, &n, 0, NULL, 0, NULL);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);

  MlirValue operands[4] = {lb, ub, step, init};
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), e->loc);
  mlirOperationStateAddOperands(&st, 4, operands);
  mlirOperationStateAddResults(&st, 1, &e->i32);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockAppendOwnedOperation(block, op);
  return mlirOperationGetResult(op, 0);
}

/* func.func @fK(%a: i32, %b: i32) -> i32, appended to the module's body. */
static void function(struct env *e, MlirBlock module_body, int k) {
  MlirType arg_types[2] = {e->i32, e->i32};
  MlirLocation arg_locs[2] = {e->loc, e->loc};
  MlirBlock b = mlirBlockCreate(2, arg_types, arg_locs);
  MlirValue a = mlirBlockGetArgument(b, 0);
  MlirValue x = mlirBlockGetArgument(b, 1);

  MlirValue c0 = constant(e, b, e->i32, 0);
  MlirValue c1 = constant(e, b, e->i32, 1);
  MlirValue c1b = constant(e, b, e->i32, 1); /* cse */
  MlirValue ck = constant(e, b, e->i32, k % 13 + 2);
  MlirValue t1 = binary(e, b, "arith.addi", a, c0);  /* a */
  MlirValue t2 = binary(e, b, "arith.muli", t1, c1); /* a */
  MlirValue t3 = binary(e, b, "arith.addi", a, x);
  MlirValue t4 = binary(e, b, "arith.addi", a, x);    /* cse: t3 */
  MlirValue t5 = binary(e, b, "arith.xori", t3, t4);  /* 0 */
  MlirValue t6 = binary(e, b, "arith.addi", c1, c1b); /* 2 */
  MlirValue t7 = binary(e, b, "arith.muli", t2, ck);
  MlirValue t8 = binary(e, b, "arith.subi", t7, t6);
  MlirValue t9 = binary(e, b, "arith.andi", t8, x);
  MlirValue t10 = binary(e, b, "arith.ori", t9, t5); /* t9 */
  MlirValue t11 = binary(e, b, "arith.shli", t10, c1);
  MlirValue t12 = binary(e, b, "arith.addi", t11, t3);
  binary(e, b, "arith.muli", x, ck); /* dead */
  MlirNamedAttribute slt = mlirNamedAttributeGet(
      e->predicate_id,
      mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 2 /* slt */));
  MlirValue cmp_operands[2] = {t12, a};
  MlirType i1 = mlirIntegerTypeGet(e->ctx, 1);
  MlirOperation cmp =
      append_op(e, b, "arith.cmpi", 2, cmp_operands, 1, &i1, 1, &slt);
  MlirValue sel_operands[3] = {mlirOperationGetResult(cmp, 0), t12, t8};
  MlirOperation sel =
      append_op(e, b, "arith.select", 3, sel_operands, 1, &e->i32, 0, NULL);
  MlirValue r = loop(e, b, mlirOperationGetResult(sel, 0));
  append_op(e, b, "func.return", 1, &r, 0, NULL, 0, NULL);

  MlirRegion body = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(body, b);
  char name[32];
  snprintf(name, sizeof name, "f%d", k);
  MlirType fty = mlirFunctionTypeGet(e->ctx, 2, arg_types, 1, &e->i32);
  MlirNamedAttribute attrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(e->ctx, str("sym_name")),
                            mlirStringAttrGet(e->ctx, str(name))),
      mlirNamedAttributeGet(mlirIdentifierGet(e->ctx, str("function_type")),
                            mlirTypeAttrGet(fty))};
  MlirOperationState st = mlirOperationStateGet(str("func.func"), e->loc);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &body);
  mlirBlockAppendOwnedOperation(module_body, mlirOperationCreate(&st));
}

static MlirModule build_module(struct env *e, int nfuncs) {
  MlirModule m = mlirModuleCreateEmpty(e->loc);
  MlirBlock body = mlirModuleGetBody(m);
  for (int k = 0; k < nfuncs; ++k)
    function(e, body, k);
  return m;
}

/* Every operation nested in OP, OP included. */
static void walk(MlirOperation op, struct counts *c) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  ++c->ops;
  for (size_t i = 0; i < name.length; ++i)
    c->name_hash = c->name_hash * 31 + (unsigned char)name.data[i];
  intptr_t n = mlirOperationGetNumRegions(op);
  for (intptr_t r = 0; r < n; ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        walk(o, c);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mlir_workload N F\n");
    return 2;
  }
  int iterations = atoi(argv[1]), nfuncs = atoi(argv[2]);

  struct env e;
  e.ctx = mlirContextCreateWithThreading(false);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), e.ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__arith__(), e.ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__scf__(), e.ctx);
  e.loc = mlirLocationUnknownGet(e.ctx);
  e.i32 = mlirIntegerTypeGet(e.ctx, 32);
  e.index = mlirIndexTypeGet(e.ctx);
  e.value_id = mlirIdentifierGet(e.ctx, str("value"));
  e.predicate_id = mlirIdentifierGet(e.ctx, str("predicate"));

  MlirPassManager pm = mlirPassManagerCreate(e.ctx);
  MlirOpPassManager on_funcs =
      mlirPassManagerGetNestedUnder(pm, str("func.func"));
  mlirOpPassManagerAddOwnedPass(on_funcs, mlirCreateTransformsCanonicalizer());
  mlirOpPassManagerAddOwnedPass(on_funcs, mlirCreateTransformsCSE());

  struct counts before = {0, 0}, after = {0, 0};
  int status = 0;
  for (int i = 0; i < iterations && status == 0; ++i) {
    MlirModule m = build_module(&e, nfuncs);
    MlirOperation op = mlirModuleGetOperation(m);
    walk(op, &before);
    if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op))) {
      fprintf(stderr, "mlir_workload: the passes failed on module %d\n", i);
      status = 1;
    } else if (!mlirOperationVerify(op)) {
      fprintf(stderr, "mlir_workload: module %d does not verify\n", i);
      status = 1;
    }
    walk(op, &after);
    mlirModuleDestroy(m);
  }

  mlirPassManagerDestroy(pm);
  mlirContextDestroy(e.ctx);
  printf("modules %d, functions %d: %lu operations built, %lu after "
         "canonicalize+cse, name hash %016lx/%016lx\n",
         iterations, nfuncs, before.ops, after.ops, before.name_hash,
         after.name_hash);
  return status;
}
