//===- kinds.cpp - Handles of the wrong kind given to LLVM-C calls --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: kinds CASE
//
// The C API casts its LLVMValueRef / LLVMBasicBlockRef arguments unchecked:
// natively a global given to LLVMGetFirstParam makes LLVM read the global as
// a function and return garbage (exit 0). ownsan checks the kinds in
// src/profiles/llvm_c/handle_kinds.spec.
//
//   first_param         a global to LLVMGetFirstParam
//   initializer         a function to LLVMGetInitializer
//   instruction_parent  a constant to LLVMGetInstructionParent
//   personality         a global to LLVMGetPersonalityFn
//   block_parent        an instruction to LLVMGetBasicBlockParent
//   all                 the five misuses in turn (continue mode: each call
//                       is skipped and returns NULL)
//   clean               correct calls with every kind the table accepts
//   unknown             the five misuses on values made with LLVM's C++ API
//                       (ownsan never saw them: it cannot tell their kind)
//
// Each LLVM-C call of interest is announced on stdout before it is made;
// "kinds: subject = 0x..." on stderr gives the misused handle.
//
//===----------------------------------------------------------------------===//

#include <llvm-c/Core.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdio>
#include <cstring>

namespace {

// The tiny module every case builds: @g = global i32 1, @f(i32 %x) with
// block %entry holding `ret i32 0`, @pers (a personality), @ga (an alias of
// @g), @ifn (an ifunc resolved by @resolver).
struct Module {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTypeRef i32;
  LLVMValueRef g, f, arg, pers, ga, resolver, ifn, ret, k;
  LLVMBasicBlockRef entry;
  LLVMBuilderRef builder;
};

Module Build() {
  Module m;
  m.ctx = LLVMContextCreate();
  m.mod = LLVMModuleCreateWithNameInContext("m", m.ctx);
  m.i32 = LLVMInt32TypeInContext(m.ctx);
  m.g = LLVMAddGlobal(m.mod, m.i32, "g");
  LLVMSetInitializer(m.g, LLVMConstInt(m.i32, 1, 0));
  LLVMTypeRef fn_type = LLVMFunctionType(m.i32, &m.i32, 1, 0);
  m.f = LLVMAddFunction(m.mod, "f", fn_type);
  m.arg = LLVMGetParam(m.f, 0);
  LLVMSetValueName2(m.arg, "x", 1);
  m.pers = LLVMAddFunction(m.mod, "pers", fn_type);
  m.entry = LLVMAppendBasicBlockInContext(m.ctx, m.f, "entry");
  m.builder = LLVMCreateBuilderInContext(m.ctx);
  LLVMPositionBuilderAtEnd(m.builder, m.entry);
  m.ret = LLVMBuildRet(m.builder, LLVMConstInt(m.i32, 0, 0));
  m.k = LLVMConstInt(m.i32, 7, 0);
  m.ga = LLVMAddAlias2(m.mod, m.i32, 0, m.g, "ga");
  LLVMTypeRef resolver_type = LLVMFunctionType(LLVMTypeOf(m.f), nullptr, 0, 0);
  m.resolver = LLVMAddFunction(m.mod, "resolver", resolver_type);
  m.ifn = LLVMAddGlobalIFunc(m.mod, "ifn", 3, fn_type, 0, m.resolver);
  return m;
}

void Dispose(Module &m) {
  LLVMDisposeBuilder(m.builder);
  LLVMDisposeModule(m.mod);
  LLVMContextDispose(m.ctx);
}

void Subject(const void *h) { fprintf(stderr, "kinds: subject = %p\n", h); }

void Result(const char *what, const void *r) {
  printf("%s: returned %s\n", what, r ? "non-null" : "null");
}

// Each misuse in a function of its own: the use stack names it.
__attribute__((noinline)) void FirstParamOfGlobal(Module &m) {
  Subject(m.g);
  printf("first_param: LLVMGetFirstParam\n");
  Result("first_param", LLVMGetFirstParam(m.g));
}
__attribute__((noinline)) void InitializerOfFunction(Module &m) {
  Subject(m.f);
  printf("initializer: LLVMGetInitializer\n");
  Result("initializer", LLVMGetInitializer(m.f));
}
__attribute__((noinline)) void ParentOfConstant(Module &m) {
  Subject(m.k);
  printf("instruction_parent: LLVMGetInstructionParent\n");
  Result("instruction_parent", LLVMGetInstructionParent(m.k));
}
__attribute__((noinline)) void PersonalityOfGlobal(Module &m) {
  Subject(m.g);
  printf("personality: LLVMGetPersonalityFn\n");
  Result("personality", LLVMGetPersonalityFn(m.g));
}
__attribute__((noinline)) void BlockParentOfInstruction(Module &m) {
  Subject(m.ret);
  printf("block_parent: LLVMGetBasicBlockParent\n");
  Result("block_parent",
         LLVMGetBasicBlockParent(reinterpret_cast<LLVMBasicBlockRef>(m.ret)));
}

const char *Name(LLVMValueRef v) {
  size_t len = 0;
  const char *name = v ? LLVMGetValueName2(v, &len) : nullptr;
  return name && *name ? name : "<none>";
}

// Correct calls: every kind of every set of the table, through functions
// that check it (so a wrong set in the table fails this case).
int Clean() {
  Module m = Build();
  printf("function: %u params, first %s, last %s, %u blocks, entry %s\n",
         LLVMCountParams(m.f), Name(LLVMGetFirstParam(m.f)),
         Name(LLVMGetLastParam(m.f)), LLVMCountBasicBlocks(m.f),
         LLVMGetBasicBlockName(LLVMGetEntryBasicBlock(m.f)));
  LLVMSetPersonalityFn(m.f, m.pers);
  printf("function: personality %s, next %s, callconv %u\n",
         Name(LLVMGetPersonalityFn(m.f)), Name(LLVMGetNextFunction(m.f)),
         LLVMGetFunctionCallConv(m.f));
  printf("argument: parent %s, next %s\n", Name(LLVMGetParamParent(m.arg)),
         Name(LLVMGetNextParam(m.arg)));
  printf("global variable: initializer %lld, constant %d, next %s\n",
         LLVMConstIntGetSExtValue(LLVMGetInitializer(m.g)),
         LLVMIsGlobalConstant(m.g), Name(LLVMGetNextGlobal(m.g)));
  printf("alias: aliasee %s\n", Name(LLVMAliasGetAliasee(m.ga)));
  printf("ifunc: resolver %s\n", Name(LLVMGetGlobalIFuncResolver(m.ifn)));
  LLVMValueRef globals[] = {m.f, m.g, m.ga, m.ifn};
  for (LLVMValueRef v : globals) {
    // global_value: functions, variables, aliases, ifuncs.
    printf("global value %s: linkage %d, declaration %d, same module %d\n",
           Name(v), LLVMGetLinkage(v), LLVMIsDeclaration(v),
           LLVMGetGlobalParent(v) == m.mod);
    // constant: every global value is a constant too.
    LLVMValueRef holder = LLVMAddGlobal(m.mod, LLVMTypeOf(v), "holder");
    LLVMSetInitializer(holder, v);
    printf("constant %s: initializer of %s\n", Name(LLVMGetInitializer(holder)),
           Name(holder));
  }
  LLVMValueRef objects[] = {m.f, m.g, m.ifn};
  for (LLVMValueRef v : objects) {
    // global_object: functions, variables, ifuncs.
    LLVMSetSection(v, ".text.kinds");
    printf("global object %s: section %s\n", Name(v), LLVMGetSection(v));
  }
  LLVMSetInitializer(m.g, m.k); // constant: a constant that is not a global
  printf("constant: initializer %lld\n",
         LLVMConstIntGetSExtValue(LLVMGetInitializer(m.g)));
  LLVMBasicBlockRef as_block =
      LLVMValueAsBasicBlock(LLVMBasicBlockAsValue(m.entry));
  printf("block: parent %s, first instruction is ret %d, same block %d\n",
         Name(LLVMGetBasicBlockParent(m.entry)),
         LLVMGetFirstInstruction(m.entry) == m.ret, as_block == m.entry);
  printf("instruction: parent %s, next %s, %u successors\n",
         LLVMGetBasicBlockName(LLVMGetInstructionParent(m.ret)),
         Name(LLVMGetNextInstruction(m.ret)), LLVMGetNumSuccessors(m.ret));
  LLVMPositionBuilderBefore(m.builder, m.ret);
  printf("builder: positioned before ret in %s\n",
         LLVMGetBasicBlockName(LLVMGetInsertBlock(m.builder)));
  Dispose(m);
  return 0;
}

// Values ownsan never saw handed out: made with LLVM's C++ API, as a binding
// with a C++ part of its own does.
int Unknown() {
  Module m = Build();
  llvm::Module *mod = llvm::unwrap(m.mod);
  llvm::LLVMContext &ctx = mod->getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  auto *g = new llvm::GlobalVariable(*mod, i32, false,
                                     llvm::GlobalValue::ExternalLinkage,
                                     llvm::ConstantInt::get(i32, 5), "cxx_g");
  llvm::Function *f =
      llvm::Function::Create(llvm::FunctionType::get(i32, {i32}, false),
                             llvm::GlobalValue::ExternalLinkage, "cxx_f", mod);
  llvm::BasicBlock *bb = llvm::BasicBlock::Create(ctx, "cxx_entry", f);
  llvm::IRBuilder<> b(bb);
  llvm::Instruction *ret = b.CreateRet(f->getArg(0));
  llvm::Constant *k = llvm::ConstantInt::get(i32, 12345);

  printf("unknown: LLVMGetFirstParam(global)\n");
  LLVMGetFirstParam(llvm::wrap(g));
  printf("unknown: LLVMGetInitializer(function)\n");
  LLVMGetInitializer(llvm::wrap(f));
  printf("unknown: LLVMGetInstructionParent(constant)\n");
  LLVMGetInstructionParent(llvm::wrap(k));
  printf("unknown: LLVMGetPersonalityFn(global)\n");
  LLVMGetPersonalityFn(llvm::wrap(g));
  printf("unknown: LLVMGetBasicBlockParent(instruction)\n");
  LLVMGetBasicBlockParent(reinterpret_cast<LLVMBasicBlockRef>(
      llvm::wrap(static_cast<llvm::Value *>(ret))));
  // The same calls with the right kinds: the results are usable.
  printf("unknown: first param of cxx_f is %s\n",
         Name(LLVMGetFirstParam(llvm::wrap(f))));
  printf("unknown: initializer of cxx_g is %lld\n",
         LLVMConstIntGetSExtValue(LLVMGetInitializer(llvm::wrap(g))));
  printf("unknown: parent of the ret is %s\n",
         LLVMGetBasicBlockName(LLVMGetInstructionParent(llvm::wrap(ret))));
  Dispose(m);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const char *which = argc > 1 ? argv[1] : "";
  if (!strcmp(which, "clean"))
    return Clean();
  if (!strcmp(which, "unknown"))
    return Unknown();
  struct {
    const char *name;
    void (*misuse)(Module &);
  } cases[] = {{"first_param", FirstParamOfGlobal},
               {"initializer", InitializerOfFunction},
               {"instruction_parent", ParentOfConstant},
               {"personality", PersonalityOfGlobal},
               {"block_parent", BlockParentOfInstruction}};
  bool all = !strcmp(which, "all");
  bool found = false;
  Module m = Build();
  for (const auto &c : cases)
    if (all || !strcmp(which, c.name)) {
      c.misuse(m);
      found = true;
    }
  if (!found) {
    fprintf(stderr, "usage: kinds CASE (see kinds.cpp)\n");
    return 2;
  }
  Dispose(m);
  printf("done\n");
  return 0;
}
