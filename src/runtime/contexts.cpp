//===- contexts.cpp - Context claims: one thread at a time ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each checked call claims the context of its handles (ContextUse in
// src/core/object_record.h): a second thread's claim while the first
// holds it is a context-race; handles of two contexts in one call are
// cross-context.
//
// CLAIM STATES (per context, lock-free)
//
//   free      no call of any thread is using it (active_thread == 0)
//   held(T)   a call of thread T is: CheckContext() claims it for the
//             outermost call; the CallScope destructor releases it
//   handed    T took it over from another thread (last_thread != T): the
//   off       next kStackClaimsAfterHandoff claims record their stacks
//             (stack_claims_left), so a race report can show both threads
//
//   held(T) + a claim by U != T  ->  context-race (ReportContextRace), the
//   claim is not taken; two contexts in one call -> cross-context.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "fn_ids.h"

namespace ownsan {

namespace {
// See "Context concurrency" below.
constexpr uint32_t kStackClaimsAfterHandoff = 256;
} // namespace

// Context concurrency: the first handle of a call that belongs to a context
// claims the context for the thread until the call returns (active_thread).
// Another thread finding it claimed is inside a call on the same context at
// the same time: a race. Claims are lock-free. Each time a thread takes
// over a context another thread used last (a hand-off), the next
// kStackClaimsAfterHandoff claims record their stacks, so a race report
// can show both threads; threads that take turns keep recording. A context
// one thread has used alone since then records only each claim's calling
// frame (a stack capture is most of such a call's cost), as a context that
// never changed threads does.
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
  call.context = ctx;
  call.context_arg = arg;
  uint32_t me = CurrentThreadNumberPlusOne();
  uint32_t active = use->active_thread.load(std::memory_order_acquire);
  if (active == me)
    return false; // an outer call on this thread (a callback) has it
  if (active != 0)
    // Case: another thread is inside an LLVM-C call on this context now.
    return ReportContextRace(fn, arg, r, use, active);
  // Case: the context is free (or already ours): claim it for this call.
  uint32_t last = use->last_thread.load(std::memory_order_relaxed);
  if (last != me) {
    // Sequential hand-off to another thread is fine; remember it, so the
    // next claims record their stacks.
    if (last != 0)
      use->stack_claims_left.store(kStackClaimsAfterHandoff + 1,
                                   std::memory_order_relaxed);
    use->last_thread.store(me, std::memory_order_relaxed);
  }
  // Before the claim is visible: a thread that finds the claim reads them.
  use->active_fn.store(fn, std::memory_order_relaxed);
  use->active_pc.store(call.caller_pc, std::memory_order_relaxed);
  use->active_thread.store(me, std::memory_order_release);
  call.entered = &use->active_thread;
  if (uint32_t left = use->stack_claims_left.load(std::memory_order_relaxed)) {
    use->stack_claims_left.store(left - 1, std::memory_order_relaxed);
    if (left > 1)
      RecordClaimStack(use);
    else
      // Case: the last recorded claim's stack is not this claim's; from
      // now on a report shows the calling frame (active_pc) instead.
      use->active_stack.store(0, std::memory_order_relaxed);
  }
  return false;
}

void Runtime::RecordClaimStack(ContextUse *use) {
  RuntimeSection section;
  use->active_stack.store(CurrentCallStack(), std::memory_order_relaxed);
}

} // namespace ownsan
