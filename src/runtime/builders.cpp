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

#include <algorithm>

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
  for (ObjectRecord *old : {x.insert_block, x.insert_before}) {
    if (!old)
      continue;
    auto it = positioned_at_.find(old);
    if (it != positioned_at_.end()) {
      auto &builders = it->second;
      builders.erase(std::remove(builders.begin(), builders.end(), b),
                     builders.end());
      if (builders.empty())
        positioned_at_.erase(it);
    }
  }
  x.insert_block = block;
  x.insert_before = before;
  x.insert_point_freed = nullptr;
  // (A list, not a set: a block or instruction has a builder or two at it;
  // a set cost an allocation per move.)
  for (ObjectRecord *at : {block, before}) {
    if (!at)
      continue;
    auto &builders = positioned_at_[at];
    if (std::find(builders.begin(), builders.end(), b) == builders.end())
      builders.push_back(b);
  }
}

void Runtime::NoteDeath(ObjectRecord *r) {
  if (r->kind == ObjectKind::Builder) {
    SetPosition(r, nullptr, nullptr);
    return;
  }
  auto it = positioned_at_.find(r);
  if (it == positioned_at_.end())
    return;
  for (ObjectRecord *b : it->second) {
    // The builder keeps pointing here; its next insertion is reported.
    RecordExtra &x = b->MutableRare();
    (x.insert_block == r ? x.insert_block : x.insert_before) = nullptr;
    x.insert_point_freed = r;
    dangling_builders_.Add(b->addr);
  }
  positioned_at_.erase(it);
}

} // namespace ownsan
