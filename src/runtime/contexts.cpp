//===- contexts.cpp - Context claims: one thread at a time ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each checked call claims the context of its handles (ContextUse in
// src/core/object_record.h): a second thread's claim while the first
// holds it is a context-race; handles of two contexts in one call are
// cross-context.
//
// CLAIM STATES (per context, lock-free for its owner)
//
//   unowned   no thread has claimed it yet (owner == 0)
//   owned(T)  T claimed it last (owner == T + 1); T's calls claim it again
//             by naming it in their call context (CallContext::context),
//             which the CallScope destructor clears: the claim is held
//             while T is inside a call on it (or in a callback of one)
//   handed    U != T claimed it while T was not inside a call on it (U
//   off       read T's call contexts through the thread registry): owner
//             becomes U, and U's next kStackClaimsAfterHandoff claims
//             record their stacks (stack_claims_left), so that a race
//             report can show both threads
//
//   owned(T), T inside a call on it + a claim by U -> context-race
//   (ReportContextRace; the claim is not taken); two contexts in one call
//   -> cross-context.
//
// An owner's claim costs two stores to its own call context: no shared
// cache line is written while one thread keeps using a context.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

namespace ownsan {

namespace {
// See "Context concurrency" below.
constexpr uint32_t kStackClaimsAfterHandoff = 256;
} // namespace

// Context concurrency: the first handle of a call that belongs to a context
// claims the context for the thread until the call returns. Another thread
// finding it claimed is inside a call on the same context at the same
// time: a race. Each time a thread takes over a context another thread
// used last (a hand-off), the next kStackClaimsAfterHandoff claims record
// their stacks, so a race report can show both threads; threads that take
// turns keep recording. A context one thread has used alone since then
// records nothing (a stack capture is most of such a call's cost): a race
// report shows the owner's calling frame, from its call context, instead.
// (CallScope::CheckHandleArg makes the owner's claims inline; this is the
// rest.)
bool Runtime::CheckContext(FnId fn, unsigned arg, const void *h,
                           ObjectRecord *r, ContextUse *use) {
  CallContext &call = CurrentCall();
  ObjectRecord *ctx = use->record;
  if (call.context) {
    if (call.context == ctx)
      return false;
    // Case: two handles of one call belong to different contexts (a type
    // of the global context in a module of another context, say).
    return ReportCrossContext(fn, arg, h, r, ctx);
  }
  // (Named before the race check, as for a claim: the call's other
  // handles of this context are not reported again.)
  call.context_arg = arg;
  __atomic_store_n(&call.context, ctx, __ATOMIC_RELEASE);
  uint32_t me = CurrentThreadNumberPlusOne();
  uint32_t owner = use->owner.load(std::memory_order_acquire);
  if (owner != me) {
    OpenCall open;
    if (owner != 0 && FindOpenCallOn(owner, ctx, &open))
      // Case: another thread is inside an LLVM-C call on this context now.
      return ReportContextRace(fn, arg, r, use, owner, open);
    // Sequential hand-off to another thread is fine; remember it, so the
    // next claims record their stacks.
    if (owner != 0)
      use->stack_claims_left.store(kStackClaimsAfterHandoff + 1,
                                   std::memory_order_relaxed);
    use->owner.store(me, std::memory_order_release);
  }
  // (owner == me also when an outer call of this thread, interrupted by a
  // callback, holds it: the claim is the thread's either way.)
  if (uint32_t left = use->stack_claims_left.load(std::memory_order_relaxed)) {
    use->stack_claims_left.store(left - 1, std::memory_order_relaxed);
    if (left > 1)
      RecordClaimStack(use);
    else
      // Case: the last recorded claim's stack is not this claim's; from
      // now on a report shows the calling frame instead.
      use->active_stack.store(0, std::memory_order_relaxed);
  }
  return false;
}

void Runtime::RecordClaimStack(ContextUse *use) {
  RuntimeSection section;
  use->active_stack.store(CurrentCallStack(), std::memory_order_relaxed);
}

} // namespace ownsan
