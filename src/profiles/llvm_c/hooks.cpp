//===- hooks.cpp - The LLVM-C profile's calls into libLLVM ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything the runtime asks libLLVM, through the typed entry points the
// generator writes from the installed llvm-c headers (build/gen/real_fns.h).
// Each hook is called on a live object only (see src/runtime/profile.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/profile.h"

#include "absl/strings/str_cat.h"

#include "fn_ids.h"
#include "real_fns.h"

namespace ownsan {
namespace {

LLVMValueRef AsValue(const void *h) {
  return static_cast<LLVMValueRef>(const_cast<void *>(h));
}

Classification Classify(const void *h, HandleType type) {
  Classification c;
  void *p = const_cast<void *>(h);
  switch (type) {
  case HandleType::Context:
    c.kind = ObjectKind::Context;
    break;
  case HandleType::Module:
    c.kind = ObjectKind::Module;
    c.parent = real::LLVMGetModuleContext(static_cast<LLVMModuleRef>(p));
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Type:
    c.kind = ObjectKind::Type;
    c.parent = real::LLVMGetTypeContext(static_cast<LLVMTypeRef>(p));
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Builder:
    c.kind = ObjectKind::Builder;
    break;
  case HandleType::MemoryBuffer:
    c.kind = ObjectKind::MemoryBuffer;
    break;
  case HandleType::Value:
  case HandleType::BasicBlock: {
    LLVMValueRef v = AsValue(h);
    switch (LLVMValueKind vk = real::LLVMGetValueKind(v)) {
    case LLVMArgumentValueKind:
      c.kind = ObjectKind::Argument;
      c.parent = real::LLVMGetParamParent(v);
      c.parent_type = HandleType::Value;
      break;
    case LLVMBasicBlockValueKind:
      c.kind = ObjectKind::BasicBlock;
      c.parent =
          real::LLVMGetBasicBlockParent(static_cast<LLVMBasicBlockRef>(p));
      c.parent_type = HandleType::Value;
      break;
    case LLVMInstructionValueKind:
      c.kind = ObjectKind::Instruction;
      c.parent = real::LLVMGetInstructionParent(v);
      c.parent_type = HandleType::BasicBlock;
      break;
    case LLVMFunctionValueKind:
    case LLVMGlobalVariableValueKind:
    case LLVMGlobalAliasValueKind:
    case LLVMGlobalIFuncValueKind:
      c.kind = vk == LLVMFunctionValueKind         ? ObjectKind::Function
               : vk == LLVMGlobalVariableValueKind ? ObjectKind::GlobalVariable
               : vk == LLVMGlobalAliasValueKind    ? ObjectKind::GlobalAlias
                                                   : ObjectKind::GlobalIFunc;
      c.parent = real::LLVMGetGlobalParent(v);
      c.parent_type = HandleType::Module;
      break;
    case LLVMMetadataAsValueValueKind:
    case LLVMInlineAsmValueKind:
    case LLVMMemoryUseValueKind:
    case LLVMMemoryDefValueKind:
    case LLVMMemoryPhiValueKind:
      c.kind = ObjectKind::OtherValue;
      break;
    default: // every kind of constant
      c.kind = ObjectKind::Constant;
      c.parent = real::LLVMGetTypeContext(real::LLVMTypeOf(v));
      c.parent_type = HandleType::Context;
      break;
    }
    break;
  }
  case HandleType::Other:
  case HandleType::Error: // registered by RegisterOpaque
    break;
  }
  return c;
}

const void *GlobalRoot() { return real::LLVMGetGlobalContext(); }

bool ContainerOf(const void *h, HandleType, Container *out) {
  // LLVMDeleteInstruction / LLVMDeleteBasicBlock / the ifunc erasers
  // require a detached or an attached object (the spec's free_detached,
  // free_attached): the others have no such precondition.
  LLVMValueRef v = AsValue(h);
  switch (real::LLVMGetValueKind(v)) {
  case LLVMInstructionValueKind:
    *out = {real::LLVMGetInstructionParent(v), "instructions", "block",
            HandleType::Value, "LLVMInstructionRemoveFromParent"};
    return true;
  case LLVMBasicBlockValueKind:
    *out = {real::LLVMGetBasicBlockParent(real::LLVMValueAsBasicBlock(v)),
            "blocks", "function", HandleType::Value,
            "LLVMRemoveBasicBlockFromParent"};
    return true;
  case LLVMGlobalIFuncValueKind:
    *out = {real::LLVMGetGlobalParent(v), "global ifuncs", "module",
            HandleType::Value, "LLVMRemoveGlobalIFunc"};
    return true;
  default:
    return false;
  }
}

const void *InsertBlock(const void *builder) {
  return real::LLVMGetInsertBlock(
      static_cast<LLVMBuilderRef>(const_cast<void *>(builder)));
}

std::string ValueName(const void *h, ObjectKind) {
  size_t len = 0;
  const char *s = real::LLVMGetValueName2(AsValue(h), &len);
  return std::string(s ? s : "", s ? len : 0);
}

std::string ModuleName(const void *h) {
  size_t len = 0;
  const char *s = real::LLVMGetModuleIdentifier(
      static_cast<LLVMModuleRef>(const_cast<void *>(h)), &len);
  return std::string(s ? s : "", s ? len : 0);
}

std::string PrintedText(const void *h, ObjectKind) {
  char *s = real::LLVMPrintTypeToString(
      static_cast<LLVMTypeRef>(const_cast<void *>(h)));
  std::string out = s ? s : "";
  real::LLVMDisposeMessage(s);
  return out;
}

std::string WatchedLabel(ObjectKind kind, const std::string &name,
                         const std::string &addr) {
  switch (kind) {
  case ObjectKind::Function:
  case ObjectKind::GlobalVariable:
  case ObjectKind::GlobalAlias:
  case ObjectKind::GlobalIFunc:
    return absl::StrCat(KindNoun(kind), " ",
                        name.empty() ? "<unnamed>" : "@" + name);
  case ObjectKind::BasicBlock:
  case ObjectKind::Instruction:
  case ObjectKind::Argument:
    return absl::StrCat(KindNoun(kind), " ",
                        name.empty() ? "<unnamed>" : "%" + name);
  default:
    return absl::StrCat(KindNoun(kind), " ", addr);
  }
}

size_t BufferSize(const void *h) {
  return real::LLVMGetBufferSize(
      static_cast<LLVMMemoryBufferRef>(const_cast<void *>(h)));
}

void DisposeHeld(Quarantine::Chunk::Release how, void *p) {
  switch (how) {
  case Quarantine::Chunk::kDisposeMemoryBuffer:
    real::LLVMDisposeMemoryBuffer(static_cast<LLVMMemoryBufferRef>(p));
    break;
  case Quarantine::Chunk::kDisposeMessage:
    real::LLVMDisposeMessage(static_cast<char *>(p));
    break;
  case Quarantine::Chunk::kDisposeErrorMessage:
    real::LLVMDisposeErrorMessage(static_cast<char *>(p));
    break;
  case Quarantine::Chunk::kFree:
  case Quarantine::Chunk::kFreeMalloced:
    break; // (the runtime's own)
  }
}

} // namespace

const ProfileHooks kProfile = {
    /*library_noun=*/"LLVM",
    /*api_name=*/"LLVM-C",
    /*anchor_function=*/"LLVMContextCreate",
    &Classify,
    &GlobalRoot,
    &ContainerOf,
    &InsertBlock,
    &ValueName,
    &ModuleName,
    &PrintedText,
    &WatchedLabel,
    &BufferSize,
    &DisposeHeld,
    /*take_back_example=*/"LLVMRemoveModule",
    /*message_disposer=*/"LLVMDisposeMessage",
    /*error_message_disposer=*/"LLVMDisposeErrorMessage",
    /*owned_strings_example=*/"LLVMPrint*ToString",
    /*context_type=*/"LLVMContext",
};

} // namespace ownsan
