//===- object_record.cpp - Records and names for object kinds ------------===//

#include "core/object_record.h"

#include <cctype>

namespace ownsan {

const RecordExtra ObjectRecord::kNoExtra;

RecordExtra &ObjectRecord::MutableRare() {
  RecordExtra *e = extra_.load(std::memory_order_acquire);
  if (!e) {
    e = new RecordExtra; // lives as long as the record: never freed
    extra_.store(e, std::memory_order_release);
  }
  return *e;
}

RecordName &RecordName::operator=(std::string_view v) {
  char *data = nullptr;
  if (!v.empty()) {
    uint32_t n = static_cast<uint32_t>(v.size());
    data = new char[sizeof n + n];
    std::memcpy(data, &n, sizeof n);
    std::memcpy(data + sizeof n, v.data(), n);
  }
  delete[] data_;
  data_ = data;
  return *this;
}

std::string HandleTypeNoun(const char *type) {
  std::string t = type ? type : "object";
  if (t.rfind("LLVM", 0) == 0)
    t = t.substr(4);
  if (t.size() > 3 && t.compare(t.size() - 3, 3, "Ref") == 0)
    t.resize(t.size() - 3);
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    // A word starts at a capital after a small letter, or at the last
    // capital of an acronym ("MCJITMemory": before the M of Memory).
    bool starts =
        isupper(static_cast<unsigned char>(c)) && i > 0 &&
        (!isupper(static_cast<unsigned char>(t[i - 1])) ||
         (i + 1 < t.size() && islower(static_cast<unsigned char>(t[i + 1]))));
    if (starts)
      out += ' ';
    out += static_cast<char>(tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

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
