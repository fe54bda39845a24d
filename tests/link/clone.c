// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// clone.c - an echo-style cloner over LLVM's C API, in the manner of
// `llvm-c-test --echo`: reads a bitcode file, rebuilds its module in a
// second context call by call (types, globals, functions, every instruction
// through a builder), prints the copy and verifies it.
//
//   clone FILE.bc
//
// Exit 0: printed and verified; 3: the module uses something this cloner
// does not rebuild (said on stderr). tests/link/check_link.py runs it linked
// in link mode and linked without ownsan: the same output, no report.
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMContextRef g_dst_ctx;
static LLVMModuleRef g_dst;

static void unsupported(const char *what, long detail) {
  fprintf(stderr, "clone: unsupported %s (%ld)\n", what, detail);
  exit(3);
}

// --- Source value -> clone, an open-addressing map on pointers. ---
enum { kMapBits = 16 };
static const void *g_keys[1u << kMapBits];
static void *g_vals[1u << kMapBits];

static unsigned slot_of(const void *key) {
  unsigned long h = (unsigned long)key * 0x9E3779B97F4A7C15ul;
  unsigned i = (unsigned)(h >> (64 - kMapBits));
  while (g_keys[i] && g_keys[i] != key)
    i = (i + 1) & ((1u << kMapBits) - 1);
  return i;
}
static void map_put(const void *key, void *val) {
  unsigned i = slot_of(key);
  g_keys[i] = key;
  g_vals[i] = val;
}
static void *map_get(const void *key) {
  unsigned i = slot_of(key);
  return g_keys[i] ? g_vals[i] : NULL;
}

// --- Types ---
static LLVMTypeRef clone_type(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMVoidTypeKind:
    return LLVMVoidTypeInContext(g_dst_ctx);
  case LLVMHalfTypeKind:
    return LLVMHalfTypeInContext(g_dst_ctx);
  case LLVMFloatTypeKind:
    return LLVMFloatTypeInContext(g_dst_ctx);
  case LLVMDoubleTypeKind:
    return LLVMDoubleTypeInContext(g_dst_ctx);
  case LLVMX86_FP80TypeKind:
    return LLVMX86FP80TypeInContext(g_dst_ctx);
  case LLVMFP128TypeKind:
    return LLVMFP128TypeInContext(g_dst_ctx);
  case LLVMLabelTypeKind:
    return LLVMLabelTypeInContext(g_dst_ctx);
  case LLVMIntegerTypeKind:
    return LLVMIntTypeInContext(g_dst_ctx, LLVMGetIntTypeWidth(t));
  case LLVMFunctionTypeKind: {
    unsigned n = LLVMCountParamTypes(t);
    LLVMTypeRef params[64];
    if (n > 64)
      unsupported("function type with many parameters", n);
    LLVMGetParamTypes(t, params);
    for (unsigned i = 0; i < n; ++i)
      params[i] = clone_type(params[i]);
    return LLVMFunctionType(clone_type(LLVMGetReturnType(t)), params, n,
                            LLVMIsFunctionVarArg(t));
  }
  case LLVMStructTypeKind: {
    const char *name = LLVMGetStructName(t);
    LLVMTypeRef s = NULL;
    if (name) {
      if ((s = LLVMGetTypeByName2(g_dst_ctx, name)))
        return s;
      s = LLVMStructCreateNamed(g_dst_ctx, name);
      if (LLVMIsOpaqueStruct(t))
        return s;
    }
    unsigned n = LLVMCountStructElementTypes(t);
    LLVMTypeRef elems[256];
    if (n > 256)
      unsupported("struct with many elements", n);
    LLVMGetStructElementTypes(t, elems);
    for (unsigned i = 0; i < n; ++i)
      elems[i] = clone_type(elems[i]);
    if (s) {
      LLVMStructSetBody(s, elems, n, LLVMIsPackedStruct(t));
      return s;
    }
    return LLVMStructTypeInContext(g_dst_ctx, elems, n, LLVMIsPackedStruct(t));
  }
  case LLVMArrayTypeKind:
    return LLVMArrayType(clone_type(LLVMGetElementType(t)),
                         LLVMGetArrayLength(t));
  case LLVMVectorTypeKind:
    return LLVMVectorType(clone_type(LLVMGetElementType(t)),
                          LLVMGetVectorSize(t));
  case LLVMPointerTypeKind:
#if LLVM_VERSION_MAJOR >= 15
    if (LLVMPointerTypeIsOpaque(t))
      return LLVMPointerTypeInContext(g_dst_ctx, LLVMGetPointerAddressSpace(t));
#endif
    return LLVMPointerType(clone_type(LLVMGetElementType(t)),
                           LLVMGetPointerAddressSpace(t));
  default:
    unsupported("type kind", LLVMGetTypeKind(t));
  }
  return NULL;
}

// --- Constants and operands ---
static LLVMValueRef clone_constant(LLVMValueRef c);

static LLVMValueRef operand(LLVMValueRef v) {
  LLVMValueRef mapped = map_get(v);
  if (mapped)
    return mapped;
  if (LLVMIsAConstant(v))
    return clone_constant(v);
  unsupported("forward reference", 0);
  return NULL;
}

static LLVMBasicBlockRef block(LLVMBasicBlockRef b) {
  LLVMBasicBlockRef mapped = map_get(b);
  if (!mapped)
    unsupported("branch to a block of another function", 0);
  return mapped;
}

static LLVMValueRef clone_constant(LLVMValueRef c) {
  LLVMValueRef mapped = map_get(c);
  if (mapped)
    return mapped;
  LLVMTypeRef t = clone_type(LLVMTypeOf(c));
  LLVMValueRef out = NULL;
  if (LLVMIsAConstantInt(c)) {
    if (LLVMGetIntTypeWidth(LLVMTypeOf(c)) > 64)
      unsupported("integer constant wider than 64 bits", 0);
    out = LLVMConstInt(t, LLVMConstIntGetZExtValue(c), 0);
  } else if (LLVMIsAConstantFP(c)) {
    LLVMBool lossy;
    out = LLVMConstReal(t, LLVMConstRealGetDouble(c, &lossy));
  } else if (LLVMIsAConstantPointerNull(c)) {
    out = LLVMConstPointerNull(t);
  } else if (LLVMIsAPoisonValue(c)) {
    out = LLVMGetPoison(t);
  } else if (LLVMIsAUndefValue(c)) {
    out = LLVMGetUndef(t);
  } else if (LLVMIsAConstantAggregateZero(c)) {
    out = LLVMConstNull(t);
  } else if (LLVMIsAConstantDataSequential(c) && LLVMIsConstantString(c)) {
    size_t len;
    const char *s = LLVMGetAsString(c, &len);
    out = LLVMConstStringInContext(g_dst_ctx, s, (unsigned)len, 1);
  } else if (LLVMIsAConstantDataSequential(c) || LLVMIsAConstantArray(c) ||
             LLVMIsAConstantVector(c) || LLVMIsAConstantStruct(c)) {
    LLVMTypeKind kind = LLVMGetTypeKind(LLVMTypeOf(c));
    unsigned n = kind == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
                 : kind == LLVMArrayTypeKind ? LLVMGetArrayLength(t)
                                             : LLVMGetVectorSize(t);
    LLVMValueRef elems[1024];
    if (n > 1024)
      unsupported("aggregate constant with many elements", n);
    for (unsigned i = 0; i < n; ++i)
      elems[i] = clone_constant(LLVMIsAConstantDataSequential(c)
                                    ? LLVMGetElementAsConstant(c, i)
                                    : LLVMGetOperand(c, i));
    if (kind == LLVMStructTypeKind)
      out = LLVMGetStructName(LLVMTypeOf(c))
                ? LLVMConstNamedStruct(t, elems, n)
                : LLVMConstStructInContext(g_dst_ctx, elems, n,
                                           LLVMIsPackedStruct(t));
    else if (kind == LLVMArrayTypeKind)
      out = LLVMConstArray(LLVMGetElementType(t), elems, n);
    else
      out = LLVMConstVector(elems, n);
  } else if (LLVMIsAConstantExpr(c) &&
             LLVMGetConstOpcode(c) == LLVMGetElementPtr) {
    unsigned n = LLVMGetNumOperands(c);
    LLVMValueRef idx[16];
    if (n > 17)
      unsupported("constant getelementptr with many indices", n);
    for (unsigned i = 1; i < n; ++i)
      idx[i - 1] = clone_constant(LLVMGetOperand(c, i));
    LLVMTypeRef source = clone_type(LLVMGetGEPSourceElementType(c));
    LLVMValueRef base = clone_constant(LLVMGetOperand(c, 0));
    out = LLVMIsInBounds(c) ? LLVMConstInBoundsGEP2(source, base, idx, n - 1)
                            : LLVMConstGEP2(source, base, idx, n - 1);
  } else if (LLVMIsAConstantExpr(c)) {
    LLVMValueRef v = clone_constant(LLVMGetOperand(c, 0));
    switch (LLVMGetConstOpcode(c)) {
    case LLVMBitCast:
      out = LLVMConstBitCast(v, t);
      break;
    case LLVMAddrSpaceCast:
      out = LLVMConstAddrSpaceCast(v, t);
      break;
    case LLVMPtrToInt:
      out = LLVMConstPtrToInt(v, t);
      break;
    case LLVMIntToPtr:
      out = LLVMConstIntToPtr(v, t);
      break;
    default:
      unsupported("constant expression", LLVMGetConstOpcode(c));
    }
  } else {
    unsupported("constant", LLVMGetValueKind(c));
  }
  map_put(c, out);
  return out;
}

// --- Globals and functions (declared first: bodies refer to them). ---
static void declare_globals(LLVMModuleRef src) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(src); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    LLVMValueRef d = LLVMAddGlobalInAddressSpace(
        g_dst, clone_type(LLVMGlobalGetValueType(g)), name,
        LLVMGetPointerAddressSpace(LLVMTypeOf(g)));
    LLVMSetLinkage(d, LLVMGetLinkage(g));
    LLVMSetGlobalConstant(d, LLVMIsGlobalConstant(g));
    LLVMSetAlignment(d, LLVMGetAlignment(g));
    LLVMSetUnnamedAddress(d, LLVMGetUnnamedAddress(g));
    map_put(g, d);
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    LLVMValueRef d =
        LLVMAddFunction(g_dst, name, clone_type(LLVMGlobalGetValueType(f)));
    LLVMSetLinkage(d, LLVMGetLinkage(f));
    map_put(f, d);
    unsigned n = LLVMCountParams(f);
    for (unsigned i = 0; i < n; ++i) {
      LLVMValueRef p = LLVMGetParam(f, i), q = LLVMGetParam(d, i);
      const char *pname = LLVMGetValueName2(p, &len);
      LLVMSetValueName2(q, pname, len);
      map_put(p, q);
    }
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(src); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetInitializer(g))
      LLVMSetInitializer(map_get(g), clone_constant(LLVMGetInitializer(g)));
}

// --- Instructions ---
struct pending_phi {
  LLVMValueRef src, dst;
};
static struct pending_phi g_phis[4096];
static unsigned g_phi_count;

static LLVMValueRef clone_instruction(LLVMBuilderRef b, LLVMValueRef i) {
  size_t len;
  const char *name = LLVMGetValueName2(i, &len);
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  LLVMValueRef out = NULL;
  switch (op) {
  case LLVMRet:
    return LLVMGetNumOperands(i)
               ? LLVMBuildRet(b, operand(LLVMGetOperand(i, 0)))
               : LLVMBuildRetVoid(b);
  case LLVMBr:
    if (LLVMIsConditional(i))
      return LLVMBuildCondBr(b, operand(LLVMGetCondition(i)),
                             block(LLVMGetSuccessor(i, 0)),
                             block(LLVMGetSuccessor(i, 1)));
    return LLVMBuildBr(b, block(LLVMGetSuccessor(i, 0)));
  case LLVMSwitch: {
    unsigned n = LLVMGetNumSuccessors(i); // the default, then each case
    out = LLVMBuildSwitch(b, operand(LLVMGetOperand(i, 0)),
                          block(LLVMGetSwitchDefaultDest(i)), n - 1);
    for (unsigned k = 1; k < n; ++k)
#if LLVM_VERSION_MAJOR >= 20
      // (Case values are no longer operands from LLVM 20 on.)
      LLVMAddCase(out, operand(LLVMGetSwitchCaseValue(i, k)),
                  block(LLVMGetSuccessor(i, k)));
#else
      LLVMAddCase(out, operand(LLVMGetOperand(i, 2 * k)),
                  block(LLVMGetSuccessor(i, k)));
#endif
    return out;
  }
  case LLVMUnreachable:
    return LLVMBuildUnreachable(b);
  case LLVMAdd:
  case LLVMFAdd:
  case LLVMSub:
  case LLVMFSub:
  case LLVMMul:
  case LLVMFMul:
  case LLVMUDiv:
  case LLVMSDiv:
  case LLVMFDiv:
  case LLVMURem:
  case LLVMSRem:
  case LLVMFRem:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
    out = LLVMBuildBinOp(b, op, operand(LLVMGetOperand(i, 0)),
                         operand(LLVMGetOperand(i, 1)), name);
    break;
  case LLVMFNeg:
    out = LLVMBuildFNeg(b, operand(LLVMGetOperand(i, 0)), name);
    break;
  case LLVMICmp:
    out =
        LLVMBuildICmp(b, LLVMGetICmpPredicate(i), operand(LLVMGetOperand(i, 0)),
                      operand(LLVMGetOperand(i, 1)), name);
    break;
  case LLVMFCmp:
    out =
        LLVMBuildFCmp(b, LLVMGetFCmpPredicate(i), operand(LLVMGetOperand(i, 0)),
                      operand(LLVMGetOperand(i, 1)), name);
    break;
  case LLVMAlloca:
    out = LLVMBuildAlloca(b, clone_type(LLVMGetAllocatedType(i)), name);
    LLVMSetAlignment(out, LLVMGetAlignment(i));
    break;
  case LLVMLoad:
    out = LLVMBuildLoad2(b, clone_type(LLVMTypeOf(i)),
                         operand(LLVMGetOperand(i, 0)), name);
    LLVMSetAlignment(out, LLVMGetAlignment(i));
    LLVMSetVolatile(out, LLVMGetVolatile(i));
    break;
  case LLVMStore:
    out = LLVMBuildStore(b, operand(LLVMGetOperand(i, 0)),
                         operand(LLVMGetOperand(i, 1)));
    LLVMSetAlignment(out, LLVMGetAlignment(i));
    LLVMSetVolatile(out, LLVMGetVolatile(i));
    break;
  case LLVMGetElementPtr: {
    unsigned n = LLVMGetNumOperands(i);
    LLVMValueRef idx[16];
    if (n > 17)
      unsupported("getelementptr with many indices", n);
    for (unsigned k = 1; k < n; ++k)
      idx[k - 1] = operand(LLVMGetOperand(i, k));
    LLVMTypeRef source = clone_type(LLVMGetGEPSourceElementType(i));
    LLVMValueRef base = operand(LLVMGetOperand(i, 0));
    out = LLVMIsInBounds(i)
              ? LLVMBuildInBoundsGEP2(b, source, base, idx, n - 1, name)
              : LLVMBuildGEP2(b, source, base, idx, n - 1, name);
    break;
  }
  case LLVMCall: {
    unsigned n = LLVMGetNumArgOperands(i);
    LLVMValueRef args[64];
    if (n > 64)
      unsupported("call with many arguments", n);
    for (unsigned k = 0; k < n; ++k)
      args[k] = operand(LLVMGetOperand(i, k));
    out = LLVMBuildCall2(b, clone_type(LLVMGetCalledFunctionType(i)),
                         operand(LLVMGetCalledValue(i)), args, n, name);
    LLVMSetTailCall(out, LLVMIsTailCall(i));
    break;
  }
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPToUI:
  case LLVMFPToSI:
  case LLVMUIToFP:
  case LLVMSIToFP:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
    out = LLVMBuildCast(b, op, operand(LLVMGetOperand(i, 0)),
                        clone_type(LLVMTypeOf(i)), name);
    break;
  case LLVMPHI:
    if (g_phi_count == sizeof g_phis / sizeof g_phis[0])
      unsupported("many phis", g_phi_count);
    out = LLVMBuildPhi(b, clone_type(LLVMTypeOf(i)), name);
    g_phis[g_phi_count++] = (struct pending_phi){i, out};
    break;
  case LLVMSelect:
    out = LLVMBuildSelect(b, operand(LLVMGetOperand(i, 0)),
                          operand(LLVMGetOperand(i, 1)),
                          operand(LLVMGetOperand(i, 2)), name);
    break;
  case LLVMExtractElement:
    out = LLVMBuildExtractElement(b, operand(LLVMGetOperand(i, 0)),
                                  operand(LLVMGetOperand(i, 1)), name);
    break;
  case LLVMInsertElement:
    out = LLVMBuildInsertElement(b, operand(LLVMGetOperand(i, 0)),
                                 operand(LLVMGetOperand(i, 1)),
                                 operand(LLVMGetOperand(i, 2)), name);
    break;
  case LLVMShuffleVector: {
    unsigned n = LLVMGetNumMaskElements(i);
    LLVMValueRef mask[64];
    if (n > 64)
      unsupported("long shuffle mask", n);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g_dst_ctx);
    for (unsigned k = 0; k < n; ++k) {
      int m = LLVMGetMaskValue(i, k);
      mask[k] = m == LLVMGetUndefMaskElem() ? LLVMGetUndef(i32)
                                            : LLVMConstInt(i32, m, 0);
    }
    out = LLVMBuildShuffleVector(b, operand(LLVMGetOperand(i, 0)),
                                 operand(LLVMGetOperand(i, 1)),
                                 LLVMConstVector(mask, n), name);
    break;
  }
  default:
    unsupported("instruction opcode", op);
  }
  return out;
}

// The blocks of a function in reverse post-order from its entry: each
// block after those that dominate it, so that a value is cloned before any
// use of it but a phi's (added once all blocks are done).
enum { kMaxBlocks = 4096 };
static LLVMBasicBlockRef g_order[kMaxBlocks];
static unsigned g_order_count;

static void post_order(LLVMBasicBlockRef bb, const void *visited_tag) {
  // (A block is marked visited in the map under its address + 1.)
  map_put((const char *)bb + 1, (void *)visited_tag);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  unsigned n = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned k = 0; k < n; ++k) {
    LLVMBasicBlockRef next = LLVMGetSuccessor(term, k);
    if (map_get((const char *)next + 1) != visited_tag)
      post_order(next, visited_tag);
  }
  if (g_order_count == kMaxBlocks)
    unsupported("many blocks", g_order_count);
  g_order[g_order_count++] = bb;
}

static void clone_body(LLVMValueRef src, LLVMValueRef dst) {
  LLVMBasicBlockRef bb;
  for (bb = LLVMGetFirstBasicBlock(src); bb; bb = LLVMGetNextBasicBlock(bb))
    map_put(bb, LLVMAppendBasicBlockInContext(g_dst_ctx, dst,
                                              LLVMGetBasicBlockName(bb)));
  g_order_count = 0;
  post_order(LLVMGetEntryBasicBlock(src), src);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g_dst_ctx);
  g_phi_count = 0;
  for (unsigned k = g_order_count; k-- > 0;) {
    bb = g_order[k];
    LLVMPositionBuilderAtEnd(b, map_get(bb));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      map_put(i, clone_instruction(b, i));
  }
  for (unsigned k = 0; k < g_phi_count; ++k) {
    unsigned n = LLVMCountIncoming(g_phis[k].src);
    for (unsigned j = 0; j < n; ++j) {
      LLVMValueRef v = operand(LLVMGetIncomingValue(g_phis[k].src, j));
      LLVMBasicBlockRef from = block(LLVMGetIncomingBlock(g_phis[k].src, j));
      LLVMAddIncoming(g_phis[k].dst, &v, &from, 1);
    }
  }
  LLVMDisposeBuilder(b);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: clone FILE.bc\n");
    return 2;
  }
  LLVMMemoryBufferRef buf;
  char *err = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(argv[1], &buf, &err)) {
    fprintf(stderr, "clone: %s\n", err);
    LLVMDisposeMessage(err);
    return 2;
  }
  LLVMContextRef src_ctx = LLVMContextCreate();
  LLVMModuleRef src;
  if (LLVMParseBitcodeInContext2(src_ctx, buf, &src)) {
    fprintf(stderr, "clone: cannot parse %s\n", argv[1]);
    return 2;
  }
  LLVMDisposeMemoryBuffer(buf);

  g_dst_ctx = LLVMContextCreate();
  size_t len;
  const char *id = LLVMGetModuleIdentifier(src, &len);
  g_dst = LLVMModuleCreateWithNameInContext(id, g_dst_ctx);
  LLVMSetDataLayout(g_dst, LLVMGetDataLayoutStr(src));
  LLVMSetTarget(g_dst, LLVMGetTarget(src));
  declare_globals(src);
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f;
       f = LLVMGetNextFunction(f))
    if (LLVMCountBasicBlocks(f))
      clone_body(f, map_get(f));

  char *text = LLVMPrintModuleToString(g_dst);
  fputs(text, stdout);
  LLVMDisposeMessage(text);
  char *message = NULL;
  if (LLVMVerifyModule(g_dst, LLVMReturnStatusAction, &message))
    printf("verify: %s\n", message);
  else
    printf("verify: ok\n");
  LLVMDisposeMessage(message);
  LLVMDisposeModule(g_dst);
  LLVMContextDispose(g_dst_ctx);
  LLVMDisposeModule(src);
  LLVMContextDispose(src_ctx);
  return 0;
}
