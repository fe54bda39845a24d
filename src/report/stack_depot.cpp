//===- stack_depot.cpp - Deduplicated storage of stack traces ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/stack_depot.h"

#include "absl/debugging/stacktrace.h"

#include <execinfo.h>

namespace ownsan {

StackId StackDepot::Put(StackTrace s) {
  MutexLock lock(&mu_);
  auto it = ids_.find(s);
  if (it != ids_.end())
    return it->second;
  stacks_.push_back(std::move(s));
  StackId id = static_cast<StackId>(stacks_.size());
  ids_.emplace(stacks_.back(), id);
  return id;
}

const StackTrace &StackDepot::Get(StackId id) const {
  static const StackTrace kEmpty;
  MutexLock lock(&mu_);
  if (id == 0 || id > stacks_.size())
    return kEmpty;
  return stacks_[id - 1]; // deque elements never move
}

size_t StackDepot::size() const {
  MutexLock lock(&mu_);
  return stacks_.size();
}

__attribute__((noinline)) int
CaptureNativeStack(uintptr_t *out, int max, int skip, int depth, bool fast) {
  constexpr int kMax = 256;
  void *frames[kMax];
  int want = depth + skip + 1 > kMax ? kMax : depth + skip + 1;
  int n;
  if (fast) {
    // +1: GetStackTrace's own frame is not counted by `skip`.
    n = absl::GetStackTrace(frames, want, skip + 1);
    skip = 0;
  } else {
    n = backtrace(frames, want);
    skip += 1; // this function
  }
  int kept = 0;
  for (int i = skip; i < n && kept < depth && kept < max; ++i)
    out[kept++] = reinterpret_cast<uintptr_t>(frames[i]);
  return kept;
}

void CaptureNativeStack(StackTrace *out, int skip, int depth, bool fast) {
  uintptr_t pcs[256];
  // +1: this function.
  int n = CaptureNativeStack(pcs, 256, skip + 1, depth, fast);
  for (int i = 0; i < n && static_cast<int>(out->pcs.size()) < depth; ++i)
    out->pcs.push_back(pcs[i]);
}

} // namespace ownsan
