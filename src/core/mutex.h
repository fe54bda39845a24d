//===- mutex.h - The runtime's lock: absl::Mutex, visible to TSan -*- C++ -*-//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime locks with absl::Mutex. Debian's Abseil is not built with
// ThreadSanitizer, so in a TSan build of ownsan (OWNSAN_SANITIZE=thread) the
// synchronization absl::Mutex provides would be invisible and every access
// it protects would look like a race. This wrapper tells TSan about each
// acquire and release; in other builds it adds nothing.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_MUTEX_H
#define OWNSAN_CORE_MUTEX_H

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include <new>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWNSAN_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define OWNSAN_TSAN 1
#endif

#ifdef OWNSAN_TSAN
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace ownsan {

class ABSL_LOCKABLE Mutex {
public:
  Mutex() = default;
  explicit constexpr Mutex(absl::ConstInitType) : mu_(absl::kConstInit) {}

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    mu_.Lock();
    Acquired();
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    Releasing();
    mu_.Unlock();
  }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() {
    mu_.ReaderLock();
    Acquired();
  }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() {
    Releasing();
    mu_.ReaderUnlock();
  }
  /// Tells -Wthread-safety that the calling thread holds the lock
  /// exclusively where the analysis cannot see it: in a lambda that a
  /// visitor (OwnershipGraph::ForEachLive, ...) calls while its caller holds
  /// the lock. Checked at run time too (absl::Mutex::AssertHeld: one load).
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() { mu_.AssertHeld(); }

private:
#ifdef OWNSAN_TSAN
  void Acquired() { __tsan_acquire(this); }
  void Releasing() { __tsan_release(this); }
#else
  void Acquired() {}
  void Releasing() {}
#endif
  absl::Mutex mu_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
public:
  explicit MutexLock(Mutex *mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock &) = delete;
  MutexLock &operator=(const MutexLock &) = delete;

private:
  Mutex *mu_;
};

class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
public:
  explicit ReaderMutexLock(Mutex *mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock &) = delete;
  ReaderMutexLock &operator=(const ReaderMutexLock &) = delete;

private:
  Mutex *mu_;
};

/// fork(): a file-level lock is taken before the fork (`lock`) and released
/// after it in the parent; the child gets a fresh one (ResetInForkChild),
/// since threads queued on the old one do not exist there.
inline void LockForFork(Mutex &mu, bool lock) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (lock)
    mu.Lock();
  else
    mu.Unlock();
}
inline void ResetInForkChild(Mutex &mu) { new (&mu) Mutex; }

} // namespace ownsan

#endif // OWNSAN_CORE_MUTEX_H
