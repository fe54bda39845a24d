//===- stack_depot.h - Deduplicated storage of stack traces -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every create and free event keeps a stack. Most come from a few hundred
// call sites, so traces are stored once and referred to by a 32-bit id
// (as compiler-rt's StackDepot does). A trace is the native return
// addresses plus, when the process hosts CPython, the Python frames of the
// calling thread (ids into a PythonFrameTable).
//
// Thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_STACK_DEPOT_H
#define OWNSAN_REPORT_STACK_DEPOT_H

#include "core/object_record.h"

#include "absl/container/flat_hash_map.h"
#include "core/mutex.h"

#include <cstdint>
#include <deque>
#include <new>
#include <vector>

namespace ownsan {

struct StackTrace {
  std::vector<uintptr_t> pcs;      ///< innermost first
  std::vector<uint32_t> py_frames; ///< innermost first, PythonFrameTable ids
  bool operator==(const StackTrace &o) const {
    return pcs == o.pcs && py_frames == o.py_frames;
  }
  template <typename H> friend H AbslHashValue(H h, const StackTrace &s) {
    return H::combine(std::move(h), s.pcs, s.py_frames);
  }
};

class StackDepot {
public:
  /// Stores `s` (if new) and returns its id; ids start at 1.
  StackId Put(StackTrace s);
  /// The trace for `id`; an empty trace for 0 or an unknown id.
  const StackTrace &Get(StackId id) const;
  size_t size() const;

  /// fork() support: hold the lock across fork; the child gets a fresh one.
  void LockForFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { mu_.Lock(); }
  void UnlockAfterFork(bool child) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (child)
      new (&mu_) Mutex;
    else
      mu_.Unlock();
  }

private:
  mutable Mutex mu_;
  std::deque<StackTrace> stacks_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<StackTrace, StackId> ids_ ABSL_GUARDED_BY(mu_);
};

/// Captures the native stack of the calling thread, skipping `skip` frames
/// of ownsan itself, at most `depth` frames. With `fast` it walks frame
/// pointers (within the thread's stack; elsewhere, as on a signal handler's
/// alternate stack, Abseil's unwinder); otherwise the DWARF unwinder, which
/// also gets through code built without frame pointers (libLLVM).
void CaptureNativeStack(StackTrace *out, int skip, int depth, bool fast);
/// The same into `out[0, max)`, without allocating; returns the count.
int CaptureNativeStack(uintptr_t *out, int max, int skip, int depth, bool fast);
/// The frames from an outer frame of the calling thread's stack on: the
/// return address `frame` saved, then its callers, by frame pointers;
/// -1 if `frame` is not an outer frame on the thread's own stack.
int CaptureNativeStackFrom(const void *frame, uintptr_t *out, int max,
                           int depth);

} // namespace ownsan

#endif // OWNSAN_REPORT_STACK_DEPOT_H
