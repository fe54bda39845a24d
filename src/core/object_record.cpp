//===- object_record.cpp - Records and names for object kinds ------------===//

#include "core/object_record.h"

#include "core/internal_allocator.h"

#include <cctype>
#include <cstring>
#include <iterator>
#include <new>

namespace ownsan {

const RecordExtra ObjectRecord::kNoExtra;

namespace {
// Extras live as long as their records (never freed) and are only made
// under the runtime's lock (see MutableRare): one arena, no lock of its own.
MappedBump<RecordExtra, 4096> g_extras;
RecordExtra *NewExtra() { return g_extras.New(/*leak_roots=*/false); }

// Events are made outside the runtime's lock: an arena per thread.
__thread MappedBump<FreeEvent, 2048> tls_events
    __attribute__((tls_model("initial-exec")));

const char *CopyDetail(const char *detail) {
  if (!detail || !*detail)
    return "";
  return strdup(detail); // (rare: a few calls have one)
}
} // namespace

FreeEvent *NewFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                        uint32_t thread, const char *detail) {
  // (events point at their details, on the heap: leak roots)
  FreeEvent *ev = tls_events.New(/*leak_roots=*/true);
  ev->fn = fn;
  ev->target = target;
  ev->stack = stack;
  ev->thread = thread;
  ev->detail = CopyDetail(detail);
  return ev;
}

RecordExtra &ObjectRecord::MutableRare() {
  RecordExtra *e = extra_.load(std::memory_order_acquire);
  if (!e || e->shared) {
    // Case: no extra yet, or one shared by type (copied, then written).
    RecordExtra *own = NewExtra();
    if (e) {
      *own = *e;
      own->shared = false;
    }
    extra_.store(own, std::memory_order_release);
    e = own;
  }
  return *e;
}

void ObjectRecord::SetTypeName(const char *type) {
  RecordExtra *e = extra_.load(std::memory_order_acquire);
  if (e) {
    // Case: the record has rare fields already: its own copy takes the type.
    MutableRare().type_name = type;
    return;
  }
  // Case: the usual fresh record: the type's shared extra. (Few types: a
  // short list, searched under the same lock.)
  static RecordExtra *by_type[128];
  static size_t types = 0;
  RecordExtra *x = nullptr;
  for (size_t i = 0; i < types && !x; ++i)
    if (by_type[i]->type_name == type)
      x = by_type[i];
  if (!x) {
    if (types == std::size(by_type)) {
      MutableRare().type_name = type; // (more types than foreseen)
      return;
    }
    x = NewExtra();
    x->type_name = type;
    x->shared = true;
    by_type[types++] = x;
  }
  extra_.store(x, std::memory_order_release);
}

RecordName &RecordName::operator=(std::string_view v) {
  char *data = nullptr;
  if (!v.empty()) {
    uint32_t n = static_cast<uint32_t>(v.size());
    data = static_cast<char *>(InternalAllocate(sizeof n + n));
    std::memcpy(data, &n, sizeof n);
    std::memcpy(data + sizeof n, v.data(), n);
  }
  Release();
  data_ = data;
  return *this;
}

void RecordName::Release() {
  if (!data_)
    return;
  uint32_t n;
  std::memcpy(&n, data_, sizeof n);
  InternalDeallocate(data_, sizeof n + n);
  data_ = nullptr;
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
