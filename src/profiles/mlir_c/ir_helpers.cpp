//===- ir_helpers.cpp - What the MLIR-C profile asks MLIR's C++ API -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The questions the C API has no function for, answered with MLIR's C++
// API (linked into the program with it: link mode). Called on live objects
// only, like every hook.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"

/// The operation a region belongs to, or null for a region the caller owns
/// (mlirRegionCreate). The C API of LLVM 19 has no mlirRegionGetParent*.
extern "C" __attribute__((visibility("hidden"))) const void *
ownsan_mlir_region_parent_op(const void *region) {
  return const_cast<mlir::Region *>(static_cast<const mlir::Region *>(region))
      ->getParentOp();
}
