/*===- spec_cases.c - one correct use and one misuse per spec entry --------===*
 *
 * Usage: spec_cases CASE ok|bad
 *
 * Every case exercises the rule of one (or a few) entries of
 * src/spec/ownership.spec against the real libLLVM. `ok` uses the API
 * correctly and must run silently under ownsan with the same stdout as
 * without it; `bad` ends with one misuse that ownsan must report (it is only
 * run under ownsan: without it the misuse is undefined behaviour).
 * tests/spec/check_spec.py holds the table of cases, the spec functions
 * each one covers and the report each misuse must produce.
 *
 * A case that does not exist in this LLVM version exits 77; one whose
 * prerequisites are missing (no X86 target) prints why and exits 77 too.
 *===----------------------------------------------------------------------===*/
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Remarks.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#if LLVM_VERSION_MAJOR <= 16
#include <llvm-c/Transforms/PassManagerBuilder.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_NOT_AVAILABLE = 77 };

static void say(const char *what) {
  printf("%s\n", what);
  fflush(stdout);
}

/* ---- the module every IR case starts from ---------------------------------
 *   define void @foo(i32 %x) { entry: %sum = add i32 %x, 1  ret void }     */
struct ir {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTypeRef i32, fn_type;
  LLVMValueRef fn, sum, ret;
  LLVMBasicBlockRef entry;
  LLVMBuilderRef b;
};

static struct ir make_ir(const char *name) {
  struct ir t;
  t.ctx = LLVMContextCreate();
  t.mod = LLVMModuleCreateWithNameInContext(name, t.ctx);
  t.i32 = LLVMInt32TypeInContext(t.ctx);
  t.fn_type = LLVMFunctionType(LLVMVoidTypeInContext(t.ctx), &t.i32, 1, 0);
  t.fn = LLVMAddFunction(t.mod, "foo", t.fn_type);
  t.entry = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "entry");
  t.b = LLVMCreateBuilderInContext(t.ctx);
  LLVMPositionBuilderAtEnd(t.b, t.entry);
  t.sum = LLVMBuildAdd(t.b, LLVMGetParam(t.fn, 0), LLVMConstInt(t.i32, 1, 0),
                       "sum");
  t.ret = LLVMBuildRetVoid(t.b);
  return t;
}

static void drop_ir(struct ir *t) {
  LLVMDisposeBuilder(t->b);
  LLVMDisposeModule(t->mod);
  LLVMContextDispose(t->ctx);
}

/* A module with `define i32 @main() { ret i32 7 }` and a global @g. */
static LLVMModuleRef make_main_module(LLVMContextRef ctx, const char *name) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f =
      LLVMAddFunction(m, "main", LLVMFunctionType(i32, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMBuildRet(b, LLVMConstInt(i32, 7, 0));
  LLVMDisposeBuilder(b);
  LLVMValueRef g = LLVMAddGlobal(m, i32, "g");
  LLVMSetInitializer(g, LLVMConstInt(i32, 1, 0));
  return m;
}

static int have_x86(void) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  return 1;
}

static LLVMTargetMachineRef make_tm(void) {
  have_x86();
  LLVMTargetRef t;
  char *err = NULL;
  if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &t, &err)) {
    printf("no x86 target: %s\n", err);
    LLVMDisposeMessage(err);
    exit(EXIT_NOT_AVAILABLE);
  }
  return LLVMCreateTargetMachine(t, "x86_64-pc-linux-gnu", "generic", "",
                                 LLVMCodeGenLevelNone, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
}

/* Adds `void NAME(void) { [callee();] }` to m. */
static LLVMValueRef add_void_function(LLVMModuleRef m, const char *name,
                                      LLVMValueRef callee) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(m, name, vt);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  if (callee)
    LLVMBuildCall2(b, vt, callee, NULL, 0, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return f;
}

/* An ELF object defining `void NAME(void)`; with call_ext it calls an
 * external function `ext` (one relocation). */
static LLVMMemoryBufferRef emit_object(LLVMTargetMachineRef tm,
                                       const char *name, int call_ext) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("obj", ctx);
  LLVMValueRef ext = NULL;
  if (call_ext)
    ext = LLVMAddFunction(
        m, "ext", LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
  add_void_function(m, name, ext);
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &err, &buf)) {
    printf("emit failed: %s\n", err);
    exit(1);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return buf;
}

/* An ELF object with a call to an external function (one relocation). */
static LLVMMemoryBufferRef make_object(LLVMTargetMachineRef tm) {
  return emit_object(tm, "f", 1);
}

/* ---- cases --------------------------------------------------------------- */
#define CASE(name) static int case_##name(int bad)

/* Disposers: ok disposes once; bad disposes twice (double-free) or uses. */
CASE(context_dispose) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMContextDispose(context)");
  LLVMContextDispose(t.ctx); /* frees the module too */
  if (bad) {
    say("LLVMGetModuleIdentifier(module)");
    size_t n;
    LLVMGetModuleIdentifier(t.mod, &n);
  }
  return 0;
}
CASE(module_dispose) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMDisposeModule(module)");
  LLVMDisposeModule(t.mod);
  if (bad) {
    say("LLVMDisposeModule(module) again");
    LLVMDisposeModule(t.mod);
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
CASE(module_provider) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  LLVMModuleProviderRef mp = LLVMCreateModuleProviderForExistingModule(t.mod);
  say("LLVMDisposeModuleProvider(provider)");
  LLVMDisposeModuleProvider(mp);
  if (bad) {
    say("LLVMDisposeModule(module) after its provider");
    LLVMDisposeModule(t.mod);
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
CASE(builder_dispose) {
  struct ir t = make_ir("m");
  say("LLVMDisposeBuilder(builder)");
  LLVMDisposeBuilder(t.b);
  if (bad) {
    say("LLVMDisposeBuilder(builder) again");
    LLVMDisposeBuilder(t.b);
  }
  LLVMDisposeModule(t.mod);
  LLVMContextDispose(t.ctx);
  return 0;
}
CASE(memory_buffer_dispose) {
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("abc", 3, "buf");
  say("LLVMDisposeMemoryBuffer(buffer)");
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    say("LLVMGetBufferSize(buffer)");
    LLVMGetBufferSize(buf);
  }
  return 0;
}

/* Deleting IR objects. */
CASE(delete_function) {
  struct ir t = make_ir("m");
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(entry)");
    LLVMGetBasicBlockName(t.entry);
  }
  drop_ir(&t);
  return 0;
}
CASE(delete_global) {
  struct ir t = make_ir("m");
  LLVMValueRef g = LLVMAddGlobal(t.mod, t.i32, "g");
  say("LLVMDeleteGlobal(@g)");
  LLVMDeleteGlobal(g);
  if (bad) {
    say("LLVMGetInitializer(@g)");
    LLVMGetInitializer(g);
  }
  drop_ir(&t);
  return 0;
}
static LLVMValueRef make_ifunc(struct ir *t) {
  LLVMTypeRef ptr = LLVMPointerType(t->fn_type, 0);
  LLVMValueRef resolver =
      LLVMAddFunction(t->mod, "resolver", LLVMFunctionType(ptr, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(t->ctx);
  LLVMPositionBuilderAtEnd(
      b, LLVMAppendBasicBlockInContext(t->ctx, resolver, "e"));
  LLVMBuildRet(b, t->fn);
  LLVMDisposeBuilder(b);
  return LLVMAddGlobalIFunc(t->mod, "ifn", 3, t->fn_type, 0, resolver);
}
CASE(erase_global_ifunc) {
  struct ir t = make_ir("m");
  LLVMValueRef ifn = make_ifunc(&t);
  say("LLVMEraseGlobalIFunc(@ifn)");
  LLVMEraseGlobalIFunc(ifn);
  if (bad) {
    say("LLVMGetGlobalIFuncResolver(@ifn)");
    LLVMGetGlobalIFuncResolver(ifn);
  }
  drop_ir(&t);
  return 0;
}
CASE(remove_global_ifunc) {
  struct ir t = make_ir("m");
  LLVMValueRef ifn = make_ifunc(&t);
  say("LLVMRemoveGlobalIFunc(@ifn)");
  LLVMRemoveGlobalIFunc(
      ifn); /* the caller owns it now; it outlives the module */
  /* Erased while its context lives: a detached value's name is kept in its
   * context, which the report reads. */
  if (bad) {
    say("LLVMEraseGlobalIFunc(@ifn) on a detached ifunc");
    LLVMEraseGlobalIFunc(ifn);
  }
  drop_ir(&t);
  return 0;
}
/* A value that LLVM frees by itself (its block is deleted) is reported by
 * the name it had last: the name is gone from its memory by then. */
static int rename_case(int bad, int with_length) {
  struct ir t = make_ir("m");
  if (with_length) {
    say("LLVMSetValueName2(%sum, \"total\")");
    LLVMSetValueName2(t.sum, "total", 5);
  } else {
    say("LLVMSetValueName(%sum, \"total\")");
    LLVMSetValueName(t.sum, "total");
  }
  say("LLVMDeleteBasicBlock(entry): %total dies with it");
  LLVMDeleteBasicBlock(t.entry);
  if (bad) {
    say("LLVMGetInstructionOpcode(%total)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}
/* A module renamed through the C API is reported under its new name. */
CASE(set_module_identifier) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  say("LLVMSetModuleIdentifier(module, \"renamed\")");
  LLVMSetModuleIdentifier(t.mod, "renamed", 7);
  LLVMDisposeModule(t.mod);
  if (bad) {
    say("LLVMGetModuleIdentifier(module)");
    size_t n;
    LLVMGetModuleIdentifier(t.mod, &n);
  }
  LLVMContextDispose(t.ctx);
  return 0;
}
/* A lazy bitcode module owns its buffer: disposing it too is a misuse. */
CASE(get_bitcode_module) {
  struct ir t = make_ir("m");
  LLVMDisposeBuilder(t.b);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(t.mod);
  LLVMDisposeModule(t.mod);
  LLVMModuleRef lazy = NULL;
  say("LLVMGetBitcodeModuleInContext2(context, buffer)");
  if (LLVMGetBitcodeModuleInContext2(t.ctx, bc, &lazy))
    return 1;
  if (bad) {
    say("LLVMDisposeMemoryBuffer(buffer)");
    LLVMDisposeMemoryBuffer(bc);
  }
  LLVMDisposeModule(lazy);
  LLVMContextDispose(t.ctx);
  return 0;
}
CASE(set_value_name2) { return rename_case(bad, 1); }
CASE(set_value_name) { return rename_case(bad, 0); }
CASE(delete_basic_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  say("LLVMDeleteBasicBlock(other)");
  LLVMDeleteBasicBlock(other);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
  }
  drop_ir(&t);
  return 0;
}
CASE(instruction_erase) {
  struct ir t = make_ir("m");
  say("LLVMInstructionEraseFromParent(%sum)");
  LLVMInstructionEraseFromParent(t.sum);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}
CASE(delete_instruction) {
#if LLVM_VERSION_MAJOR >= 15
  struct ir t = make_ir("m");
  if (!bad) {
    say("LLVMInstructionRemoveFromParent(%sum)");
    LLVMInstructionRemoveFromParent(t.sum);
  }
  say("LLVMDeleteInstruction(%sum)");
  LLVMDeleteInstruction(t.sum);
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* Detaching and re-attaching. */
CASE(remove_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  say("LLVMRemoveBasicBlockFromParent(other)");
  LLVMRemoveBasicBlockFromParent(other);
  if (bad) {
    say("LLVMDeleteBasicBlock(other) on a detached block");
    LLVMDeleteBasicBlock(other);
  }
  say("LLVMAppendExistingBasicBlock(@foo, other)");
  LLVMAppendExistingBasicBlock(t.fn, other);
  drop_ir(&t);
  return 0;
}
CASE(remove_instruction) {
  struct ir t = make_ir("m");
  say("LLVMInstructionRemoveFromParent(%sum)");
  LLVMInstructionRemoveFromParent(t.sum);
  if (bad) {
    say("LLVMInstructionEraseFromParent(%sum) on a detached instruction");
    LLVMInstructionEraseFromParent(t.sum);
  }
  LLVMPositionBuilderBefore(t.b, t.ret);
  LLVMInsertIntoBuilder(t.b, t.sum);
  drop_ir(&t);
  return 0;
}
CASE(append_existing_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMRemoveBasicBlockFromParent(other);
  say("LLVMAppendExistingBasicBlock(@foo, other)");
  LLVMAppendExistingBasicBlock(t.fn, other);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
  }
  drop_ir(&t);
  return 0;
}
CASE(insert_existing_block) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMRemoveBasicBlockFromParent(other);
  LLVMPositionBuilderAtEnd(t.b, t.entry);
  say("LLVMInsertExistingBasicBlockAfterInsertBlock(builder, other)");
  LLVMInsertExistingBasicBlockAfterInsertBlock(t.b, other);
  LLVMClearInsertionPosition(t.b);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(other)");
    LLVMGetBasicBlockName(other);
  }
  drop_ir(&t);
  return 0;
}
static int insert_into_builder(int bad, int with_name) {
  struct ir t = make_ir("m");
  LLVMInstructionRemoveFromParent(t.sum);
  LLVMPositionBuilderBefore(t.b, t.ret);
  if (with_name) {
    say("LLVMInsertIntoBuilderWithName(builder, %sum, \"s\")");
    LLVMInsertIntoBuilderWithName(t.b, t.sum, "s");
  } else {
    say("LLVMInsertIntoBuilder(builder, %sum)");
    LLVMInsertIntoBuilder(t.b, t.sum);
  }
  LLVMClearInsertionPosition(t.b);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}
CASE(insert_into_builder) { return insert_into_builder(bad, 0); }
CASE(insert_into_builder_with_name) { return insert_into_builder(bad, 1); }

/* Out arrays: the handles written into the array are tracked. */
CASE(get_params) {
  struct ir t = make_ir("m");
  LLVMValueRef params[1];
  say("LLVMGetParams(@foo, params)");
  LLVMGetParams(t.fn, params);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMTypeOf(params[0])");
    LLVMTypeOf(params[0]);
  }
  drop_ir(&t);
  return 0;
}
CASE(get_basic_blocks) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef blocks[1];
  say("LLVMGetBasicBlocks(@foo, blocks)");
  LLVMGetBasicBlocks(t.fn, blocks);
  say("LLVMDeleteFunction(@foo)");
  LLVMDeleteFunction(t.fn);
  if (bad) {
    say("LLVMGetBasicBlockName(blocks[0])");
    LLVMGetBasicBlockName(blocks[0]);
  }
  drop_ir(&t);
  return 0;
}
/* Types live in their context: use after LLVMContextDispose. */
static int type_array_case(int bad, int which) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef i16 = LLVMInt16TypeInContext(ctx);
  LLVMTypeRef elems[2] = {i32, i16};
  LLVMTypeRef out[2];
  if (which == 0) {
    say("LLVMGetParamTypes(void (i32, i16), out)");
    LLVMGetParamTypes(LLVMFunctionType(LLVMVoidTypeInContext(ctx), elems, 2, 0),
                      out);
  } else if (which == 1) {
    say("LLVMGetStructElementTypes({i32, i16}, out)");
    LLVMGetStructElementTypes(LLVMStructTypeInContext(ctx, elems, 2, 0), out);
  } else {
    say("LLVMGetSubtypes({i32, i16}, out)");
    LLVMGetSubtypes(LLVMStructTypeInContext(ctx, elems, 2, 0), out);
  }
  say("LLVMContextDispose(context)");
  LLVMContextDispose(ctx);
  if (bad) {
    say("LLVMGetTypeKind(out[1])");
    LLVMGetTypeKind(out[1]);
  }
  return 0;
}
CASE(get_param_types) { return type_array_case(bad, 0); }
CASE(get_struct_element_types) { return type_array_case(bad, 1); }
CASE(get_subtypes) { return type_array_case(bad, 2); }
CASE(get_md_node_operands) {
  struct ir t = make_ir("m");
  LLVMValueRef ops[2] = {LLVMConstInt(t.i32, 5, 0),
                         LLVMMDStringInContext(t.ctx, "s", 1)};
  LLVMValueRef node = LLVMMDNodeInContext(t.ctx, ops, 2);
  LLVMValueRef out[2];
  say("LLVMGetMDNodeOperands(node, out)");
  LLVMGetMDNodeOperands(node, out);
  drop_ir(&t);
  if (bad) {
    say("LLVMTypeOf(out[0])");
    LLVMTypeOf(out[0]);
  }
  return 0;
}
CASE(get_named_metadata_operands) {
  struct ir t = make_ir("m");
  LLVMValueRef ops[1] = {LLVMMDStringInContext(t.ctx, "s", 1)};
  LLVMAddNamedMetadataOperand(t.mod, "nm", LLVMMDNodeInContext(t.ctx, ops, 1));
  LLVMValueRef out[1];
  say("LLVMGetNamedMetadataOperands(module, \"nm\", out)");
  LLVMGetNamedMetadataOperands(t.mod, "nm", out);
  drop_ir(&t);
  if (bad) {
    say("LLVMGetMDNodeNumOperands(out[0])");
    LLVMGetMDNodeNumOperands(out[0]);
  }
  return 0;
}

/* Builder positions: the insertion point dies with its block. */
static int position_case(int bad, int which) {
  struct ir t = make_ir("m");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(t.ctx, t.fn, "other");
  LLVMPositionBuilderAtEnd(t.b, other);
  LLVMValueRef inst = LLVMBuildRetVoid(t.b);
  switch (which) {
  case 0:
    say("LLVMPositionBuilder(builder, other, ret)");
    LLVMPositionBuilder(t.b, other, inst);
    break;
  case 1:
    say("LLVMPositionBuilderBefore(builder, ret)");
    LLVMPositionBuilderBefore(t.b, inst);
    break;
  case 2:
    say("LLVMPositionBuilderAtEnd(builder, other)");
    LLVMPositionBuilderAtEnd(t.b, other);
    break;
#if LLVM_VERSION_MAJOR >= 19
  case 4:
    say("LLVMPositionBuilderBeforeDbgRecords(builder, other, ret)");
    LLVMPositionBuilderBeforeDbgRecords(t.b, other, inst);
    break;
  case 5:
    say("LLVMPositionBuilderBeforeInstrAndDbgRecords(builder, ret)");
    LLVMPositionBuilderBeforeInstrAndDbgRecords(t.b, inst);
    break;
#endif
  default:
    break;
  }
  if (which == 3 || !bad) {
    /* LLVMClearInsertionPosition: the builder no longer points into `other` */
    say("LLVMClearInsertionPosition(builder)");
    LLVMClearInsertionPosition(t.b);
  }
  say("LLVMDeleteBasicBlock(other)");
  LLVMDeleteBasicBlock(other);
  if (bad && which != 3) {
    say("LLVMBuildUnreachable(builder)");
    LLVMBuildUnreachable(t.b);
  }
  if (which == 3) {
    if (bad) {
      say("LLVMPositionBuilderAtEnd(builder, other) after delete");
      LLVMPositionBuilderAtEnd(t.b, other);
    }
  }
  drop_ir(&t);
  return 0;
}
CASE(position_builder) { return position_case(bad, 0); }
CASE(position_builder_before) { return position_case(bad, 1); }
CASE(position_builder_at_end) { return position_case(bad, 2); }
CASE(clear_insertion_position) { return position_case(bad, 3); }
CASE(position_before_dbg_records) {
#if LLVM_VERSION_MAJOR >= 19
  return position_case(bad, 4);
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
CASE(position_before_instr_and_dbg_records) {
#if LLVM_VERSION_MAJOR >= 19
  return position_case(bad, 5);
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* LLVMRunPasses: instructions a pass deletes are reported with its text. */
CASE(run_passes) {
  struct ir t = make_ir("m");
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  say("LLVMRunPasses(module, \"dce\")");
  LLVMErrorRef e = LLVMRunPasses(t.mod, "function(dce)", NULL, o);
  if (e)
    LLVMConsumeError(e);
  LLVMDisposePassBuilderOptions(o);
  if (bad) {
    say("LLVMGetInstructionOpcode(%sum)");
    LLVMGetInstructionOpcode(t.sum);
  }
  drop_ir(&t);
  return 0;
}

/* Execution engines (the interpreter: no native target needed). */
struct engine {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMExecutionEngineRef ee;
  LLVMValueRef main_fn, g;
};
static struct engine make_engine(void) {
  struct engine e;
  LLVMLinkInInterpreter();
  e.ctx = LLVMContextCreate();
  e.mod = make_main_module(e.ctx, "jit");
  e.main_fn = LLVMGetNamedFunction(e.mod, "main");
  e.g = LLVMGetNamedGlobal(e.mod, "g");
  char *err = NULL;
  if (LLVMCreateInterpreterForModule(&e.ee, e.mod, &err)) {
    printf("interpreter: %s\n", err);
    exit(1);
  }
  return e;
}
static void drop_engine(struct engine *e) {
  LLVMDisposeExecutionEngine(e->ee);
  LLVMContextDispose(e->ctx);
}
static int engine_call_case(int bad, int which) {
  struct engine e = make_engine();
  if (bad) {
    say("LLVMDisposeExecutionEngine(engine)");
    LLVMDisposeExecutionEngine(e.ee);
  }
  switch (which) {
  case 0: {
    say("LLVMRunFunction(engine, @main)");
    LLVMGenericValueRef r = LLVMRunFunction(e.ee, e.main_fn, 0, NULL);
    printf("result %llu\n", LLVMGenericValueToInt(r, 0));
    LLVMDisposeGenericValue(r);
    break;
  }
  case 1: {
    const char *argv[] = {"prog", NULL};
    const char *envp[] = {NULL};
    say("LLVMRunFunctionAsMain(engine, @main)");
    printf("exit %d\n", LLVMRunFunctionAsMain(e.ee, e.main_fn, 1, argv, envp));
    break;
  }
  case 2:
    say("LLVMFreeMachineCodeForFunction(engine, @main)");
    LLVMFreeMachineCodeForFunction(e.ee, e.main_fn);
    break;
  case 3:
    say("LLVMGetPointerToGlobal(engine, @main)");
    (void)LLVMGetPointerToGlobal(e.ee, e.main_fn);
    break;
  case 4: {
    static int storage;
    say("LLVMAddGlobalMapping(engine, @g, &storage)");
    LLVMAddGlobalMapping(e.ee, e.g, &storage);
    break;
  }
  case 5:
    say("LLVMRecompileAndRelinkFunction(engine, @main)");
    (void)LLVMRecompileAndRelinkFunction(e.ee, e.main_fn);
    break;
  }
  drop_engine(&e);
  return 0;
}
CASE(run_function) { return engine_call_case(bad, 0); }
CASE(run_function_as_main) { return engine_call_case(bad, 1); }
CASE(free_machine_code) { return engine_call_case(bad, 2); }
CASE(get_pointer_to_global) { return engine_call_case(bad, 3); }
CASE(add_global_mapping) { return engine_call_case(bad, 4); }
CASE(recompile_and_relink) { return engine_call_case(bad, 5); }
CASE(run_function_result) {
  struct engine e = make_engine();
  say("LLVMRunFunction(engine, @main)");
  LLVMGenericValueRef r = LLVMRunFunction(e.ee, e.main_fn, 0, NULL);
  say("LLVMDisposeGenericValue(result)");
  LLVMDisposeGenericValue(r);
  if (bad) {
    say("LLVMGenericValueToInt(result)");
    LLVMGenericValueToInt(r, 0);
  }
  drop_engine(&e);
  return 0;
}

/* Arguments LLVM only reads as data (data_only): ok takes the shuffle mask
 * (for LLVMGetCastOpcode, the type) from another context, as llvm-c-test
 * --echo does; bad mixes contexts where it counts, in the second vector
 * (cross-context), or passes a type of a disposed context (use-after-free:
 * the exemption leaves out the context checks only). */
static int shuffle_case(int bad, int constant) {
  struct ir t = make_ir("m");
  LLVMContextRef other = LLVMContextCreate();
  LLVMTypeRef other_i32 = LLVMInt32TypeInContext(other);
  LLVMValueRef lanes[2] = {LLVMConstInt(other_i32, 1, 0),
                           LLVMConstInt(other_i32, 0, 0)};
  LLVMValueRef mask = LLVMConstVector(lanes, 2);
  LLVMValueRef v1 = LLVMConstNull(LLVMVectorType(t.i32, 2));
  LLVMValueRef v2 =
      LLVMConstAllOnes(LLVMVectorType(bad ? other_i32 : t.i32, 2));
  say(bad ? "shuffle of vectors of two contexts"
          : "shuffle with a mask of another context");
  LLVMValueRef r = constant ? LLVMConstShuffleVector(v1, v2, mask)
                            : LLVMBuildShuffleVector(t.b, v1, v2, mask, "s");
  char *text = LLVMPrintValueToString(r);
  say(text);
  LLVMDisposeMessage(text);
  LLVMContextDispose(other);
  drop_ir(&t);
  return 0;
}
CASE(build_shuffle_vector) { return shuffle_case(bad, 0); }
CASE(const_shuffle_vector) { return shuffle_case(bad, 1); }
CASE(cast_opcode) {
#if LLVM_VERSION_MAJOR >= 15
  struct ir t = make_ir("m");
  LLVMContextRef other = LLVMContextCreate();
  LLVMTypeRef dest = LLVMInt64TypeInContext(other);
  if (bad) {
    say("LLVMContextDispose(other context)");
    LLVMContextDispose(other);
  }
  say("LLVMGetCastOpcode(%x, i64 of another context)");
  printf("opcode %d\n",
         (int)LLVMGetCastOpcode(LLVMGetParam(t.fn, 0), 0, dest, 0));
  LLVMContextDispose(other);
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* Consumed arguments. */
static LLVMMemoryBufferRef ir_text_buffer(void) {
  static const char text[] = "define i32 @f() {\n  ret i32 1\n}\n";
  return LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "ir");
}
CASE(parse_ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = ir_text_buffer();
  LLVMModuleRef m = NULL;
  char *err = NULL;
  say("LLVMParseIRInContext(context, buffer)");
  if (LLVMParseIRInContext(ctx, buf, &m, &err)) {
    printf("parse: %s\n", err);
    return 1;
  }
  if (bad) {
    say("LLVMDisposeMemoryBuffer(buffer)");
    LLVMDisposeMemoryBuffer(buf);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}
CASE(parse_ir_failed) {
  LLVMContextRef ctx = LLVMContextCreate();
  static const char text[] = "this is not IR";
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "bad");
  LLVMModuleRef m = NULL;
  char *err = NULL;
  say("LLVMParseIRInContext(context, not IR)");
  if (LLVMParseIRInContext(ctx, buf, &m, &err)) {
    say("failed");
    LLVMDisposeMessage(err);
  }
  if (bad) {
    say("LLVMDisposeMessage(error) again");
    LLVMDisposeMessage(err);
  }
  LLVMContextDispose(ctx);
  return 0;
}
CASE(link_modules) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef dst = LLVMModuleCreateWithNameInContext("dst", ctx);
  LLVMModuleRef src = make_main_module(ctx, "src");
  say("LLVMLinkModules2(dst, src)");
  if (LLVMLinkModules2(dst, src))
    say("link failed");
  if (bad) {
    say("LLVMGetNamedFunction(src, \"main\")");
    LLVMGetNamedFunction(src, "main");
  }
  LLVMDisposeModule(dst);
  LLVMContextDispose(ctx);
  return 0;
}

/* Engines own their modules. */
CASE(create_execution_engine) {
  LLVMLinkInInterpreter();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMExecutionEngineRef ee;
  char *err = NULL;
  say("LLVMCreateExecutionEngineForModule(&engine, module)");
  if (LLVMCreateExecutionEngineForModule(&ee, m, &err)) {
    printf("%s\n", err);
    return 1;
  }
  if (bad) {
    say("LLVMDisposeModule(module) owned by the engine");
    LLVMDisposeModule(m);
  }
  LLVMDisposeExecutionEngine(ee);
  LLVMContextDispose(ctx);
  return 0;
}
CASE(create_interpreter) {
  struct engine e = make_engine();
  if (bad) {
    say("LLVMDisposeModule(module) owned by the engine");
    LLVMDisposeModule(e.mod);
  }
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  LLVMContextDispose(e.ctx);
  return 0;
}
/* JIT and MCJIT without a native target: creation fails and destroys the
 * module (consume_if_failed). */
static int failed_jit_case(int bad, int mcjit) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMExecutionEngineRef ee = NULL;
  char *err = NULL;
  LLVMBool failed;
  if (mcjit) {
    struct LLVMMCJITCompilerOptions o;
    LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
    say("LLVMCreateMCJITCompilerForModule(&engine, module) without a target");
    failed = LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err);
  } else {
    say("LLVMCreateJITCompilerForModule(&engine, module) without a target");
    failed = LLVMCreateJITCompilerForModule(&ee, m, 0, &err);
  }
  if (!failed) {
    say("unexpectedly created");
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    return 0;
  }
  say("failed");
  LLVMDisposeMessage(err);
  if (bad) {
    say("LLVMDisposeModule(module) destroyed by the failed call");
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
  return 0;
}
CASE(create_jit) { return failed_jit_case(bad, 0); }
CASE(create_mcjit) { return failed_jit_case(bad, 1); }
CASE(add_module) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  say("LLVMAddModule(engine, second)");
  LLVMAddModule(e.ee, m2);
  if (bad) {
    say("LLVMDisposeModule(second) owned by the engine");
    LLVMDisposeModule(m2);
  }
  drop_engine(&e);
  return 0;
}
CASE(thread_safe_module) {
  /* The module belongs to the thread-safe module from then on. */
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tsm", ctx);
  say("LLVMOrcCreateNewThreadSafeModule(module)");
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  if (bad) {
    say("LLVMDisposeModule(module) owned by the thread-safe module");
    LLVMDisposeModule(m);
  }
  say("LLVMOrcDisposeThreadSafeModule(tsm)");
  LLVMOrcDisposeThreadSafeModule(tsm);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMContextDispose(ctx);
  return 0;
}
CASE(thread_safe_context_from_context) {
#if LLVM_VERSION_MAJOR >= 21
  LLVMContextRef ctx = LLVMContextCreate();
  say("LLVMOrcCreateNewThreadSafeContextFromLLVMContext(context)");
  LLVMOrcThreadSafeContextRef tsc =
      LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  if (bad) {
    say("LLVMContextDispose(context) owned by the thread-safe context");
    LLVMContextDispose(ctx);
  }
  say("LLVMOrcDisposeThreadSafeContext(tsc)");
  LLVMOrcDisposeThreadSafeContext(tsc);
  return 0;
#else
  (void)bad;
  printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
  return 77;
#endif
}
CASE(remove_module) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  LLVMAddModule(e.ee, m2);
  LLVMModuleRef out = NULL;
  char *err = NULL;
  if (bad) {
    say("LLVMDisposeExecutionEngine(engine)");
    LLVMDisposeExecutionEngine(e.ee);
  }
  say("LLVMRemoveModule(engine, second)");
  if (LLVMRemoveModule(e.ee, m2, &out, &err)) {
    printf("%s\n", err);
    return 1;
  }
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  say("LLVMDisposeModule(second): ours again");
  LLVMDisposeModule(out);
  LLVMContextDispose(e.ctx);
  return 0;
}
CASE(engine_twice) {
  /* One module, two engines: only after LLVMRemoveModule is it ours to give
   * again (a binding that builds a new engine per run forgets that). */
  struct engine e = make_engine();
  LLVMExecutionEngineRef ee2;
  LLVMModuleRef out = NULL;
  char *err = NULL;
  if (!bad) {
    say("LLVMRemoveModule(engine, module)");
    if (LLVMRemoveModule(e.ee, e.mod, &out, &err)) {
      printf("%s\n", err);
      return 1;
    }
  }
  say("LLVMCreateInterpreterForModule(&engine2, module)");
  if (LLVMCreateInterpreterForModule(&ee2, e.mod, &err)) {
    printf("%s\n", err);
    return 1;
  }
  LLVMDisposeExecutionEngine(ee2);
  LLVMDisposeExecutionEngine(e.ee);
  LLVMContextDispose(e.ctx);
  return 0;
}
CASE(add_module_twice) {
  struct engine e = make_engine();
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("second", e.ctx);
  say("LLVMAddModule(engine, second)");
  LLVMAddModule(e.ee, m2);
  if (bad) {
    say("LLVMAddModule(engine, second) again");
    LLVMAddModule(e.ee, m2);
  }
  drop_engine(&e);
  return 0;
}
CASE(dispose_engine) {
  struct engine e = make_engine();
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(e.ee);
  if (bad) {
    say("LLVMGetNamedFunction(module, \"main\")");
    LLVMGetNamedFunction(e.mod, "main");
  }
  LLVMContextDispose(e.ctx);
  return 0;
}

/* Messages: ok disposes once, bad twice. */
static int message_case(int bad, char *s, const char *what) {
  say(what);
  if (!s) {
    say("(null)");
    return 1;
  }
  say("LLVMDisposeMessage(string)");
  LLVMDisposeMessage(s);
  if (bad) {
    say("LLVMDisposeMessage(string) again");
    LLVMDisposeMessage(s);
  }
  return 0;
}
CASE(create_message) {
  return message_case(bad, LLVMCreateMessage("hello"), "LLVMCreateMessage");
}
CASE(print_module) {
  struct ir t = make_ir("m");
  int r = message_case(bad, LLVMPrintModuleToString(t.mod),
                       "LLVMPrintModuleToString");
  drop_ir(&t);
  return r;
}
CASE(print_type) {
  struct ir t = make_ir("m");
  int r =
      message_case(bad, LLVMPrintTypeToString(t.i32), "LLVMPrintTypeToString");
  drop_ir(&t);
  return r;
}
CASE(print_value) {
  struct ir t = make_ir("m");
  int r = message_case(bad, LLVMPrintValueToString(t.sum),
                       "LLVMPrintValueToString");
  drop_ir(&t);
  return r;
}
CASE(print_dbg_record) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMSetIsNewDbgInfoFormat(t.mod, 1);
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  LLVMMetadataRef file = LLVMDIBuilderCreateFile(d, "a.c", 3, ".", 1);
  LLVMMetadataRef cu = LLVMDIBuilderCreateCompileUnit(
      d, LLVMDWARFSourceLanguageC, file, "p", 1, 0, "", 0, 0, "", 0,
      LLVMDWARFEmissionFull, 0, 0, 0, "", 0, "", 0);
  LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(d, file, NULL, 0, 0);
  LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(d, cu, "foo", 3, "foo", 3,
                                                   file, 1, sty, 0, 1, 1, 0, 0);
  LLVMSetSubprogram(t.fn, sp);
  LLVMMetadataRef ity = LLVMDIBuilderCreateBasicType(d, "int", 3, 32, 5, 0);
  LLVMMetadataRef var =
      LLVMDIBuilderCreateAutoVariable(d, sp, "v", 1, file, 1, ity, 0, 0, 0);
  LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(t.ctx, 1, 1, sp, NULL);
  LLVMDbgRecordRef rec = LLVMDIBuilderInsertDbgValueRecordBefore(
      d, t.sum, var, LLVMDIBuilderCreateExpression(d, NULL, 0), loc, t.ret);
  LLVMDIBuilderFinalize(d);
  int r = message_case(bad, LLVMPrintDbgRecordToString(rec),
                       "LLVMPrintDbgRecordToString");
  LLVMDisposeDIBuilder(d);
  drop_ir(&t);
  return r;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
static char *g_diag;
static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
  (void)ctx;
  if (!g_diag)
    g_diag = LLVMGetDiagInfoDescription(di);
}
CASE(diag_info_description) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, diag_handler, NULL);
  LLVMModuleRef a = make_main_module(ctx, "a");
  LLVMModuleRef b2 = make_main_module(ctx, "b");
  say("LLVMLinkModules2(a, b): both define @main");
  LLVMLinkModules2(a, b2);
  LLVMDisposeModule(a);
  LLVMContextDispose(ctx);
  return message_case(bad, g_diag,
                      "LLVMGetDiagInfoDescription (from the handler)");
}
CASE(target_data_string) {
  LLVMTargetDataRef td = LLVMCreateTargetData("e-m:e-i64:64");
  int r = message_case(bad, LLVMCopyStringRepOfTargetData(td),
                       "LLVMCopyStringRepOfTargetData");
  LLVMDisposeTargetData(td);
  return r;
}
CASE(default_target_triple) {
  return message_case(bad, LLVMGetDefaultTargetTriple(),
                      "LLVMGetDefaultTargetTriple");
}
CASE(normalize_target_triple) {
  return message_case(bad, LLVMNormalizeTargetTriple("x86_64-linux"),
                      "LLVMNormalizeTargetTriple");
}
CASE(host_cpu_name) {
  return message_case(bad, LLVMGetHostCPUName(), "LLVMGetHostCPUName");
}
CASE(host_cpu_features) {
  return message_case(bad, LLVMGetHostCPUFeatures(), "LLVMGetHostCPUFeatures");
}
static int tm_string_case(int bad, int which) {
  LLVMTargetMachineRef tm = make_tm();
  char *s = which == 0   ? LLVMGetTargetMachineTriple(tm)
            : which == 1 ? LLVMGetTargetMachineCPU(tm)
                         : LLVMGetTargetMachineFeatureString(tm);
  int r =
      message_case(bad, s, "LLVMGetTargetMachine{Triple,CPU,FeatureString}");
  LLVMDisposeTargetMachine(tm);
  return r;
}
CASE(target_machine_triple) { return tm_string_case(bad, 0); }
CASE(target_machine_cpu) { return tm_string_case(bad, 1); }
CASE(target_machine_features) { return tm_string_case(bad, 2); }
CASE(intrinsic_copy_overloaded_name) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  size_t n;
  unsigned id = LLVMLookupIntrinsicID("llvm.ctpop", 10);
  int r = message_case(bad,
                       (char *)LLVMIntrinsicCopyOverloadedName(id, &i32, 1, &n),
                       "LLVMIntrinsicCopyOverloadedName");
  LLVMContextDispose(ctx);
  return r;
}
CASE(intrinsic_copy_overloaded_name2) {
  struct ir t = make_ir("m");
  size_t n;
  unsigned id = LLVMLookupIntrinsicID("llvm.ctpop", 10);
  int r = message_case(
      bad, (char *)LLVMIntrinsicCopyOverloadedName2(t.mod, id, &t.i32, 1, &n),
      "LLVMIntrinsicCopyOverloadedName2");
  drop_ir(&t);
  return r;
}
CASE(jtmb_target_triple) {
  LLVMOrcJITTargetMachineBuilderRef jtmb = NULL;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (e) {
    char *m = LLVMGetErrorMessage(e);
    printf("detect host: %s\n", m);
    LLVMDisposeErrorMessage(m);
    return EXIT_NOT_AVAILABLE;
  }
  int r = message_case(bad, LLVMOrcJITTargetMachineBuilderGetTargetTriple(jtmb),
                       "LLVMOrcJITTargetMachineBuilderGetTargetTriple");
  LLVMOrcDisposeJITTargetMachineBuilder(jtmb);
  return r;
}
CASE(verify_module) {
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMVerifyModule(module, ReturnStatus, &msg): success still writes msg");
  printf("broken %d\n", LLVMVerifyModule(t.mod, LLVMReturnStatusAction, &msg));
  drop_ir(&t);
  return message_case(bad, msg, "verify message");
}
CASE(print_module_to_file) {
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMPrintModuleToFile(module, \"/nonexistent/dir/m.ll\")");
  printf("failed %d\n",
         LLVMPrintModuleToFile(t.mod, "/nonexistent/dir/m.ll", &msg));
  drop_ir(&t);
  return message_case(bad, msg, "error message");
}
CASE(buffer_from_file) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  say("LLVMCreateMemoryBufferWithContentsOfFile(\"/nonexistent/file\")");
  printf("failed %d\n", LLVMCreateMemoryBufferWithContentsOfFile(
                            "/nonexistent/file", &buf, &msg));
  return message_case(bad, msg, "error message");
}
CASE(buffer_from_stdin) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  close(0);
  say("LLVMCreateMemoryBufferWithSTDIN() with stdin closed");
  printf("failed %d\n", LLVMCreateMemoryBufferWithSTDIN(&buf, &msg));
  return message_case(bad, msg, "error message");
}
CASE(emit_to_file) {
  LLVMTargetMachineRef tm = make_tm();
  struct ir t = make_ir("m");
  char *msg = NULL;
  say("LLVMTargetMachineEmitToFile(tm, module, \"/nonexistent/dir/m.o\")");
  printf("failed %d\n",
         LLVMTargetMachineEmitToFile(tm, t.mod, "/nonexistent/dir/m.o",
                                     LLVMObjectFile, &msg));
  drop_ir(&t);
  LLVMDisposeTargetMachine(tm);
  return message_case(bad, msg, "error message");
}
CASE(emit_to_memory_buffer) {
  /* Success path: the out buffer is the caller's; on failure the message
   * would be (the failure path cannot be provoked portably). */
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  say("LLVMDisposeMemoryBuffer(object)");
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    say("LLVMDisposeMemoryBuffer(object) again");
    LLVMDisposeMemoryBuffer(buf);
  }
  return 0;
}

/* Errors. */
CASE(consume_error) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  say("LLVMConsumeError(error)");
  LLVMConsumeError(e);
  if (bad) {
    say("LLVMConsumeError(error) again");
    LLVMConsumeError(e);
  }
  return 0;
}
CASE(get_error_message) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  say("LLVMGetErrorMessage(error)");
  char *m = LLVMGetErrorMessage(e);
  printf("message %s\n", m);
  if (bad) {
    say("LLVMConsumeError(error) after LLVMGetErrorMessage");
    LLVMConsumeError(e);
  }
  LLVMDisposeErrorMessage(m);
  return 0;
}
CASE(dispose_error_message) {
  LLVMErrorRef e = LLVMCreateStringError("boom");
  char *m = LLVMGetErrorMessage(e);
  if (bad) {
    say("LLVMDisposeMessage(error message)");
    LLVMDisposeMessage(m);
  }
  say("LLVMDisposeErrorMessage(error message)");
  LLVMDisposeErrorMessage(m);
  return 0;
}
CASE(dispose_message_foreign) {
  /* LLVMDisposeMessage on a string LLVM handed out as borrowed. */
  struct ir t = make_ir("m");
  size_t n;
  const char *name = LLVMGetModuleIdentifier(t.mod, &n);
  printf("module %s\n", name);
  if (bad) {
    say("LLVMDisposeMessage(module identifier)");
    LLVMDisposeMessage((char *)name);
  }
  drop_ir(&t);
  return 0;
}

/* Binaries and their iterators (an ELF object from the X86 target). */
struct bin {
  LLVMMemoryBufferRef buf;
  LLVMBinaryRef bin;
  LLVMContextRef ctx;
};
static struct bin make_binary(void) {
  struct bin b;
  LLVMTargetMachineRef tm = make_tm();
  b.buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  b.ctx = LLVMContextCreate();
  char *err = NULL;
  b.bin = LLVMCreateBinary(b.buf, b.ctx, &err);
  if (!b.bin) {
    printf("create binary: %s\n", err);
    exit(1);
  }
  return b;
}
static void drop_binary(struct bin *b) {
  LLVMDisposeBinary(b->bin);
  LLVMDisposeMemoryBuffer(b->buf);
  LLVMContextDispose(b->ctx);
}
CASE(create_binary) {
  struct bin b = make_binary();
  printf("binary type %d\n", (int)LLVMBinaryGetType(b.bin));
  say("LLVMDisposeBinary(binary)");
  LLVMDisposeBinary(b.bin);
  if (bad) {
    say("LLVMDisposeBinary(binary) again");
    LLVMDisposeBinary(b.bin);
  }
  LLVMDisposeMemoryBuffer(b.buf);
  LLVMContextDispose(b.ctx);
  return 0;
}
CASE(create_binary_bitcode) {
  /* Bitcode bytes are a binary too (IRObjectFile). */
  struct ir t = make_ir("m");
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(t.mod);
  char *err = NULL;
  say("LLVMCreateBinary(bitcode)");
  LLVMBinaryRef bin = LLVMCreateBinary(buf, t.ctx, &err);
  if (!bin) {
    printf("create binary: %s\n", err);
    LLVMDisposeMessage(err);
    return 1;
  }
  printf("binary type %d\n", (int)LLVMBinaryGetType(bin));
  LLVMDisposeBinary(bin);
  if (bad) {
    say("LLVMBinaryGetType(binary) after dispose");
    LLVMBinaryGetType(bin);
  }
  LLVMDisposeMemoryBuffer(buf);
  drop_ir(&t);
  return 0;
}
CASE(create_binary_failed) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("junk", 4, "junk");
  char *err = NULL;
  say("LLVMCreateBinary(junk)");
  LLVMBinaryRef bin = LLVMCreateBinary(buf, ctx, &err);
  printf("binary %s\n", bin ? "made" : "null");
  LLVMDisposeMemoryBuffer(buf);
  LLVMContextDispose(ctx);
  return message_case(bad, err, "error message");
}
static int iterator_case(int bad, int which) {
  struct bin b = make_binary();
  LLVMSectionIteratorRef si = LLVMObjectFileCopySectionIterator(b.bin);
  if (which == 0) {
    int n = 0;
    while (!LLVMObjectFileIsSectionIteratorAtEnd(b.bin, si)) {
      ++n;
      LLVMMoveToNextSection(si);
    }
    printf("sections %d\n", n > 0);
    if (bad) {
      say("LLVMDisposeBinary(binary)");
      LLVMDisposeBinary(b.bin);
      say("LLVMMoveToNextSection(section iterator)");
      LLVMMoveToNextSection(si);
    }
    say("LLVMDisposeSectionIterator(section iterator)");
    LLVMDisposeSectionIterator(si);
  } else if (which == 1) {
    LLVMSymbolIteratorRef sym = LLVMObjectFileCopySymbolIterator(b.bin);
    int n = 0;
    while (!LLVMObjectFileIsSymbolIteratorAtEnd(b.bin, sym)) {
      ++n;
      LLVMMoveToNextSymbol(sym);
    }
    printf("symbols %d\n", n > 0);
    say("LLVMDisposeSymbolIterator(symbol iterator)");
    LLVMDisposeSymbolIterator(sym);
    if (bad) {
      say("LLVMDisposeSymbolIterator(symbol iterator) again");
      LLVMDisposeSymbolIterator(sym);
    }
    LLVMDisposeSectionIterator(si);
  } else {
    /* find .rela.text (the relocation of the call to @ext) */
    for (;;) {
      if (LLVMObjectFileIsSectionIteratorAtEnd(b.bin, si)) {
        say("no .rela.text");
        return 1;
      }
      const char *name = LLVMGetSectionName(si);
      if (name && strcmp(name, ".rela.text") == 0)
        break;
      LLVMMoveToNextSection(si);
    }
    LLVMRelocationIteratorRef ri = LLVMGetRelocations(si);
    int n = 0;
    while (!LLVMIsRelocationIteratorAtEnd(si, ri)) {
      char *v = (char *)LLVMGetRelocationValueString(ri);
      LLVMDisposeMessage(v);
      ++n;
      LLVMMoveToNextRelocation(ri);
    }
    printf("relocations %d\n", n > 0);
    if (which == 4) {
      /* owned and not NUL-terminated: never strlen'ed */
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      char *v = (char *)LLVMGetRelocationTypeName(ri);
      say("LLVMDisposeMessage(relocation type name)");
      LLVMDisposeMessage(v);
      if (bad) {
        say("LLVMDisposeMessage(relocation type name) again");
        LLVMDisposeMessage(v);
      }
    }
    if (which == 5) {
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      say("LLVMGetRelocationSymbol(relocation iterator)");
      LLVMSymbolIteratorRef sym = LLVMGetRelocationSymbol(ri);
      say("LLVMDisposeSymbolIterator(symbol of the relocation)");
      LLVMDisposeSymbolIterator(sym);
      if (bad) {
        say("LLVMDisposeSymbolIterator(symbol of the relocation) again");
        LLVMDisposeSymbolIterator(sym);
      }
    }
    if (which == 3) {
      LLVMDisposeRelocationIterator(ri);
      ri = LLVMGetRelocations(si);
      char *v = (char *)LLVMGetRelocationValueString(ri);
      say("LLVMDisposeMessage(relocation value string)");
      LLVMDisposeMessage(v);
      if (bad) {
        say("LLVMDisposeMessage(relocation value string) again");
        LLVMDisposeMessage(v);
      }
    }
    say("LLVMDisposeRelocationIterator(relocation iterator)");
    LLVMDisposeRelocationIterator(ri);
    if (bad && which == 2) {
      say("LLVMDisposeRelocationIterator(relocation iterator) again");
      LLVMDisposeRelocationIterator(ri);
    }
    LLVMDisposeSectionIterator(si);
  }
  if (!(bad && which == 0))
    drop_binary(&b);
  return 0;
}
CASE(section_iterator) { return iterator_case(bad, 0); }
CASE(symbol_iterator) { return iterator_case(bad, 1); }
CASE(relocation_iterator) { return iterator_case(bad, 2); }
CASE(relocation_value_string) { return iterator_case(bad, 3); }
CASE(relocation_type_name) { return iterator_case(bad, 4); }
CASE(relocation_symbol) { return iterator_case(bad, 5); }

/* The deprecated object-file API: LLVMCreateObjectFile takes the buffer. */
CASE(object_file) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  say("LLVMCreateObjectFile(object)");
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  if (!of) {
    say("no object file");
    return 1;
  }
  if (bad) {
    say("LLVMGetBufferSize(object) taken by LLVMCreateObjectFile");
    LLVMGetBufferSize(buf);
  }
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  return 0;
}
CASE(object_file_failed) {
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy("junk", 4, "junk");
  say("LLVMCreateObjectFile(junk)");
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  printf("object file %s\n", of ? "made" : "null");
  if (bad) {
    say("LLVMDisposeMemoryBuffer(junk) destroyed by the failed call");
    LLVMDisposeMemoryBuffer(buf);
  }
  return 0;
}
static int object_file_iterator_case(int bad, int symbols) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  if (!of) {
    say("no object file");
    return 1;
  }
  int n = 0;
  if (symbols) {
    say("LLVMGetSymbols(object file)");
    LLVMSymbolIteratorRef sym = LLVMGetSymbols(of);
    while (!LLVMIsSymbolIteratorAtEnd(of, sym)) {
      ++n;
      LLVMMoveToNextSymbol(sym);
    }
    printf("symbols %d\n", n > 0);
    /* The iterator is its own allocation: disposing it after its object
     * file is fine (llvmlite does), using it is not. */
    say("LLVMDisposeObjectFile(object file)");
    LLVMDisposeObjectFile(of);
    if (bad) {
      say("LLVMMoveToNextSymbol(symbol iterator) of the freed object file");
      LLVMMoveToNextSymbol(sym);
      return 0;
    }
    say("LLVMDisposeSymbolIterator(symbol iterator) of the freed object file");
    LLVMDisposeSymbolIterator(sym);
    return 0;
  } else {
    say("LLVMGetSections(object file)");
    LLVMSectionIteratorRef si = LLVMGetSections(of);
    while (!LLVMIsSectionIteratorAtEnd(of, si)) {
      ++n;
      LLVMMoveToNextSection(si);
    }
    printf("sections %d\n", n > 0);
    if (bad) {
      say("LLVMDisposeObjectFile(object file)");
      LLVMDisposeObjectFile(of);
      say("LLVMMoveToNextSection(section iterator) of the freed object file");
      LLVMMoveToNextSection(si);
      return 0;
    }
    LLVMDisposeSectionIterator(si);
  }
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  return 0;
}
CASE(object_file_sections) { return object_file_iterator_case(bad, 0); }
CASE(object_file_iterator_twice) {
  /* Disposing an iterator after its object file is fine once. */
  LLVMTargetMachineRef tm = make_tm();
  LLVMMemoryBufferRef buf = make_object(tm);
  LLVMDisposeTargetMachine(tm);
  LLVMObjectFileRef of = LLVMCreateObjectFile(buf);
  LLVMSectionIteratorRef si = LLVMGetSections(of);
  say("LLVMDisposeObjectFile(object file)");
  LLVMDisposeObjectFile(of);
  say("LLVMDisposeSectionIterator(section iterator) of the freed object file");
  LLVMDisposeSectionIterator(si);
  if (bad) {
    say("LLVMDisposeSectionIterator(section iterator) again");
    LLVMDisposeSectionIterator(si);
  }
  return 0;
}
CASE(object_file_symbols) { return object_file_iterator_case(bad, 1); }

/* Disassembler contexts (X86: `nop; ret`). */
static int disasm_case(int bad, int which) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  const char *triple = "x86_64-pc-linux-gnu";
  LLVMDisasmContextRef dc =
      which == 0   ? LLVMCreateDisasm(triple, NULL, 0, NULL, NULL)
      : which == 1 ? LLVMCreateDisasmCPU(triple, "x86-64", NULL, 0, NULL, NULL)
                   : LLVMCreateDisasmCPUFeatures(triple, "x86-64", "+sse2",
                                                 NULL, 0, NULL, NULL);
  if (!dc) {
    say("no X86 disassembler");
    return EXIT_NOT_AVAILABLE;
  }
  uint8_t code[] = {0x90, 0xc3};
  char text[64];
  size_t n = LLVMDisasmInstruction(dc, code, sizeof code, 0, text, sizeof text);
  printf("decoded %zu byte(s)\n", n);
  say("LLVMDisasmDispose(disassembler)");
  LLVMDisasmDispose(dc);
  if (bad && which == 0) {
    say("LLVMDisasmInstruction(disassembler) after dispose");
    LLVMDisasmInstruction(dc, code + 1, 1, 1, text, sizeof text);
  } else if (bad) {
    say("LLVMDisasmDispose(disassembler) again");
    LLVMDisasmDispose(dc);
  }
  return 0;
}
CASE(disasm) { return disasm_case(bad, 0); }
CASE(disasm_cpu) { return disasm_case(bad, 1); }
CASE(disasm_cpu_features) { return disasm_case(bad, 2); }

/* Metadata-entry arrays: malloc'ed plain structs with their own disposer. */
CASE(module_flags) {
  struct ir t = make_ir("m");
  LLVMAddModuleFlag(t.mod, LLVMModuleFlagBehaviorWarning, "answer", 6,
                    LLVMValueAsMetadata(LLVMConstInt(t.i32, 42, 0)));
  size_t n = 0, len = 0;
  say("LLVMCopyModuleFlagsMetadata(module)");
  LLVMModuleFlagEntry *flags = LLVMCopyModuleFlagsMetadata(t.mod, &n);
  const char *key = LLVMModuleFlagEntriesGetKey(flags, 0, &len);
  printf("%zu flag(s), key %.*s\n", n, (int)len, key);
  say("LLVMDisposeModuleFlagsMetadata(flags)");
  LLVMDisposeModuleFlagsMetadata(flags);
  if (bad) {
    say("LLVMModuleFlagEntriesGetKey(flags) after dispose");
    LLVMModuleFlagEntriesGetKey(flags, 0, &len);
  }
  drop_ir(&t);
  return 0;
}
static int value_metadata_case(int bad, int instruction) {
  struct ir t = make_ir("m");
  unsigned kind = LLVMGetMDKindIDInContext(t.ctx, "ownsan", 6);
  LLVMMetadataRef md = LLVMMDStringInContext2(t.ctx, "x", 1);
  LLVMValueMetadataEntry *entries;
  size_t n = 0;
  if (instruction) {
    LLVMSetMetadata(
        t.sum, kind,
        LLVMMetadataAsValue(t.ctx, LLVMMDNodeInContext2(t.ctx, &md, 1)));
    say("LLVMInstructionGetAllMetadataOtherThanDebugLoc(%sum)");
    entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(t.sum, &n);
  } else {
    LLVMValueRef g = LLVMAddGlobal(t.mod, t.i32, "g");
    LLVMGlobalSetMetadata(g, kind, LLVMMDNodeInContext2(t.ctx, &md, 1));
    say("LLVMGlobalCopyAllMetadata(@g)");
    entries = LLVMGlobalCopyAllMetadata(g, &n);
  }
  printf("%zu entr%s, kind ok %d\n", n, n == 1 ? "y" : "ies",
         n > 0 && LLVMValueMetadataEntriesGetKind(entries, 0) == kind);
  say("LLVMDisposeValueMetadataEntries(entries)");
  LLVMDisposeValueMetadataEntries(entries);
  if (bad && instruction) {
    say("LLVMValueMetadataEntriesGetMetadata(entries) after dispose");
    LLVMValueMetadataEntriesGetMetadata(entries, 0);
  } else if (bad) {
    say("LLVMDisposeValueMetadataEntries(entries) again");
    LLVMDisposeValueMetadataEntries(entries);
  }
  drop_ir(&t);
  return 0;
}
CASE(global_metadata) { return value_metadata_case(bad, 0); }
CASE(instruction_metadata) { return value_metadata_case(bad, 1); }

/* Temporary metadata nodes: the caller's until disposed or RAUW'd. */
CASE(temporary_md_node) {
  LLVMContextRef ctx = LLVMContextCreate();
  say("LLVMTemporaryMDNode(context)");
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
  say("LLVMDisposeTemporaryMDNode(temporary)");
  LLVMDisposeTemporaryMDNode(tmp);
  if (bad) {
    say("LLVMDisposeTemporaryMDNode(temporary) again");
    LLVMDisposeTemporaryMDNode(tmp);
  }
  LLVMContextDispose(ctx);
  return 0;
}
CASE(temporary_md_rauw) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
  LLVMMetadataRef user = LLVMMDNodeInContext2(ctx, &tmp, 1); /* a use of it */
  LLVMMetadataRef s = LLVMMDStringInContext2(ctx, "r", 1);
  LLVMMetadataRef repl = LLVMMDNodeInContext2(ctx, &s, 1);
  say("LLVMMetadataReplaceAllUsesWith(temporary, node)");
  LLVMMetadataReplaceAllUsesWith(tmp, repl);
  printf("user is a node %d\n",
         LLVMGetMDNodeNumOperands(LLVMMetadataAsValue(ctx, user)) == 1);
  if (bad) {
    say("LLVMDisposeTemporaryMDNode(temporary) after RAUW");
    LLVMDisposeTemporaryMDNode(tmp);
  }
  LLVMContextDispose(ctx);
  return 0;
}
static int di_temporary_case(int bad, int global) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  LLVMMetadataRef file = LLVMDIBuilderCreateFile(d, "a.c", 3, ".", 1);
  if (global) {
    LLVMMetadataRef ity = LLVMDIBuilderCreateBasicType(d, "int", 3, 32, 5, 0);
    say("LLVMDIBuilderCreateTempGlobalVariableFwdDecl(dibuilder)");
    LLVMMetadataRef tmp = LLVMDIBuilderCreateTempGlobalVariableFwdDecl(
        d, file, "g", 1, "g", 1, file, 1, ity, 0, NULL, 0);
    say("LLVMDisposeTemporaryMDNode(forward declaration)");
    LLVMDisposeTemporaryMDNode(tmp);
    if (bad) {
      say("LLVMDisposeTemporaryMDNode(forward declaration) again");
      LLVMDisposeTemporaryMDNode(tmp);
    }
  } else {
    say("LLVMDIBuilderCreateReplaceableCompositeType(dibuilder)");
    LLVMMetadataRef tmp = LLVMDIBuilderCreateReplaceableCompositeType(
        d, 0x13 /* DW_TAG_structure_type */, "S", 1, file, file, 1, 0, 0, 0,
        LLVMDIFlagFwdDecl, "", 0);
    LLVMMetadataRef real = LLVMDIBuilderCreateStructType(
        d, file, "S", 1, file, 1, 0, 0, LLVMDIFlagZero, NULL, NULL, 0, 0, NULL,
        "", 0);
    say("LLVMMetadataReplaceAllUsesWith(forward type, struct type)");
    LLVMMetadataReplaceAllUsesWith(tmp, real);
    if (bad) {
      say("LLVMMetadataReplaceAllUsesWith(forward type) again");
      LLVMMetadataReplaceAllUsesWith(tmp, real);
    }
  }
  LLVMDisposeDIBuilder(d);
  drop_ir(&t);
  return 0;
}
CASE(replaceable_composite_type) { return di_temporary_case(bad, 0); }
CASE(temp_global_variable_fwd_decl) { return di_temporary_case(bad, 1); }

/* Remarks (YAML): entries outlive the parser; their handles die with them. */
static const char kRemarks[] = "--- !Missed\n"
                               "Pass: inline\n"
                               "Name: NoDefinition\n"
                               "DebugLoc: { File: a.c, Line: 3, Column: 4 }\n"
                               "Function: foo\n"
                               "Args:\n"
                               "  - Callee: bar\n"
                               "  - String: ' will not be inlined'\n"
                               "...\n";
static void print_remark_string(const char *what, LLVMRemarkStringRef s) {
  printf("%s %.*s\n", what, (int)LLVMRemarkStringGetLen(s),
         LLVMRemarkStringGetData(s));
}
CASE(remark_parser) {
  say("LLVMRemarkParserCreateYAML(remarks)");
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateYAML(kRemarks, sizeof kRemarks - 1);
  int n = 0;
  LLVMRemarkEntryRef e;
  while ((e = LLVMRemarkParserGetNext(p))) {
    ++n;
    LLVMRemarkEntryDispose(e);
  }
  printf("%d remark(s), error %d\n", n, (int)LLVMRemarkParserHasError(p));
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  if (bad) {
    say("LLVMRemarkParserGetNext(parser) after dispose");
    LLVMRemarkParserGetNext(p);
  }
  return 0;
}
CASE(remark_parser_bitstream) {
  static const char junk[] = "not a bitstream";
  say("LLVMRemarkParserCreateBitstream(junk)");
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateBitstream(junk, sizeof junk - 1);
  LLVMRemarkEntryRef e = LLVMRemarkParserGetNext(p);
  printf("remark %s, error %d\n", e ? "read" : "none",
         (int)LLVMRemarkParserHasError(p));
  if (e)
    LLVMRemarkEntryDispose(e);
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  if (bad) {
    say("LLVMRemarkParserDispose(parser) again");
    LLVMRemarkParserDispose(p);
  }
  return 0;
}
/* which: the handle used after LLVMRemarkEntryDispose (bad). */
static int remark_entry_case(int bad, int which) {
  LLVMRemarkParserRef p =
      LLVMRemarkParserCreateYAML(kRemarks, sizeof kRemarks - 1);
  say("LLVMRemarkParserGetNext(parser)");
  LLVMRemarkEntryRef e = LLVMRemarkParserGetNext(p);
  if (!e) {
    printf("no remark: %s\n", LLVMRemarkParserGetErrorMessage(p));
    return 1;
  }
  /* The entry outlives its parser. */
  say("LLVMRemarkParserDispose(parser)");
  LLVMRemarkParserDispose(p);
  LLVMRemarkStringRef pass = LLVMRemarkEntryGetPassName(e);
  LLVMRemarkStringRef name = LLVMRemarkEntryGetRemarkName(e);
  LLVMRemarkStringRef fn = LLVMRemarkEntryGetFunctionName(e);
  LLVMRemarkDebugLocRef loc = LLVMRemarkEntryGetDebugLoc(e);
  LLVMRemarkArgRef first = LLVMRemarkEntryGetFirstArg(e);
  LLVMRemarkArgRef second = LLVMRemarkEntryGetNextArg(first, e);
  LLVMRemarkStringRef value = LLVMRemarkArgGetValue(second);
  printf("type %d line %u args %u\n", (int)LLVMRemarkEntryGetType(e),
         LLVMRemarkDebugLocGetSourceLine(loc), LLVMRemarkEntryGetNumArgs(e));
  print_remark_string("pass", pass);
  print_remark_string("name", name);
  print_remark_string("function", fn);
  print_remark_string("first key", LLVMRemarkArgGetKey(first));
  print_remark_string("second value", value);
  say("LLVMRemarkEntryDispose(entry)");
  LLVMRemarkEntryDispose(e);
  if (!bad)
    return 0;
  switch (which) {
  case 0:
    say("LLVMRemarkStringGetLen(pass name)");
    LLVMRemarkStringGetLen(pass);
    break;
  case 1:
    say("LLVMRemarkStringGetLen(remark name)");
    LLVMRemarkStringGetLen(name);
    break;
  case 2:
    say("LLVMRemarkStringGetLen(function name)");
    LLVMRemarkStringGetLen(fn);
    break;
  case 3:
    say("LLVMRemarkDebugLocGetSourceLine(location)");
    LLVMRemarkDebugLocGetSourceLine(loc);
    break;
  case 4:
    say("LLVMRemarkArgGetKey(first argument)");
    LLVMRemarkArgGetKey(first);
    break;
  case 5:
    say("LLVMRemarkArgGetValue(second argument)");
    LLVMRemarkArgGetValue(second);
    break;
  case 6:
    say("LLVMRemarkStringGetData(second value)");
    LLVMRemarkStringGetData(value);
    break;
  case 7:
    say("LLVMRemarkEntryDispose(entry) again");
    LLVMRemarkEntryDispose(e);
    break;
  }
  return 0;
}
CASE(remark_entry) { return remark_entry_case(bad, 7); }
CASE(remark_pass_name) { return remark_entry_case(bad, 0); }
CASE(remark_remark_name) { return remark_entry_case(bad, 1); }
CASE(remark_function_name) { return remark_entry_case(bad, 2); }
CASE(remark_debug_loc) { return remark_entry_case(bad, 3); }
CASE(remark_first_arg) { return remark_entry_case(bad, 4); }
CASE(remark_next_arg) { return remark_entry_case(bad, 5); }
CASE(remark_arg_value) { return remark_entry_case(bad, 6); }

/* Legacy pass manager builder (LLVM 14 to 16; removed in 17). */
CASE(pass_manager_builder) {
#if LLVM_VERSION_MAJOR <= 16
  LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
  LLVMPassManagerBuilderSetOptLevel(pmb, 2);
  say("LLVMPassManagerBuilderDispose(builder)");
  LLVMPassManagerBuilderDispose(pmb);
  if (bad) {
    say("LLVMPassManagerBuilderDispose(builder) again");
    LLVMPassManagerBuilderDispose(pmb);
  }
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
CASE(pass_manager_builder_use) {
#if LLVM_VERSION_MAJOR <= 16
  LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
  if (!bad) {
    say("LLVMPassManagerBuilderSetSizeLevel(builder, 1)");
    LLVMPassManagerBuilderSetSizeLevel(pmb, 1);
  }
  say("LLVMPassManagerBuilderDispose(builder)");
  LLVMPassManagerBuilderDispose(pmb);
  if (bad) {
    say("LLVMPassManagerBuilderSetSizeLevel(builder, 1) after dispose");
    LLVMPassManagerBuilderSetSizeLevel(pmb, 1);
  }
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* MCJIT memory managers: the caller's until an engine takes one. */
static uint8_t *mm_alloc_code(void *o, uintptr_t size, unsigned align,
                              unsigned id, const char *name) {
  (void)o;
  (void)size;
  (void)align;
  (void)id;
  (void)name;
  return NULL;
}
static uint8_t *mm_alloc_data(void *o, uintptr_t size, unsigned align,
                              unsigned id, const char *name, LLVMBool ro) {
  (void)o;
  (void)size;
  (void)align;
  (void)id;
  (void)name;
  (void)ro;
  return NULL;
}
static LLVMBool mm_finalize(void *o, char **err) {
  (void)o;
  (void)err;
  return 0;
}
static void mm_destroy(void *o) {
  (void)o;
  say("memory manager destroyed");
}
static LLVMMCJITMemoryManagerRef make_mm(void) {
  return LLVMCreateSimpleMCJITMemoryManager(NULL, mm_alloc_code, mm_alloc_data,
                                            mm_finalize, mm_destroy);
}
CASE(mcjit_memory_manager) {
  say("LLVMCreateSimpleMCJITMemoryManager()");
  LLVMMCJITMemoryManagerRef mm = make_mm();
  say("LLVMDisposeMCJITMemoryManager(manager)");
  LLVMDisposeMCJITMemoryManager(mm);
  if (bad) {
    say("LLVMDisposeMCJITMemoryManager(manager) again");
    LLVMDisposeMCJITMemoryManager(mm);
  }
  return 0;
}
/* with_target: an engine is made and owns the manager; without a native
 * target creation fails and the builder destroys it. */
static int mcjit_mm_case(int bad, int with_target) {
  if (with_target) {
    LLVMLinkInMCJIT();
    have_x86();
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = make_main_module(ctx, "jit");
  LLVMMCJITMemoryManagerRef mm = make_mm();
  struct LLVMMCJITCompilerOptions o;
  LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
  o.MCJMM = mm;
  LLVMExecutionEngineRef ee = NULL;
  char *err = NULL;
  say("LLVMCreateMCJITCompilerForModule(&engine, module, {.MCJMM = manager})");
  if (LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err)) {
    say("failed");
    LLVMDisposeMessage(err);
    if (with_target) {
      LLVMContextDispose(ctx);
      return EXIT_NOT_AVAILABLE;
    }
    if (bad) {
      say("LLVMDisposeMCJITMemoryManager(manager) destroyed by the failed "
          "call");
      LLVMDisposeMCJITMemoryManager(mm);
    }
    LLVMContextDispose(ctx);
    return 0;
  }
  if (!with_target) {
    say("unexpectedly created");
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    return 0;
  }
  if (bad) {
    say("LLVMDisposeMCJITMemoryManager(manager) owned by the engine");
    LLVMDisposeMCJITMemoryManager(mm);
  }
  say("LLVMDisposeExecutionEngine(engine)");
  LLVMDisposeExecutionEngine(ee);
  LLVMContextDispose(ctx);
  return 0;
}
CASE(mcjit_owns_memory_manager) { return mcjit_mm_case(bad, 1); }
CASE(mcjit_failed_memory_manager) { return mcjit_mm_case(bad, 0); }

/* Other caller-owned objects: ok disposes once, bad twice. */
#define DOUBLE_DISPOSE(obj, dispose, what)                                     \
  do {                                                                         \
    say(what);                                                                 \
    dispose(obj);                                                              \
    if (bad) {                                                                 \
      say("again");                                                            \
      dispose(obj);                                                            \
    }                                                                          \
  } while (0)
CASE(target_machine) {
  LLVMTargetMachineRef tm = make_tm();
  DOUBLE_DISPOSE(tm, LLVMDisposeTargetMachine, "LLVMDisposeTargetMachine(tm)");
  return 0;
}
CASE(target_machine_options) {
#if LLVM_VERSION_MAJOR >= 19
  have_x86();
  LLVMTargetRef t;
  char *err = NULL;
  if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &t, &err))
    return EXIT_NOT_AVAILABLE;
  LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
  LLVMTargetMachineRef tm =
      LLVMCreateTargetMachineWithOptions(t, "x86_64-pc-linux-gnu", o);
  LLVMDisposeTargetMachineOptions(o);
  DOUBLE_DISPOSE(tm, LLVMDisposeTargetMachine,
                 "LLVMDisposeTargetMachine(tm with options)");
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
CASE(target_machine_options_dispose) {
#if LLVM_VERSION_MAJOR >= 19
  LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
  DOUBLE_DISPOSE(o, LLVMDisposeTargetMachineOptions,
                 "LLVMDisposeTargetMachineOptions(options)");
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
CASE(target_data_layout) {
  LLVMTargetMachineRef tm = make_tm();
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMDisposeTargetMachine(tm);
  DOUBLE_DISPOSE(td, LLVMDisposeTargetData,
                 "LLVMDisposeTargetData(data layout)");
  return 0;
}
CASE(pass_manager) {
  LLVMPassManagerRef pm = LLVMCreatePassManager();
  DOUBLE_DISPOSE(pm, LLVMDisposePassManager, "LLVMDisposePassManager(pm)");
  return 0;
}
CASE(function_pass_manager) {
  struct ir t = make_ir("m");
  LLVMPassManagerRef pm = LLVMCreateFunctionPassManagerForModule(t.mod);
  DOUBLE_DISPOSE(pm, LLVMDisposePassManager,
                 "LLVMDisposePassManager(function pm)");
  drop_ir(&t);
  return 0;
}
CASE(pass_builder_options) {
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  DOUBLE_DISPOSE(o, LLVMDisposePassBuilderOptions,
                 "LLVMDisposePassBuilderOptions(options)");
  return 0;
}
CASE(dibuilder) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilder(t.mod);
  DOUBLE_DISPOSE(d, LLVMDisposeDIBuilder, "LLVMDisposeDIBuilder(dibuilder)");
  drop_ir(&t);
  return 0;
}
CASE(dibuilder_disallow_unresolved) {
  struct ir t = make_ir("m");
  LLVMDIBuilderRef d = LLVMCreateDIBuilderDisallowUnresolved(t.mod);
  DOUBLE_DISPOSE(d, LLVMDisposeDIBuilder, "LLVMDisposeDIBuilder(dibuilder)");
  drop_ir(&t);
  return 0;
}
CASE(generic_value_int) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMGenericValueRef g =
      LLVMCreateGenericValueOfInt(LLVMInt32TypeInContext(ctx), 3, 0);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue, "LLVMDisposeGenericValue(int)");
  LLVMContextDispose(ctx);
  return 0;
}
CASE(generic_value_pointer) {
  static int x;
  LLVMGenericValueRef g = LLVMCreateGenericValueOfPointer(&x);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue,
                 "LLVMDisposeGenericValue(pointer)");
  return 0;
}
CASE(generic_value_float) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMGenericValueRef g =
      LLVMCreateGenericValueOfFloat(LLVMDoubleTypeInContext(ctx), 1.5);
  DOUBLE_DISPOSE(g, LLVMDisposeGenericValue, "LLVMDisposeGenericValue(float)");
  LLVMContextDispose(ctx);
  return 0;
}
CASE(operand_bundle) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMValueRef arg = LLVMConstInt(t.i32, 1, 0);
  LLVMOperandBundleRef ob = LLVMCreateOperandBundle("tag", 3, &arg, 1);
  DOUBLE_DISPOSE(ob, LLVMDisposeOperandBundle,
                 "LLVMDisposeOperandBundle(bundle)");
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}
CASE(operand_bundle_at_index) {
#if LLVM_VERSION_MAJOR >= 19
  struct ir t = make_ir("m");
  LLVMValueRef arg = LLVMConstInt(t.i32, 1, 0);
  LLVMOperandBundleRef ob = LLVMCreateOperandBundle("tag", 3, &arg, 1);
  LLVMPositionBuilderBefore(t.b, t.ret);
  LLVMValueRef call = LLVMBuildCallWithOperandBundles(t.b, t.fn_type, t.fn,
                                                      &arg, 1, &ob, 1, "");
  LLVMDisposeOperandBundle(ob);
  LLVMOperandBundleRef copy = LLVMGetOperandBundleAtIndex(call, 0);
  size_t n;
  printf("tag %s\n", LLVMGetOperandBundleTag(copy, &n));
  DOUBLE_DISPOSE(copy, LLVMDisposeOperandBundle,
                 "LLVMDisposeOperandBundle(copy)");
  drop_ir(&t);
  return 0;
#else
  (void)bad;
  return EXIT_NOT_AVAILABLE;
#endif
}

/* ---- table --------------------------------------------------------------- */
struct entry {
  const char *name;
  int (*fn)(int);
};
#include "orc_cases.inc"

/* A list of names, packed (by hand). */
/* clang-format off */
#define E(n) {#n, case_##n},
static const struct entry kCases[] = {
  ORC_CASES E(context_dispose) E(module_dispose) E(module_provider)
  E(builder_dispose) E(memory_buffer_dispose) E(delete_function)
  E(delete_global) E(erase_global_ifunc) E(remove_global_ifunc)
  E(delete_basic_block) E(instruction_erase) E(delete_instruction)
  E(remove_block) E(remove_instruction) E(append_existing_block)
  E(insert_existing_block) E(insert_into_builder)
  E(insert_into_builder_with_name) E(get_params) E(get_basic_blocks)
  E(get_param_types) E(get_struct_element_types) E(get_subtypes)
  E(get_md_node_operands) E(get_named_metadata_operands) E(position_builder)
  E(position_builder_before) E(position_builder_at_end)
  E(clear_insertion_position) E(position_before_dbg_records)
  E(position_before_instr_and_dbg_records) E(run_passes) E(run_function)
  E(run_function_as_main) E(free_machine_code) E(get_pointer_to_global)
  E(add_global_mapping) E(recompile_and_relink) E(run_function_result)
  E(build_shuffle_vector) E(const_shuffle_vector) E(cast_opcode) E(parse_ir)
  E(parse_ir_failed) E(link_modules) E(create_execution_engine)
  E(create_interpreter) E(create_jit) E(create_mcjit) E(add_module)
  E(thread_safe_module) E(thread_safe_context_from_context) E(remove_module)
  E(engine_twice) E(add_module_twice) E(dispose_engine) E(create_message)
  E(print_module) E(print_type) E(print_value) E(print_dbg_record)
  E(diag_info_description) E(target_data_string) E(default_target_triple)
  E(normalize_target_triple) E(host_cpu_name) E(host_cpu_features)
  E(target_machine_triple) E(target_machine_cpu) E(target_machine_features)
  E(intrinsic_copy_overloaded_name) E(intrinsic_copy_overloaded_name2)
  E(jtmb_target_triple) E(verify_module) E(print_module_to_file)
  E(buffer_from_file) E(buffer_from_stdin) E(emit_to_file)
  E(emit_to_memory_buffer) E(consume_error) E(get_error_message)
  E(dispose_error_message) E(dispose_message_foreign) E(create_binary)
  E(create_binary_bitcode) E(create_binary_failed) E(section_iterator)
  E(symbol_iterator) E(relocation_iterator) E(relocation_value_string)
  E(target_machine) E(target_machine_options) E(target_machine_options_dispose)
  E(target_data_layout) E(pass_manager) E(function_pass_manager)
  E(pass_builder_options) E(dibuilder) E(dibuilder_disallow_unresolved)
  E(generic_value_int) E(generic_value_pointer) E(generic_value_float)
  E(operand_bundle) E(operand_bundle_at_index) E(relocation_type_name)
  E(relocation_symbol) E(set_value_name2) E(set_value_name)
  E(set_module_identifier) E(get_bitcode_module) E(object_file)
  E(object_file_failed) E(object_file_sections) E(object_file_iterator_twice)
  E(object_file_symbols) E(disasm) E(disasm_cpu) E(disasm_cpu_features)
  E(module_flags) E(global_metadata) E(instruction_metadata)
  E(temporary_md_node) E(temporary_md_rauw) E(replaceable_composite_type)
  E(temp_global_variable_fwd_decl) E(remark_parser) E(remark_parser_bitstream)
  E(remark_entry) E(remark_pass_name) E(remark_remark_name)
  E(remark_function_name) E(remark_debug_loc) E(remark_first_arg)
  E(remark_next_arg) E(remark_arg_value) E(pass_manager_builder)
  E(pass_manager_builder_use) E(mcjit_memory_manager)
  E(mcjit_owns_memory_manager) E(mcjit_failed_memory_manager)
};
/* clang-format on */

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i)
      printf("%s\n", kCases[i].name);
    return 0;
  }
  if (argc != 3 || (strcmp(argv[2], "ok") && strcmp(argv[2], "bad"))) {
    fprintf(stderr, "usage: %s CASE ok|bad | --list\n", argv[0]);
    return 2;
  }
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i)
    if (strcmp(kCases[i].name, argv[1]) == 0) {
      int r = kCases[i].fn(strcmp(argv[2], "bad") == 0);
      if (r == EXIT_NOT_AVAILABLE)
        printf("case not available in LLVM %d\n", LLVM_VERSION_MAJOR);
      return r;
    }
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
