//===- object_record.cpp - Names for object kinds ------------------------===//

#include "core/object_record.h"

namespace ownsan {

const char *KindNoun(ObjectKind k) {
  switch (k) {
  case ObjectKind::Unknown:
    return "object";
  case ObjectKind::Context:
    return "context";
  case ObjectKind::Module:
    return "module";
  case ObjectKind::Function:
    return "function";
  case ObjectKind::GlobalVariable:
    return "global";
  case ObjectKind::GlobalAlias:
    return "alias";
  case ObjectKind::GlobalIFunc:
    return "ifunc";
  case ObjectKind::BasicBlock:
    return "block";
  case ObjectKind::Instruction:
    return "instruction";
  case ObjectKind::Argument:
    return "argument";
  case ObjectKind::Constant:
    return "constant";
  case ObjectKind::OtherValue:
    return "value";
  case ObjectKind::Type:
    return "type";
  case ObjectKind::Builder:
    return "builder";
  case ObjectKind::MemoryBuffer:
    return "memory buffer";
  case ObjectKind::Opaque:
    return "object";
  case ObjectKind::Message:
  case ObjectKind::ErrorMessage:
    return "message";
  }
  return "object";
}

const char *KindHandleType(ObjectKind k) {
  switch (k) {
  case ObjectKind::Context:
    return "LLVMContextRef";
  case ObjectKind::Module:
    return "LLVMModuleRef";
  case ObjectKind::BasicBlock:
    return "LLVMBasicBlockRef";
  case ObjectKind::Type:
    return "LLVMTypeRef";
  case ObjectKind::Builder:
    return "LLVMBuilderRef";
  case ObjectKind::MemoryBuffer:
    return "LLVMMemoryBufferRef";
  case ObjectKind::Opaque:
    return "handle";
  case ObjectKind::Message:
  case ObjectKind::ErrorMessage:
    return "char *";
  case ObjectKind::Unknown:
    return "handle";
  default:
    return "LLVMValueRef";
  }
}

} // namespace ownsan
