//===- thread_state.cpp - Per-thread counters and numbers -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Thread numbers (T0, T1... in reports) and the registry of the threads
// that make checked calls: their counters for the exit statistics, and
// their call contexts, which context claims read (contexts.cpp). A thread
// leaves it when it exits.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace ownsan {

namespace {
// Each thread that makes a checked call lists itself here: its call
// counters (a thread that exits folds its counts into the totals) and where
// its call contexts are. (Threads of the parent are gone after a fork:
// their entries are dropped in the child, their calls stay in the total.)
struct ThreadEntry {
  const ThreadCallState *counters; ///< its tls_call_state
  uint32_t number_plus_one;
  const CallContext *call; ///< its tls_call
  const void *saved;       ///< its saved outer calls (call_scopes.cpp)
};
Mutex g_thread_calls_mu(absl::kConstInit);
std::vector<ThreadEntry> *g_thread_calls ABSL_GUARDED_BY(g_thread_calls_mu);
CallCounts g_exited_thread_counts ABSL_GUARDED_BY(g_thread_calls_mu);

void AddCounts(CallCounts &sum, const ThreadCallState &c) {
  sum.calls += c.calls.load(std::memory_order_relaxed);
  sum.unseen_handle_args +=
      c.unseen_handle_args.load(std::memory_order_relaxed);
}

void ForgetThreadCalls(void *counters) {
  // (Runs on the exiting thread: the counters are its own.)
  auto *c = static_cast<ThreadCallState *>(counters);
  RuntimeSection section;
  MutexLock lock(&g_thread_calls_mu);
  auto &v = *g_thread_calls;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [c](const ThreadEntry &e) { return e.counters == c; }),
          v.end());
  AddCounts(g_exited_thread_counts, *c);
  // Case: a destructor that runs after this one on the thread (another
  // thread-specific key's, a thread_local's) makes more checked calls: the
  // first of them counts as the thread's first again and lists the counter
  // anew, and pthread runs this destructor once more.
  c->calls.store(0, std::memory_order_relaxed);
  c->unseen_handle_args.store(0, std::memory_order_relaxed);
}

} // namespace

CallCounts TotalCallCounts() {
  MutexLock lock(&g_thread_calls_mu);
  CallCounts n = g_exited_thread_counts;
  if (g_thread_calls)
    for (const ThreadEntry &e : *g_thread_calls)
      AddCounts(n, *e.counters);
  return n;
}

bool FindOpenCallOn(uint32_t owner, const ObjectRecord *ctx, OpenCall *found) {
  RuntimeSection section;
  MutexLock lock(&g_thread_calls_mu);
  if (g_thread_calls)
    for (const ThreadEntry &e : *g_thread_calls)
      if (e.number_plus_one == owner)
        return OpenCallOnIn(e.call, e.saved, ctx, found);
  return false; // (the thread has exited)
}

// In a fork child: the other threads' counters stop (their threads are not
// here); their counts so far stay in the total.
void ForkThreadCalls() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (!g_thread_calls)
    return;
  const ThreadCallState *mine = &tls_call_state;
  std::vector<ThreadEntry> kept;
  for (const ThreadEntry &e : *g_thread_calls)
    if (e.counters != mine)
      AddCounts(g_exited_thread_counts, *e.counters);
    else
      kept.push_back(e);
  g_thread_calls->swap(kept);
}

void NoteFirstCall() {
  RuntimeSection section;
  ThreadCallState *c = &tls_call_state;
  uint32_t number_plus_one = CurrentThreadNumberPlusOne();
  {
    MutexLock lock(&g_thread_calls_mu);
    if (!g_thread_calls)
      g_thread_calls = new std::vector<ThreadEntry>;
    // Case: a signal handler's first call came between this thread's first
    // call's count and its listing: both saw the count 1.
    for (const ThreadEntry &e : *g_thread_calls)
      if (e.counters == c)
        return;
    g_thread_calls->push_back(
        {c, number_plus_one, &tls_call, ThisThreadSavedCalls()});
  }
  ReleaseAtThreadExit<ForgetThreadCalls>(c);
}

__thread uint32_t tls_thread_number_plus_one OWNSAN_TLS_MODEL;

uint32_t NumberThisThread() {
  static std::atomic<uint32_t> next{1};
  uint32_t n = (static_cast<uint32_t>(syscall(SYS_gettid)) ==
                        static_cast<uint32_t>(getpid())
                    ? 0u
                    : next.fetch_add(1)) +
               1;
  // (A signal handler's call may have numbered the thread meanwhile.)
  if (tls_thread_number_plus_one == 0)
    tls_thread_number_plus_one = n;
  return tls_thread_number_plus_one - 1;
}

void LockThreadCallsForFork(bool lock) { LockForFork(g_thread_calls_mu, lock); }
void ResetThreadCallsLockInChild() { ResetInForkChild(g_thread_calls_mu); }

} // namespace ownsan
