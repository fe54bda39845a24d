//===- call_scopes.cpp - Nested calls, jumps out of calls -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The per-thread stack of open wrapped calls (CallScope): callbacks that
// call back into LLVM-C, longjmp/siglongjmp out of a call, the call name
// the crash handler prints.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "runtime/crash_handler.h"

#include <signal.h>

namespace ownsan {

// Read by the crash handler in a signal handler: thread-locals only.
const char *CurrentWrappedCallName(bool *in_runtime) {
  const ThreadCallState &state = CurrentThreadCallState();
  *in_runtime = state.in_runtime;
  if (state.depth == 0)
    return nullptr;
  FnId fn = CurrentCall().fn;
  return fn < kFnCount ? WrappedFnName(fn) : "an LLVM-C call";
}

unsigned CurrentNullHandleArgs() {
  return CurrentThreadCallState().depth ? CurrentCall().null_args : 0;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace {
// Call contexts of outer calls while a nested call (from a callback) runs.
constexpr int kMaxNesting = 8;
struct SavedCalls {
  CallContext saved[kMaxNesting];
  int depth = 0;
};
SavedCalls &CurrentSavedCalls() {
  static thread_local SavedCalls saved OWNSAN_TLS_MODEL;
  return saved;
}
} // namespace

const void *ThisThreadSavedCalls() { return &CurrentSavedCalls(); }

// Reads another thread's call contexts while it runs: each field once, as
// a relaxed atomic load, and nothing it points to. (ThreadSanitizer is
// told not to look: the owner writes them as plain thread-local data, and
// a claim seen a moment late is a race missed, as before.)
__attribute__((no_sanitize("thread"))) bool
OpenCallOnIn(const CallContext *call, const void *saved,
             const ObjectRecord *ctx, OpenCall *found) {
  auto open_on = [ctx, found](const CallContext &c) {
    if (__atomic_load_n(&c.context, __ATOMIC_ACQUIRE) != ctx)
      return false;
    found->fn = __atomic_load_n(&c.fn, __ATOMIC_RELAXED);
    found->caller_pc = __atomic_load_n(&c.caller_pc, __ATOMIC_RELAXED);
    return true;
  };
  if (open_on(*call))
    return true;
  const auto *s = static_cast<const SavedCalls *>(saved);
  int depth = __atomic_load_n(&s->depth, __ATOMIC_RELAXED);
  for (int i = 0; i < depth && i < kMaxNesting; ++i)
    if (open_on(s->saved[i]))
      return true;
  return false;
}

// Jumps out of wrapped calls (longjmp from a diagnostic or fatal-error
// handler, siglongjmp from a SIGFPE handler in JIT code) skip the scopes'
// destructors: their call contexts stay current, their context claims held.
// A scope is known open or left by its frame: an open scope encloses every
// later one, so on one stack (which grows down) it lies above it.
// longjmp & co. close the scopes between the jump and its target first
// (BeforeJump), a C++ catch those below it (BeforeCatch: the wrappers have
// no unwinding code); jumps no libc function sees are found when the next
// call starts below a left scope (EnterNested) or an enclosing call
// returns.
namespace {
// Farther apart than this, two frames are not on one stack.
constexpr uintptr_t kMaxStackSpan = uintptr_t(1) << 30;

// Was the scope at `frame` left, seen from a scope being entered at `here`?
bool ScopeLeft(const void *frame, const void *here) {
  uintptr_t f = reinterpret_cast<uintptr_t>(frame),
            h = reinterpret_cast<uintptr_t>(here);
  if (f >= h || h - f > kMaxStackSpan)
    return false;
  // Case: a signal handler running on the alternate signal stack, which may
  // lie above the thread's stack: calls it interrupted are open.
  stack_t alt;
  if (sigaltstack(nullptr, &alt) == 0 && (alt.ss_flags & SS_ONSTACK)) {
    uintptr_t lo = reinterpret_cast<uintptr_t>(alt.ss_sp);
    return f >= lo && f - lo < alt.ss_size;
  }
  return true;
}

// Closes the current call context as its scope's destructor would have:
// records its pending deaths, releases its context claim and makes the
// outer call's context current.
void CloseCurrentScope() {
  if (tls_call_state.pending_deaths)
    Runtime::Get().FlushDeaths();
  CallContext &call = tls_call;
  call.fn = kNoFn;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth > 0) {
    call = s.saved[s.depth - 1];
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --s.depth;
  } else {
    call = CallContext{};
  }
}

// After CloseCurrentScope(): the thread's nesting depth, from the scope
// that is current now (unchecked scopes inside it were left too).
void RecountDepth() {
  const CallContext &call = tls_call;
  if (call.fn != kNoFn)
    tls_call_state.depth = call.level + 1;
  else if (CurrentSavedCalls().depth == 0)
    tls_call_state.depth = 0;
}
// Closes the current call and those around it while they lie below
// `here` (left by a jump or an exception), then recounts the depth; false
// if none was.
bool CloseScopesLeftBelow(const void *here) {
  const CallContext &call = tls_call;
  if (call.fn == kNoFn || !ScopeLeft(call.frame, here))
    return false;
  do
    CloseCurrentScope();
  while (call.fn != kNoFn && ScopeLeft(call.frame, here));
  RecountDepth();
  return true;
}
} // namespace

CallScope::Entered CallScope::EnterNested(FnId fn, const void *frame,
                                          const void *caller_pc) {
  ThreadCallState &state = tls_call_state;
  CallContext &call = tls_call;
  unsigned level = state.depth - 1;
  // Case: the current call was left by a jump no libc function saw
  // (__builtin_longjmp, a language runtime's own unwinding).
  if (CloseScopesLeftBelow(frame)) {
    if (state.depth == 0) {
      // No call is open after all: this one is the outermost.
      state.depth = 1;
      Publish(fn, frame, 0, caller_pc);
      return {0, true};
    }
    level = state.depth;
    state.depth = level + 1;
  }
  // The outer call's deaths are recorded under its own event, before the
  // callback's call looks at any handle; their blocks stay held until the
  // outer call releases them (this call may come from a signal handler that
  // interrupted free()).
  if (state.pending_deaths)
    Runtime::Get().FlushDeaths(/*release=*/false);
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth == kMaxNesting)
    return {level, false}; // too deep: forwarded unchecked
  // (Saved before it counts, so that a signal handler's call in between
  // saves into the next slot, not over this one.)
  s.saved[s.depth] = call;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ++s.depth;
  call.fn = kNoFn;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  call.context = nullptr;
  call.context_arg = 0;
  call.cause_text = nullptr;
  call.stack = 0;
  call.event = nullptr;
  call.null_args = 0;
  Publish(fn, frame, level, caller_pc);
  return {level, true};
}

void CallScope::LeaveNested() {
  SavedCalls &s = CurrentSavedCalls();
  if (s.depth > 0) {
    // (Copied before the slot is freed: see EnterNested.)
    tls_call = s.saved[s.depth - 1];
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --s.depth;
  }
}

bool CallScope::CloseScopesInside(const void *frame) {
  const SavedCalls &s = CurrentSavedCalls();
  const CallContext &call = tls_call;
  bool open = call.fn != kNoFn && call.frame == frame;
  for (int i = 0; i < s.depth && !open; ++i)
    open = s.saved[i].fn != kNoFn && s.saved[i].frame == frame;
  if (!open)
    return false; // (closed as left: a jump's target was misjudged)
  while (call.fn == kNoFn || call.frame != frame)
    CloseCurrentScope();
  return true;
}

void CallScope::BeforeCatch(uintptr_t catcher) {
  ThreadCallState &state = tls_call_state;
  // Case: no call open, or the runtime's own work catches (its locks may be
  // held; nothing it does throws through a wrapped call).
  if (state.depth == 0 || state.in_runtime)
    return;
  // Every open call encloses the catching frame, so lies above it: a scope
  // below it was left by the exception.
  CloseScopesLeftBelow(reinterpret_cast<const void *>(catcher));
}

void CallScope::BeforeJump(uintptr_t target, uintptr_t here) {
  ThreadCallState &state = tls_call_state;
  // Case: the jump leaves the runtime's own work (a signal handler that
  // jumps out of anything): its locks may be held; nothing can be undone.
  if (state.depth == 0 || state.in_runtime)
    return;
  // Only a jump up this stack closes scopes here; the others (off a signal
  // stack, between coroutines) are left to EnterNested.
  if (target <= here || target - here > kMaxStackSpan)
    return;
  const CallContext &call = tls_call;
  bool closed = false;
  while (call.fn != kNoFn) {
    uintptr_t f = reinterpret_cast<uintptr_t>(call.frame);
    if (f < here || f >= target)
      break; // the jump's target is inside this call
    CloseCurrentScope();
    closed = true;
  }
  if (closed)
    RecountDepth();
}

} // namespace ownsan
