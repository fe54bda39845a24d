//===- runtime_internal.h - Shared by the runtime's files ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the files of src/runtime share besides the Runtime class itself: the
// runtime section that marks the runtime's own work on a thread, the
// running call's context, and small helpers over the generated tables. Not
// for interpose/ or the generated wrappers (they see interpose/wrapper_api.h
// and runtime/runtime.h).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_RUNTIME_INTERNAL_H
#define OWNSAN_RUNTIME_RUNTIME_INTERNAL_H

#include "runtime/profile.h"
#include "runtime/runtime.h"

#include "interpose/allocation_hooks.h"
#include "interpose/wrapper_api.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace ownsan {

/// The runtime exists and its constructor has finished (runtime.cpp): the
/// allocation hooks may call into it.
extern std::atomic<bool> g_runtime_ready;

// Marks the runtime's own work on this thread: nested wrapped calls are not
// checked and the allocation hook ignores the runtime's own allocations.
// A signal handler's wrapped call that interrupts the work is forwarded
// unchecked too, so the per-thread state the runtime changes (batches,
// caches, call contexts) and the locks it holds are never re-entered: every
// change to them happens inside a section (the fences keep the compiler from
// moving it out).
class RuntimeSection {
public:
  RuntimeSection() : state_(CurrentThreadCallState()), was_(state_.in_runtime) {
    state_.in_runtime = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~RuntimeSection() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    state_.in_runtime = was_;
  }

private:
  ThreadCallState &state_;
  bool was_;
};

/// The running wrapped call of this thread.
inline CallContext &CurrentCall() { return tls_call; }

inline const char *FnName(FnIndex fn) {
  return fn < kFnCount ? WrappedFnName(fn) : "<none>";
}

/// Does argument `arg` of `fn` name an object the call frees? (effects.cpp)
bool FreesArg(FnId fn, unsigned arg);
/// Does argument `arg` of `fn` take no part in the context checks? Every
/// one of a call an engine serializes (it claims no context), else those
/// LLVM only reads as data (spec data_only: an object of another context
/// there is not mixed in). (Generated with the effects, not tabled at
/// start-up: a table for every function was heap pages each process
/// faulted in.)
inline bool ContextExempt(FnId fn, unsigned arg) {
  unsigned exempt = kFnInfo[fn].context_exempt;
  return (exempt & kAllContextExempt) || (arg < 7 && (exempt >> arg & 1));
}

/// Calls Release(value) when the calling thread exits (one pthread key for
/// each Release).
template <void (*Release)(void *)> void ReleaseAtThreadExit(const void *value) {
  static pthread_key_t key;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] { pthread_key_create(&key, Release); });
  pthread_setspecific(key, value);
}

// --- Small members of Runtime on the per-object paths, inline here so
// that every file's callers inline them. ---
inline StackId Runtime::CurrentCallStack() {
  CallContext &call = CurrentCall();
  if (call.fn == kNoFn)
    return CaptureStack(false);
  // Walked up from the wrapper's frame: the runtime's own frames below it
  // are neither walked nor searched for the caller.
  if (call.stack == 0)
    call.stack = CaptureStack(false, /*dwarf=*/false, call.frame);
  return call.stack;
}

inline std::string Runtime::ValueName(const void *h, ObjectKind kind) {
  return kProfile.value_name(h, kind);
}

inline std::string Runtime::ModuleName(const void *h) {
  return kProfile.module_name(h);
}

// --- stacks.cpp ---
/// Records the text range of the module holding `addr_in_module`: frames
/// there are ownsan's (or, with `llvm`, libLLVM's), not the program's.
void AddCodeRangesOf(const void *addr_in_module, bool llvm = false);
/// The ranges of ownsan's own code: its shared object under preload, its
/// ownsan_text section when linked into the program (link mode).
void AddOwnCodeRanges();
/// Link mode: the range of the program's code that is the static LLVM
/// (stacks leave LLVM's frames out as they do libLLVM's under preload).
void AddLinkedLLVMCodeRange();
/// fork(): the file's locks are taken around it (in the order lifecycle.cpp
/// takes every runtime lock); the child gets fresh ones.
void LockCodeRangesForFork(bool lock);
void ResetCodeRangesLockInChild();
void LockStackCachesForFork(bool lock);
void ResetStackCachesLockInChild();
/// A new free event of this thread (see tracker_deaths.cpp).
FreeEvent *NewThreadFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                              const char *detail);

// --- thread_state.cpp ---
/// Checked calls made so far by every thread, and their handle arguments
/// that named no object ownsan ever saw.
struct CallCounts {
  uint64_t calls = 0;
  uint64_t unseen_handle_args = 0;
};
CallCounts TotalCallCounts();
/// In a fork child: the other threads' counters stop.
void ForkThreadCalls();
/// A call of another thread that holds a context now (contexts.cpp).
struct OpenCall {
  FnId fn;
  const void *caller_pc;
};
/// Is thread `owner` (number + 1) inside a call on `ctx` now, its own or
/// an outer one a callback interrupted? (The thread registry's lock keeps
/// it from exiting while its calls are read.)
bool FindOpenCallOn(uint32_t owner, const ObjectRecord *ctx, OpenCall *found);

// --- call_scopes.cpp ---
/// This thread's saved outer calls (for the thread registry).
const void *ThisThreadSavedCalls();
/// The open call on `ctx` among `call` and the outer calls `saved` of
/// another thread, read racily (best effort, as any race detection here).
bool OpenCallOnIn(const CallContext *call, const void *saved,
                  const ObjectRecord *ctx, OpenCall *found);
void LockThreadCallsForFork(bool lock);
void ResetThreadCallsLockInChild();

// --- reporter.cpp ---
/// A live object the program was handed and has to dispose itself.
bool CallerMustDispose(const ObjectRecord *r);

} // namespace ownsan

#endif // OWNSAN_RUNTIME_RUNTIME_INTERNAL_H
