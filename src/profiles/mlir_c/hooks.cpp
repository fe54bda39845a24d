//===- hooks.cpp - The MLIR-C profile's calls into MLIR -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything the runtime asks MLIR, through the typed entry points the
// generator writes from the installed mlir-c headers (build/gen/real_fns.h),
// and the one question the C API cannot answer (a region's operation,
// ir_helpers.cpp). Each hook is called on a live object only (see
// src/runtime/profile.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/profile.h"

#include "absl/strings/str_cat.h"

#include "fn_ids.h"
#include "real_fns.h"

#include <cstring>
#include <string>

// ir_helpers.cpp (MLIR's C++ API): the operation holding a region, or null
// for a region the caller owns (mlirRegionCreate).
extern "C" const void *ownsan_mlir_region_parent_op(const void *region);

namespace ownsan {
namespace {

MlirOperation AsOp(const void *h) {
  return MlirOperation{const_cast<void *>(h)};
}
MlirBlock AsBlock(const void *h) { return MlirBlock{const_cast<void *>(h)}; }

std::string Str(MlirStringRef s) {
  return s.data ? std::string(s.data, s.length) : std::string();
}

std::string OpName(MlirOperation op) {
  return Str(real::mlirIdentifierStr(real::mlirOperationGetName(op)));
}

bool IsModuleOp(MlirOperation op) {
  MlirStringRef s = real::mlirIdentifierStr(real::mlirOperationGetName(op));
  return s.length == 14 && memcmp(s.data, "builtin.module", 14) == 0;
}

// `@f` for an operation with a symbol name, else "".
std::string SymbolName(MlirOperation op) {
  MlirAttribute a =
      real::mlirOperationGetAttributeByName(op, MlirStringRef{"sym_name", 8});
  if (!a.ptr || !real::mlirAttributeIsAString(a))
    return "";
  return "@" + Str(real::mlirStringAttrGetValue(a));
}

// An operation's parent: its block, or its context when it is in none
// (top-level: a module, or one the caller owns).
void OperationParent(MlirOperation op, Classification *c) {
  MlirBlock b = real::mlirOperationGetBlock(op);
  if (b.ptr) {
    c->parent = b.ptr;
    c->parent_type = HandleType::BasicBlock;
  } else {
    c->parent = real::mlirOperationGetContext(op).ptr;
    c->parent_type = HandleType::Context;
  }
}

Classification Classify(const void *h, HandleType type) {
  Classification c;
  switch (type) {
  case HandleType::Context:
    c.kind = ObjectKind::Context;
    break;
  case HandleType::Module:
  case HandleType::Operation: {
    MlirOperation op = AsOp(h);
    c.kind = IsModuleOp(op) ? ObjectKind::Module : ObjectKind::Operation;
    OperationParent(op, &c);
    break;
  }
  case HandleType::Region:
    c.kind = ObjectKind::Region;
    c.parent = ownsan_mlir_region_parent_op(h);
    c.parent_type = HandleType::Operation;
    break;
  case HandleType::BasicBlock:
    c.kind = ObjectKind::BasicBlock;
    c.parent = real::mlirBlockGetParentRegion(AsBlock(h)).ptr;
    c.parent_type = HandleType::Region;
    break;
  case HandleType::Value: {
    MlirValue v{h};
    c.kind = ObjectKind::Value;
    if (real::mlirValueIsAOpResult(v)) {
      c.parent = real::mlirOpResultGetOwner(v).ptr;
      c.parent_type = HandleType::Operation;
    } else if (real::mlirValueIsABlockArgument(v)) {
      c.parent = real::mlirBlockArgumentGetOwner(v).ptr;
      c.parent_type = HandleType::BasicBlock;
    }
    break;
  }
  case HandleType::Type:
    c.kind = ObjectKind::Type;
    c.parent = real::mlirTypeGetContext(MlirType{h}).ptr;
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Attribute:
    c.kind = ObjectKind::Attribute;
    c.parent = real::mlirAttributeGetContext(MlirAttribute{h}).ptr;
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Location:
    c.kind = ObjectKind::Location;
    c.parent = real::mlirLocationGetContext(MlirLocation{h}).ptr;
    c.parent_type = HandleType::Context;
    break;
  case HandleType::Other:
  case HandleType::Builder:
  case HandleType::MemoryBuffer:
  case HandleType::Error:
    break;
  }
  return c;
}

const void *GlobalRoot() { return nullptr; }

bool ContainerOf(const void *h, HandleType type, Container *out) {
  // mlirOperationDestroy, mlirBlockDestroy and mlirRegionDestroy take an
  // object the caller owns (the spec's free_detached): one in a block, a
  // region or an operation belongs to it.
  switch (type) {
  case HandleType::Module: // (a module is its operation)
  case HandleType::Operation:
    *out = {real::mlirOperationGetBlock(AsOp(h)).ptr, "operations", "block",
            HandleType::BasicBlock, "mlirOperationRemoveFromParent"};
    return true;
  case HandleType::BasicBlock:
    *out = {real::mlirBlockGetParentRegion(AsBlock(h)).ptr, "blocks", "region",
            HandleType::Region, "mlirBlockDetach"};
    return true;
  case HandleType::Region:
    *out = {ownsan_mlir_region_parent_op(h), "regions", "operation",
            HandleType::Operation};
    return true;
  default:
    return false;
  }
}

const void *InsertBlock(const void *) { return nullptr; }

// The index of `child` among an operation's regions or a region's blocks
// ("#0"), or "" when it is not found.
std::string RegionIndex(const void *region) {
  const void *parent = ownsan_mlir_region_parent_op(region);
  if (!parent)
    return "";
  MlirOperation op = AsOp(parent);
  intptr_t n = real::mlirOperationGetNumRegions(op);
  for (intptr_t i = 0; i < n; ++i)
    if (real::mlirOperationGetRegion(op, i).ptr == region)
      return absl::StrCat("#", i);
  return "";
}

std::string BlockIndex(const void *block) {
  MlirRegion region = real::mlirBlockGetParentRegion(AsBlock(block));
  if (!region.ptr)
    return "";
  int i = 0;
  for (MlirBlock b = real::mlirRegionGetFirstBlock(region); b.ptr;
       b = real::mlirBlockGetNextInRegion(b), ++i)
    if (b.ptr == block)
      return absl::StrCat("#", i);
  return "";
}

// The name a report gives a watched object (read while it is alive):
// `"func.func" @f` for an operation, `@m` for a module, `#0` for a block or
// region, `result #0` / `argument #1` for a value.
std::string ValueName(const void *h, ObjectKind kind) {
  switch (kind) {
  case ObjectKind::Module:
    return SymbolName(AsOp(h));
  case ObjectKind::Operation: {
    MlirOperation op = AsOp(h);
    std::string sym = SymbolName(op);
    return absl::StrCat("\"", OpName(op), "\"", sym.empty() ? "" : " ", sym);
  }
  case ObjectKind::Region:
    return RegionIndex(h);
  case ObjectKind::BasicBlock:
    return BlockIndex(h);
  case ObjectKind::Value: {
    MlirValue v{h};
    if (real::mlirValueIsAOpResult(v))
      return absl::StrCat("result #", real::mlirOpResultGetResultNumber(v));
    if (real::mlirValueIsABlockArgument(v))
      return absl::StrCat("argument #", real::mlirBlockArgumentGetArgNumber(v));
    return "";
  }
  default:
    return "";
  }
}

std::string ModuleName(const void *h) { return SymbolName(AsOp(h)); }

void AppendPrinted(MlirStringRef s, void *out) {
  static_cast<std::string *>(out)->append(s.data, s.length);
}

std::string TypeText(const void *h) {
  std::string out;
  real::mlirTypePrint(MlirType{h}, &AppendPrinted, &out);
  return out;
}

// A type as printed; an attribute too, but an elements attribute by its
// type only (`elements : tensor<1024xf32>`: its data may be megabytes).
std::string PrintedText(const void *h, ObjectKind kind) {
  if (kind != ObjectKind::Attribute)
    return TypeText(h);
  MlirAttribute a{h};
  if (real::mlirAttributeIsAElements(a))
    return "elements : " + TypeText(real::mlirAttributeGetType(a).ptr);
  std::string out;
  real::mlirAttributePrint(a, &AppendPrinted, &out);
  return out;
}

std::string WatchedLabel(ObjectKind kind, const std::string &name,
                         const std::string &addr) {
  switch (kind) {
  case ObjectKind::Value:
    return name.empty() ? absl::StrCat("value ", addr) : name;
  default:
    return absl::StrCat(KindNoun(kind), " ", name.empty() ? addr : name);
  }
}

size_t BufferSize(const void *) { return 0; }

void DisposeHeld(Quarantine::Chunk::Release, void *) {
  // (No object of this API is held whole: operations, blocks and regions
  // are held as memory, released by the runtime.)
}

} // namespace

const ProfileHooks kProfile = {
    /*library_noun=*/"MLIR",
    /*api_name=*/"MLIR-C",
    // (mlir::Operation::destroy(): the C API is linked into the program,
    // MLIR itself is libMLIR.so, whose frames stacks leave out.)
    /*anchor_function=*/"_ZN4mlir9Operation7destroyEv",
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
    /*take_back_example=*/"mlirOperationRemoveFromParent",
    /*message_disposer=*/"",
    /*error_message_disposer=*/"",
    /*owned_strings_example=*/"",
    /*context_type=*/"MLIRContext",
};

} // namespace ownsan
