//===- stack_depot.cpp - Deduplicated storage of stack traces ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/stack_depot.h"

#include "core/tls_model.h"

#include "absl/debugging/stacktrace.h"

#include <execinfo.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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

extern "C" void *__libc_stack_end; // (glibc: the stack pointer at start)

namespace {

// The calling thread's stack, [lo, hi), asked for once per thread (for the
// main thread glibc reads /proc/self/maps); lo == hi: not known.
struct ThreadStack {
  bool asked;
  uintptr_t lo, hi;
};
__thread ThreadStack tls_thread_stack OWNSAN_TLS_MODEL;

const ThreadStack &CurrentThreadStack() {
  ThreadStack &s = tls_thread_stack;
  if (__builtin_expect(!s.asked, 0)) {
    s.asked = true;
    if (syscall(SYS_gettid) == getpid()) {
      // The main thread: glibc would read /proc/self/maps for its bounds
      // (18 system calls and 300,000 instructions at the first capture of
      // every process). Its frames lie below where the process started
      // (__libc_stack_end), within the stack's limit.
      rlimit limit;
      uintptr_t size = uintptr_t{8} << 20;
      if (getrlimit(RLIMIT_STACK, &limit) == 0 &&
          limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < (1ull << 32))
        size = limit.rlim_cur;
      s.hi = reinterpret_cast<uintptr_t>(__libc_stack_end);
      s.lo = s.hi > size ? s.hi - size : 0;
      return s;
    }
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void *addr;
      size_t size;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        s.lo = reinterpret_cast<uintptr_t>(addr);
        s.hi = s.lo + size;
      }
      pthread_attr_destroy(&attr);
    }
  }
  return s;
}

// Walks the frame pointers from this function's frame; -1 if its frame is
// not on the thread's own stack (a signal handler's alternate stack, a
// coroutine's), where the caller falls back to Abseil's unwinder. Only
// memory between this frame and the top of the stack is read, each frame
// above the one before: all of it is mapped, so a frame pointer chain that
// code built without frame pointers broke ends the walk, never faults.
// `from`: the frame to start at, an outer one of this function's (or its
// own when null).
__attribute__((noinline)) int WalkFramePointers(uintptr_t *out, int max,
                                                int skip,
                                                const void *from = nullptr) {
  const ThreadStack &stack = CurrentThreadStack();
  constexpr uintptr_t kFrame = 2 * sizeof(uintptr_t); // saved fp, pc
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t fp = from ? reinterpret_cast<uintptr_t>(from) : here;
  if (stack.hi - stack.lo < kFrame || here < stack.lo || fp < here ||
      fp > stack.hi - kFrame || fp & 7)
    return -1;
  int n = 0;
  while (n < max) {
    const uintptr_t *frame = reinterpret_cast<const uintptr_t *>(fp);
    uintptr_t next = frame[0], pc = frame[1];
    if (pc == 0)
      break;
    if (skip > 0)
      --skip;
    else
      out[n++] = pc;
    if (next <= fp || next > stack.hi - kFrame || next & 7)
      break;
    fp = next;
  }
  return n;
}

} // namespace

__attribute__((noinline)) int
CaptureNativeStack(uintptr_t *out, int max, int skip, int depth, bool fast) {
  constexpr int kMax = 256;
  if (depth < max)
    max = depth;
  if (fast) {
    // +1: this function's frame.
    int n = WalkFramePointers(out, max, skip + 1);
    if (n >= 0)
      return n;
  }
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
  for (int i = skip; i < n && kept < max; ++i)
    out[kept++] = reinterpret_cast<uintptr_t>(frames[i]);
  return kept;
}

int CaptureNativeStackFrom(const void *frame, uintptr_t *out, int max,
                           int depth) {
  return WalkFramePointers(out, depth < max ? depth : max, 0, frame);
}

void CaptureNativeStack(StackTrace *out, int skip, int depth, bool fast) {
  uintptr_t pcs[256];
  // +1: this function.
  int n = CaptureNativeStack(pcs, 256, skip + 1, depth, fast);
  for (int i = 0; i < n && static_cast<int>(out->pcs.size()) < depth; ++i)
    out->pcs.push_back(pcs[i]);
}

} // namespace ownsan
