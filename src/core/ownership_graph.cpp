//===- ownership_graph.cpp - Live LLVM objects and who owns them ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/ownership_graph.h"

#include <cassert>

namespace ownsan {

ObjectRecord *OwnershipGraph::Add(const void *addr, ObjectKind kind,
                                  ObjectRecord *parent,
                                  ObjectRecord **displaced) {
  assert(!Find(addr) && "address already live");
  ++registered_;
  bool reused = arena_.HasFree();
  ObjectRecord &r = arena_.emplace_back();
  if (reused) {
    r.Reuse(addr, kind);
  } else {
    r.addr = addr;
    r.kind = kind;
    r.state.store(ObjectState::Live, std::memory_order_release);
  }
  if (KindOneThreadAtATime(kind)) {
    ContextUse *use;
    if (!free_uses_.empty()) {
      use = free_uses_.back();
      free_uses_.pop_back();
    } else {
      use = &context_uses_.emplace_back();
    }
    use->record = &r;
    r.context_use = use;
  }
  ObjectRecord *old = index_.Put(&r);
  if (displaced)
    *displaced = old; // (without a ShadowMap sharing the index: nothing)
  ++live_count_;
  if (!IsWatched(kind))
    unwatched_by_addr_.Put(&r);
  SetParent(&r, parent);
  return &r;
}

void OwnershipGraph::Recycle(ObjectRecord *r) {
  if (r->kind == ObjectKind::Context && r->context_use &&
      r->context_use->record == r) {
    ContextUse *use = r->context_use;
    use->owner.store(0, std::memory_order_relaxed);
    use->stack_claims_left.store(0, std::memory_order_relaxed);
    use->active_stack.store(0, std::memory_order_relaxed);
    use->record = nullptr;
    free_uses_.push_back(use);
  }
  r->context_use = nullptr;
  arena_.Free(r);
}

void OwnershipGraph::SetParent(ObjectRecord *r, ObjectRecord *new_parent) {
  Unlink(r);
  r->parent = new_parent;
  // A detached object stays in its context.
  if (new_parent && new_parent->context_use && r->kind != ObjectKind::Context)
    r->context_use = new_parent->context_use;
  if (new_parent && !IsWatched(r->kind)) {
    auto [it, added] = children_.try_emplace(new_parent);
    if (added)
      parents_.Add(new_parent);
    it->second.insert(r);
  }
}

bool OwnershipGraph::HasChildrenEntry(ObjectRecord *r) const {
  return children_.contains(r);
}

void OwnershipGraph::Unlink(ObjectRecord *r) {
  if (!r->parent || IsWatched(r->kind))
    return;
  auto it = children_.find(r->parent);
  if (it != children_.end()) {
    it->second.erase(r);
    if (it->second.empty())
      EraseChildren(it);
  }
}

std::vector<ObjectRecord *> OwnershipGraph::Remove(ObjectRecord *root) {
  std::vector<ObjectRecord *> out{root};
  // Breadth-first over unwatched children; `out` doubles as the work list.
  for (size_t i = 0; i < out.size(); ++i) {
    if (!parents_.MayHold(out[i]))
      continue; // (the common answer, without hashing)
    auto it = children_.find(out[i]);
    if (it == children_.end())
      continue;
    for (ObjectRecord *c : it->second)
      out.push_back(c);
    EraseChildren(it);
  }
  Unlink(root);
  for (ObjectRecord *r : out) {
    if (index_.Erase(r))
      --live_count_;
    if (!IsWatched(r->kind)) {
      unwatched_by_addr_.Erase(r);
    }
  }
  return out;
}

void OwnershipGraph::RemoveWithoutList(ObjectRecord *r) {
  if (HasUnwatchedChildren(r)) {
    Remove(r);
    return;
  }
  // What Remove() does for an object without unwatched children.
  Unlink(r);
  if (index_.Erase(r))
    --live_count_;
  if (!IsWatched(r->kind)) {
    unwatched_by_addr_.Erase(r);
  }
}

void OwnershipGraph::ForgetInPlace(ObjectRecord *r) {
  assert(!children_.contains(r) && "Remove() takes its children");
  Unlink(r);
  --live_count_;
  if (!IsWatched(r->kind))
    unwatched_by_addr_.Erase(r);
}

void OwnershipGraph::ForEachUnwatchedIn(
    const void *lo, size_t size,
    absl::FunctionRef<void(ObjectRecord *)> fn) const {
  unwatched_by_addr_.ForEachInRange(lo, size, fn);
}

} // namespace ownsan
