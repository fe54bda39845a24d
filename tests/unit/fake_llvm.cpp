//===- fake_llvm.cpp - A tiny LLVM for the runtime's unit tests ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "fake_llvm.h"

#include "fn_ids.h"
#include "interpose/allocation_hooks.h"
#include "interpose/loaded_objects.h"
#include "interpose/real_llvm.h"
#include "interpose/signal_entry.h"
#include "interpose/wrapper_api.h"

#include <dlfcn.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

// The fake's objects are malloc'ed: a block the runtime held goes back to
// free() (interpose/allocation_observer.cpp defines it in the runtime).
void OwnsanReleaseDeleted(void *p) { free(p); }

namespace fake_llvm {
namespace {

int g_live = 0;

FakeObject *Make(FakeObject::Kind kind, FakeObject *parent,
                 const char *name = "") {
  void *p = malloc(sizeof(FakeObject));
  OwnsanOnAllocation(p, sizeof(FakeObject)); // as operator new does
  auto *o = new (p) FakeObject;
  o->kind = kind;
  o->parent = parent;
  o->context =
      parent ? (parent->kind == FakeObject::Context ? parent : parent->context)
             : nullptr;
  o->name = name ? name : "";
  if (parent)
    parent->children.push_back(o);
  ++g_live;
  return o;
}

// LLVM's destructors, then operator delete: what the runtime sees.
void Destroy(FakeObject *o) {
  while (!o->children.empty())
    Destroy(o->children.back());
  if (o->parent) {
    auto &c = o->parent->children;
    c.erase(std::remove(c.begin(), c.end(), o), c.end());
  }
  o->~FakeObject();
  // (As a sized operator delete: the size it was allocated with. Real
  // LLVM's Users come through the unsized one.)
  if (!OwnsanTakeIntoQuarantine(o, sizeof(FakeObject)))
    free(o);
  --g_live;
}

template <typename T> FakeObject *F(T *h) {
  return reinterpret_cast<FakeObject *>(h);
}
template <typename T> T *H(FakeObject *o) { return reinterpret_cast<T *>(o); }

FakeObject *TypeIn(FakeObject *ctx) {
  for (FakeObject *c : ctx->children)
    if (c->kind == FakeObject::Type)
      return c;
  return Make(FakeObject::Type, ctx, "i32");
}

// --- The functions, by their LLVM-C names (see kFakes below). ---
LLVMContextRef ContextCreate() {
  return H<LLVMOpaqueContext>(Make(FakeObject::Context, nullptr));
}
LLVMContextRef GetGlobalContext() {
  static FakeObject *global = Make(FakeObject::Context, nullptr);
  return H<LLVMOpaqueContext>(global);
}
void ContextDispose(LLVMContextRef c) { Destroy(F(c)); }
LLVMModuleRef ModuleCreateWithNameInContext(const char *name,
                                            LLVMContextRef c) {
  return H<LLVMOpaqueModule>(Make(FakeObject::Module, F(c), name));
}
void DisposeModule(LLVMModuleRef m) { Destroy(F(m)); }
LLVMContextRef GetModuleContext(LLVMModuleRef m) {
  return H<LLVMOpaqueContext>(F(m)->context);
}
const char *GetModuleIdentifier(LLVMModuleRef m, size_t *len) {
  *len = F(m)->name.size();
  return F(m)->name.c_str();
}
LLVMTypeRef Int32TypeInContext(LLVMContextRef c) {
  return H<LLVMOpaqueType>(TypeIn(F(c)));
}
LLVMTypeRef FunctionType(LLVMTypeRef ret, LLVMTypeRef *, unsigned, LLVMBool) {
  return ret;
}
LLVMContextRef GetTypeContext(LLVMTypeRef t) {
  return H<LLVMOpaqueContext>(F(t)->context);
}
LLVMTypeRef TypeOf(LLVMValueRef v) {
  return H<LLVMOpaqueType>(TypeIn(F(v)->context));
}
char *PrintTypeToString(LLVMTypeRef t) { return strdup(F(t)->name.c_str()); }
void DisposeMessage(char *s) { free(s); }
LLVMValueRef AddFunction(LLVMModuleRef m, const char *name, LLVMTypeRef) {
  return H<LLVMOpaqueValue>(Make(FakeObject::Function, F(m), name));
}
void DeleteFunction(LLVMValueRef f) { Destroy(F(f)); }
LLVMValueKind GetValueKind(LLVMValueRef v) {
  switch (F(v)->kind) {
  case FakeObject::Function:
    return LLVMFunctionValueKind;
  case FakeObject::Block:
    return LLVMBasicBlockValueKind;
  default:
    return LLVMInstructionValueKind;
  }
}
LLVMModuleRef GetGlobalParent(LLVMValueRef g) {
  return H<LLVMOpaqueModule>(F(g)->parent);
}
LLVMBasicBlockRef AppendBasicBlockInContext(LLVMContextRef, LLVMValueRef f,
                                            const char *name) {
  return H<LLVMOpaqueBasicBlock>(Make(FakeObject::Block, F(f), name));
}
void DeleteBasicBlock(LLVMBasicBlockRef b) { Destroy(F(b)); }
LLVMValueRef GetBasicBlockParent(LLVMBasicBlockRef b) {
  return H<LLVMOpaqueValue>(F(b)->parent);
}
LLVMBasicBlockRef ValueAsBasicBlock(LLVMValueRef v) {
  return H<LLVMOpaqueBasicBlock>(F(v));
}
LLVMBasicBlockRef GetInstructionParent(LLVMValueRef i) {
  return H<LLVMOpaqueBasicBlock>(F(i)->parent);
}
void InstructionEraseFromParent(LLVMValueRef i) { Destroy(F(i)); }
const char *GetValueName2(LLVMValueRef v, size_t *len) {
  *len = F(v)->name.size();
  return F(v)->name.c_str();
}
LLVMBuilderRef CreateBuilderInContext(LLVMContextRef) {
  return H<LLVMOpaqueBuilder>(Make(FakeObject::Builder, nullptr));
}
void DisposeBuilder(LLVMBuilderRef b) { Destroy(F(b)); }
void PositionBuilderAtEnd(LLVMBuilderRef b, LLVMBasicBlockRef bb) {
  F(b)->insert_block = F(bb);
}
LLVMBasicBlockRef GetInsertBlock(LLVMBuilderRef b) {
  return H<LLVMOpaqueBasicBlock>(F(b)->insert_block);
}
LLVMValueRef BuildRetVoid(LLVMBuilderRef b) {
  return H<LLVMOpaqueValue>(
      Make(FakeObject::Instruction, F(b)->insert_block, ""));
}

#define FAKE(name) {"LLVM" #name, reinterpret_cast<void *>(&name)}
const std::map<std::string, void *> kFakes = {
    FAKE(ContextCreate),
    FAKE(GetGlobalContext),
    FAKE(ContextDispose),
    FAKE(ModuleCreateWithNameInContext),
    FAKE(DisposeModule),
    FAKE(GetModuleContext),
    FAKE(GetModuleIdentifier),
    FAKE(Int32TypeInContext),
    FAKE(FunctionType),
    FAKE(GetTypeContext),
    FAKE(TypeOf),
    FAKE(PrintTypeToString),
    FAKE(DisposeMessage),
    FAKE(AddFunction),
    FAKE(DeleteFunction),
    FAKE(GetValueKind),
    FAKE(GetGlobalParent),
    FAKE(AppendBasicBlockInContext),
    FAKE(DeleteBasicBlock),
    FAKE(GetBasicBlockParent),
    FAKE(ValueAsBasicBlock),
    FAKE(GetInstructionParent),
    FAKE(InstructionEraseFromParent),
    FAKE(GetValueName2),
    FAKE(CreateBuilderInContext),
    FAKE(DisposeBuilder),
    FAKE(PositionBuilderAtEnd),
    FAKE(GetInsertBlock),
    FAKE(BuildRetVoid),
};
#undef FAKE

} // namespace

int LiveObjects() { return g_live; }

} // namespace fake_llvm

// --- What interpose/ provides to the runtime in libownsan.so. ---
namespace ownsan {

void *ResolveReal(FnId fn) {
  const char *name = WrappedFnName(fn);
  auto it = fake_llvm::kFakes.find(name);
  if (it == fake_llvm::kFakes.end()) {
    fprintf(stderr, "fake_llvm: %s is not faked (tests/unit/fake_llvm.cpp)\n",
            name);
    abort();
  }
  g_real_fns[fn].store(it->second, std::memory_order_release);
  return it->second;
}
void NoteUncheckedLibLLVMs() {}
// (No blind spots: the fake is linked into the test, not preloaded.)
std::vector<std::string> LoadedLibLLVMPaths(int) { return {}; }
std::vector<ObjectDefiningLLVMC>
ObjectsDefiningLLVMC(absl::FunctionRef<bool(const std::string &)>) {
  return {};
}
std::string OperatorDeleteOwner() { return ""; }
std::string ExecutablePath() { return "the executable"; }
std::string OperatorDeleteOwnerOf(const std::string &) { return ""; }
std::string BoundOwnerOf(const std::string &, absl::Span<const char *const>) {
  return "";
}
std::string GlobalOwnerOf(const char *) { return ""; }
unsigned long long ObjectsLoadedSoFar() { return 0; }
std::vector<ObjectDefiningLLVMC> ObjectsBypassingWrappers(int) { return {}; }
void LeaveSignalFramesBelow(uintptr_t) {}
void *RealDlsym(void *handle, const char *name) { return dlsym(handle, name); }
int RealSigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return sigaction(sig, act, old);
}

} // namespace ownsan
