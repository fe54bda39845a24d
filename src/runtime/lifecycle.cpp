//===- lifecycle.cpp - Exit and fork --------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The exit statistics (verbosity=1) and what the runtime does around
// fork(): every lock taken before, fresh ones in the child.
//
//===----------------------------------------------------------------------===//

#include "report/output_line.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "report/python_frames.h"
#include "runtime/crash_handler.h"

#include "absl/strings/str_cat.h"

#include <unistd.h>

#include <cstdlib>

namespace ownsan {

void Runtime::PrintExitStatistics() {
  size_t peak, now, count, taken, limit;
  {
    MutexLock lock(&quarantine_mu_);
    peak = quarantine_.peak_bytes();
    now = quarantine_.bytes();
    count = quarantine_.count();
    taken = quarantine_.total_taken();
    limit = quarantine_.limit();
  }
  std::string line = OwnsanLine(
      LineLevel::kInfo,
      absl::StrCat("quarantine: peak ", peak, " bytes (limit ", limit, "), ",
                   now, " bytes in ", count, " chunks at exit, ", taken,
                   " chunks taken; ", LiveObjects(), " live objects, ",
                   FreedObjects(), " freed objects matched; ", depot_.size(),
                   " stacks"));
  size_t records, slots, history, history_peak, evicted;
  {
    MutexLock lock(&mu_);
    records = graph_.RecordCount();
    slots = graph_.SlotCount();
    history = history_bytes_;
    history_peak = history_peak_bytes_;
    evicted = evicted_;
  }
  absl::StrAppend(
      &line,
      OwnsanLine(LineLevel::kInfo,
                 absl::StrCat("history: peak ", history_peak, " bytes (limit ",
                              history_limit_, "), ", history,
                              " bytes at exit, ", evicted, " records evicted; ",
                              slots, " record slots, ", FreeEventsInUse(),
                              " free events")));
  // What the run cost is made of (docs/performance.md): checked calls, and
  // objects registered (each also freed, if it died).
  CallCounts counts = TotalCallCounts();
  absl::StrAppend(
      &line, OwnsanLine(LineLevel::kInfo,
                        absl::StrCat("work: ", counts.calls, " checked calls, ",
                                     records, " objects registered, ",
                                     counts.unseen_handle_args,
                                     " handle arguments never seen")));
  (void)!write(2, line.data(), line.size());
}

// fork(): every runtime lock is taken before the fork, in the order the
// runtime nests them (report, quarantine, graph, then the leaf locks), so
// no lock is held by a thread that will not exist in the child. The parent
// releases them; the child gets fresh, unlocked mutexes (other threads may
// have been queued on the old ones).
namespace {
// The fork handlers are runtime work: allocations they make must not reach
// the allocation hook, which would wait for the locks they hold.
bool g_fork_saved_in_runtime = false;
} // namespace

void Runtime::PrepareFork() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  g_fork_saved_in_runtime = CurrentThreadCallState().in_runtime;
  CurrentThreadCallState().in_runtime = true;
  report_mu_.Lock();
  quarantine_mu_.Lock();
  mu_.Lock();
  LockCodeRangesForFork(true);
  LockThreadCallsForFork(true);
  depot_.LockForFork();
  LockStackCachesForFork(true);
  LockFreeEventsForFork(true);
  LockPythonFramesForFork(true);
  LockForFork(blind_mu_, true);
  LockForFork(native_reuse_mu_, true);
}

void Runtime::AfterForkInParent() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockForFork(native_reuse_mu_, false);
  LockForFork(blind_mu_, false);
  LockPythonFramesForFork(false);
  LockFreeEventsForFork(false);
  LockStackCachesForFork(false);
  depot_.UnlockAfterFork(false);
  LockThreadCallsForFork(false);
  LockCodeRangesForFork(false);
  mu_.Unlock();
  quarantine_mu_.Unlock();
  report_mu_.Unlock();
  CurrentThreadCallState().in_runtime = g_fork_saved_in_runtime;
}

void Runtime::AfterForkInChild() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Threads of the parent that were inside calls do not exist here.
  graph_.ForEachLive([](ObjectRecord *r) {
    if (ContextUse *use =
            r->kind == ObjectKind::Context ? r->context_use : nullptr) {
      use->owner.store(0);
    }
  });
  ResetInForkChild(native_reuse_mu_);
  ResetInForkChild(blind_mu_);
  ResetPythonFramesLockInChild();
  ResetFreeEventsLockInChild();
  ResetStackCachesLockInChild();
  depot_.UnlockAfterFork(true);
  ResetCodeRangesLockInChild();
  ResetThreadCallsLockInChild();
  ForkThreadCalls();
  new (&mu_) Mutex;
  new (&quarantine_mu_) Mutex;
  new (&report_mu_) Mutex;
  // What the parent made before the fork is the parent's to dispose (and to
  // report): a child that exits reports only the objects it made itself.
  {
    // (Alone in the process, but -Wthread-safety checks the lambda below on
    // its own: it is called under this lock.)
    MutexLock lock(&mu_);
    inherited_.clear();
    if (flags_.report_leaks)
      graph_.ForEachLive([this](ObjectRecord *r) {
        mu_.AssertHeld();
        if (CallerMustDispose(r))
          inherited_.insert(r);
      });
  }
  // Case: forked inside a signal handler (PostgreSQL's postmaster starts
  // its workers so): the child is a process of its own, which may never
  // leave the handler. Its heap is whole and the runtime's locks fresh
  // (fork took them all), so what kept a handler's calls unchecked is gone
  // here: they are checked. (The trampoline restores the depth it saw
  // should the handler return in the child.)
  CurrentThreadCallState().signal_depth = 0;
  g_signal_handler_calls.store(0, std::memory_order_relaxed);
  // The child is a new process: its own problems, its own log file.
  problems_.clear();
  problem_index_.clear();
  handled_by_callback_ = 0;
  printed_ = 0;
  if (log_fd_ >= 0)
    close(log_fd_);
  log_fd_ = -1;
  SetCrashLogFd(-1);
  log_tried_ = false;
  CurrentThreadCallState().in_runtime = g_fork_saved_in_runtime;
}

} // namespace ownsan
