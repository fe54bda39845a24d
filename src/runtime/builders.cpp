//===- builders.cpp - Builder insertion points ----------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where each builder inserts (its block and instruction), and the builders
// left pointing into freed IR (dangling-insertion-point).
//
// POSITION STATES (per builder, in its record's rare fields)
//
//   unpositioned  created, never positioned: inserting is LLVM's business
//   positioned    SetPosition() (the spec's Position effect): at the end of
//                 insert_block, or before insert_before
//   dangling      NoteDeath() of that block or instruction:
//                 insert_point_freed names it; the next call that inserts
//                 at the position (CheckInsertionPoint) is reported, until
//                 the builder is positioned again
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/strings/str_cat.h"

namespace ownsan {

bool Runtime::CheckInsertionPoint(FnId fn, unsigned arg, const void *h) {
  RuntimeSection section;
  ObjectRecord *builder, *dead;
  HistoryPin pin(this);
  {
    MutexLock lock(&mu_);
    builder = graph_.Find(h);
    if (!builder || builder->kind != ObjectKind::Builder ||
        !builder->rare().insert_point_freed)
      return false;
    dead = builder->rare().insert_point_freed;
    pin.Take();
  }
  // Case: a live builder whose insertion block was deleted, or whose
  // insertion point was an instruction that was erased.
  return ReportDanglingInsertionPoint(fn, arg, h, builder, dead);
}

void Runtime::SetPosition(ObjectRecord *b, ObjectRecord *block,
                          ObjectRecord *before) {
  if (!block && !before && !b->rare().insert_block &&
      !b->rare().insert_before && !b->rare().insert_point_freed)
    return; // (a builder never positioned: nothing to write)
  RecordExtra &x = b->MutableRare();
  for (ObjectRecord *old : {x.insert_block, x.insert_before})
    if (old)
      positioned_at_.Remove(old, b);
  x.insert_block = block;
  x.insert_before = before;
  x.insert_point_freed = nullptr;
  for (ObjectRecord *at : {block, before})
    if (at)
      positioned_at_.Add(at, b);
}

void Runtime::NoteDeath(ObjectRecord *r) {
  if (r->kind == ObjectKind::Builder) {
    SetPosition(r, nullptr, nullptr);
    return;
  }
  for (ObjectRecord *b : positioned_at_.Take(r)) {
    // The builder keeps pointing here; its next insertion is reported.
    RecordExtra &x = b->MutableRare();
    (x.insert_block == r ? x.insert_block : x.insert_before) = nullptr;
    x.insert_point_freed = r;
    dangling_builders_.Add(b->addr);
  }
}

} // namespace ownsan
