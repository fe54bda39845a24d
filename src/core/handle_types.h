//===- handle_types.h - Handle types and object kinds -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The HandleType and ObjectKind enums and what each says, from the one
// table of the profile built in (OWNSAN_HANDLE_TYPES_DEF: src/profiles/NAME/
// handle_types.def (which tools/gen_wrappers.py reads
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

/// Other handle types that may name a kind (the table's
/// OWNSAN_KIND_ALSO_NAMED rows; a sentinel ends the list).
struct KindAlsoNamed {
  ObjectKind kind;
  HandleType type;
};
inline constexpr KindAlsoNamed kKindAlsoNamed[] = {
#define OWNSAN_KIND_ALSO_NAMED(Kind, Enum) {ObjectKind::Kind, HandleType::Enum},
#include OWNSAN_HANDLE_TYPES_DEF
    {ObjectKind::Unknown, HandleType::Other}};

/// Can a handle of C type `type` name an object of kind `k`? (Inline: the
/// per-call check asks it; the table's one type per kind first.)
inline bool Compatible(ObjectKind k, HandleType type) {
  if (type == HandleType::Other ||
      kKindHandleTypes[static_cast<uint8_t>(k)] == type)
    return true;
  for (const KindAlsoNamed &a : kKindAlsoNamed)
    if (a.kind == k && a.type == type)
      return true;
  return false;
}

/// The watched kinds: those whose deaths the allocator shows (a released
/// block of memory that holds them), the table's OWNSAN_WATCHED_KINDS.
#define OWNSAN_WATCHED_KINDS(First, Last)                                      \
  inline constexpr ObjectKind kFirstWatchedKind = ObjectKind::First;           \
  inline constexpr ObjectKind kLastWatchedKind = ObjectKind::Last;
#include OWNSAN_HANDLE_TYPES_DEF

/// Inline: the per-call checks ask it.
inline bool IsWatchedKind(ObjectKind k) {
  return k >= kFirstWatchedKind && k <= kLastWatchedKind;
}

/// The handle types watched objects are handed out as (the table's
/// OWNSAN_WATCHED_HANDLE_TYPE rows): a returned handle of such a type is
/// registered as a watched object. A bit per HandleType: Register asks it
/// for every returned handle.
inline constexpr uint64_t kWatchedHandleTypeBits = 0u
#define OWNSAN_WATCHED_HANDLE_TYPE(Enum)                                       \
  | (uint64_t{1} << static_cast<unsigned>(HandleType::Enum))
#include OWNSAN_HANDLE_TYPES_DEF
    ;
inline constexpr unsigned kHandleTypeCount = 0u
#define OWNSAN_HANDLE_TYPE(Enum, CType) +1u
#include OWNSAN_HANDLE_TYPES_DEF
    ;
static_assert(kHandleTypeCount <= 64, "kWatchedHandleTypeBits has 64 bits");
inline bool IsWatchedType(HandleType type) {
  return (kWatchedHandleTypeBits >> static_cast<unsigned>(type)) & 1;
}

/// "module", "instruction", ... as used in labels and cause clauses.
const char *KindNoun(ObjectKind k);
/// The C handle type the object travels as, e.g. "LLVMValueRef".
const char *KindHandleType(ObjectKind k);
/// The C typedef of a handle type, e.g. "LLVMErrorRef" ("" for Other).
const char *HandleTypeCType(HandleType type);
/// How a label joins an object of this kind to its parent's label
/// (" of ": `block %entry of function @f`; " in " unless the table says).
const char *KindConnector(ObjectKind k);
/// One thread at a time may use an object of this kind and everything in it
/// (OWNSAN_KIND_ONE_THREAD: LLVM's contexts; src/runtime/contexts.cpp).
bool KindOneThreadAtATime(ObjectKind k);
/// Freeing an object of this kind ends the watched objects below it too,
/// although the library frees none of them (OWNSAN_KIND_ENDS_WATCHED).
bool KindEndsWatchedDescendants(ObjectKind k);
/// Live objects of this kind at exit are leaks only when a call flagged
/// `creates` made them and nothing but a context owns them
/// (OWNSAN_KIND_OWNED_IF_CREATED).
bool KindOwnedIfCreated(ObjectKind k);
/// Live objects of this kind at exit are leaks (see handle_types.def).
bool KindCallerDisposes(ObjectKind k);
/// An object of this kind is named by its printed form (`i32`)
/// (OWNSAN_KIND_PRINTED).
inline constexpr uint64_t kPrintedKindBits = 0u
#define OWNSAN_KIND_PRINTED(Kind)                                              \
  | (uint64_t{1} << static_cast<unsigned>(ObjectKind::Kind))
#include OWNSAN_HANDLE_TYPES_DEF
    ;
inline bool IsPrintedKind(ObjectKind k) {
  return (kPrintedKindBits >> static_cast<unsigned>(k)) & 1;
}

/// "LLVMExecutionEngineRef" -> "execution engine",
/// "LLVMMCJITMemoryManagerRef" -> "mcjit memory manager".
/// (tools/gen_ownership_doc.py's type_noun is the same rule.)
std::string HandleTypeNoun(const char *type);

} // namespace ownsan

#endif // OWNSAN_CORE_HANDLE_TYPES_H
