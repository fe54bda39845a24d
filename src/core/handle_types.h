//===- handle_types.h - Handle types and object kinds -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The HandleType and ObjectKind enums and what each says, from the one
// table src/profiles/llvm_c/handle_types.def (which tools/gen_wrappers.py reads
// too).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_HANDLE_TYPES_H
#define OWNSAN_CORE_HANDLE_TYPES_H

#include <cstdint>
#include <string>

namespace ownsan {

/// The C type a handle travels as (an OWNSAN_HANDLE_TYPE row). Decides how
/// a returned handle is registered; every handle argument is checked
/// whatever its type.
enum class HandleType : uint8_t {
#define OWNSAN_HANDLE_TYPE(Enum, CType) Enum,
#include OWNSAN_HANDLE_TYPES_DEF
};

/// A kind of object ownsan records (an OWNSAN_OBJECT_KIND row).
enum class ObjectKind : uint8_t {
#define OWNSAN_OBJECT_KIND(Kind, Enum, CType, Noun, CallerDisposes) Kind,
#include OWNSAN_HANDLE_TYPES_DEF
};

/// The HandleType that may name each ObjectKind (the table's Enum column).
inline constexpr HandleType kKindHandleTypes[] = {
#define OWNSAN_OBJECT_KIND(Kind, Enum, CType, Noun, CallerDisposes)            \
  HandleType::Enum,
#include OWNSAN_HANDLE_TYPES_DEF
};

/// Can a handle of C type `type` name an object of kind `k`? (Inline: the
/// per-call check asks it.)
inline bool Compatible(ObjectKind k, HandleType type) {
  return type == HandleType::Other ||
         kKindHandleTypes[static_cast<uint8_t>(k)] == type;
}

/// Values are the kinds whose deletion ownsan sees in operator delete.
/// Inline: the per-call checks ask it.
inline bool IsValueKind(ObjectKind k) {
  return k >= ObjectKind::Function && k <= ObjectKind::OtherValue;
}

/// "module", "instruction", ... as used in labels and cause clauses.
const char *KindNoun(ObjectKind k);
/// The C handle type the object travels as, e.g. "LLVMValueRef".
const char *KindHandleType(ObjectKind k);
/// The C typedef of a handle type, e.g. "LLVMErrorRef" ("" for Other).
const char *HandleTypeCType(HandleType type);
/// Live objects of this kind at exit are leaks (see handle_types.def).
bool KindCallerDisposes(ObjectKind k);

/// "LLVMExecutionEngineRef" -> "execution engine",
/// "LLVMMCJITMemoryManagerRef" -> "mcjit memory manager".
/// (tools/gen_ownership_doc.py's type_noun is the same rule.)
std::string HandleTypeNoun(const char *type);

} // namespace ownsan

#endif // OWNSAN_CORE_HANDLE_TYPES_H
