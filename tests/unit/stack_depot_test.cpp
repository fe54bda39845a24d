//===- stack_depot_test.cpp ----------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/stack_depot.h"

#include "gtest/gtest.h"

#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <vector>

namespace ownsan {
namespace {

TEST(StackDepot, DeduplicatesEqualTraces) {
  StackDepot d;
  StackTrace a{{1, 2, 3}, {}};
  StackTrace b{{1, 2, 4}, {}};
  StackId ia = d.Put(a), ib = d.Put(b), ia2 = d.Put(a);
  EXPECT_NE(ia, 0u);
  EXPECT_EQ(ia, ia2);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(d.Get(ib).pcs, b.pcs);
  EXPECT_TRUE(d.Get(0).pcs.empty());
  EXPECT_TRUE(d.Get(999).pcs.empty());
}

TEST(StackDepot, PythonFramesAreTheIdentityToo) {
  StackDepot d;
  EXPECT_NE(d.Put({{1}, {7}}), d.Put({{1}, {8}}));
}

TEST(StackDepot, ManyEventsFromFewSitesStayFew) {
  StackDepot d;
  for (int i = 0; i < 100000; ++i)
    d.Put({{static_cast<uintptr_t>(i % 300), 42}, {}});
  EXPECT_EQ(d.size(), 300u);
}

__attribute__((noinline)) void CaptureHere(StackTrace *st) {
  CaptureNativeStack(st, 0, 8, /*fast=*/true);
}

TEST(StackDepot, CapturesTheCaller) {
  StackTrace fast, slow;
  CaptureHere(&fast);
  ASSERT_FALSE(fast.pcs.empty());
  CaptureNativeStack(&slow, 0, 8, /*fast=*/false);
  EXPECT_FALSE(slow.pcs.empty());
  EXPECT_LE(fast.pcs.size(), 8u);
}

// The frame-pointer walk and the DWARF unwinder agree on the callers: the
// walk skips none and invents none. (Each capture is its own call site, and
// the two may start a frame or two apart: the DWARF unwinder's entry point
// can be a sanitizer's interceptor. They are aligned on the first caller
// both have, and must agree from there.)
// (Fixed arrays: one of the captures runs in a signal handler, where
// nothing may allocate.)
struct TwoStacks {
  uintptr_t fast[16], slow[16];
  int n_fast = 0, n_slow = 0;
};
__attribute__((noinline)) void CaptureBoth(TwoStacks *out) {
  out->n_fast = CaptureNativeStack(out->fast, 16, 0, 16, /*fast=*/true);
  out->n_slow = CaptureNativeStack(out->slow, 16, 0, 16, /*fast=*/false);
  asm volatile("" ::: "memory"); // (not a tail call)
}
__attribute__((noinline)) void Nest(TwoStacks *out, int depth) {
  if (depth == 0)
    CaptureBoth(out);
  else
    Nest(out, depth - 1);
  asm volatile("" ::: "memory");
}
// Whether the two stacks agree on `agreeing` callers from the first caller
// both have (found within the first frames of each).
testing::AssertionResult SameCallers(const TwoStacks &s, size_t agreeing) {
  for (int j = 0; j < 3 && j < s.n_fast; ++j)
    for (int k = 0; k < 4 && k < s.n_slow; ++k) {
      if (s.fast[j] != s.slow[k])
        continue;
      if (size_t(s.n_fast - j) < agreeing || size_t(s.n_slow - k) < agreeing)
        return testing::AssertionFailure()
               << "the stacks agree on fewer than " << agreeing << " frames";
      for (size_t m = 0; m < agreeing; ++m)
        if (s.fast[j + m] != s.slow[k + m])
          return testing::AssertionFailure() << "frame " << m << " differs";
      return testing::AssertionSuccess();
    }
  return testing::AssertionFailure()
         << "the walk does not reach the capture's callers";
}

TEST(StackDepot, FramePointerWalkSeesEveryCaller) {
  TwoStacks s;
  Nest(&s, 5);
  EXPECT_TRUE(SameCallers(s, 7)); // 6 x Nest, this test
}

// The walk from an outer frame (a wrapper's, while LLVM runs deeper in
// the call) gives that frame's callers, the same as a walk from here after
// the frames in between: the first pc is the outer frame's return address.
struct FromOuter {
  uintptr_t here[16], outer[16];
  int n_here = 0, n_outer = 0;
};
__attribute__((noinline)) void CaptureFrom(FromOuter *out,
                                           const void *outer_frame) {
  out->n_here = CaptureNativeStack(out->here, 16, 0, 16, /*fast=*/true);
  out->n_outer = CaptureNativeStackFrom(outer_frame, out->outer, 16, 16);
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void NestFrom(FromOuter *out, int depth,
                                        const void *outer_frame) {
  if (depth == 0)
    CaptureFrom(out, outer_frame);
  else
    NestFrom(out, depth - 1, outer_frame);
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void Outer(FromOuter *out) {
  NestFrom(out, 3, __builtin_frame_address(0));
  asm volatile("" ::: "memory");
}

TEST(StackDepot, WalkFromAnOuterFrameGivesItsCallers) {
  FromOuter s;
  Outer(&s);
  // here: CaptureFrom, 4 x NestFrom, Outer, this test and on; from
  // Outer's frame: Outer's return address (into this test) and on.
  ASSERT_GE(s.n_here, 8);
  ASSERT_GE(s.n_outer, 2);
  EXPECT_EQ(s.n_outer, s.n_here - 6);
  for (int i = 0; i < s.n_outer && 6 + i < s.n_here; ++i)
    EXPECT_EQ(s.outer[i], s.here[6 + i]) << "frame " << i;
}

// A frame that is not an outer one of the thread's stack is not walked.
TEST(StackDepot, WalkFromANonFrameIsRefused) {
  uintptr_t pcs[8];
  std::vector<uintptr_t> heap(2);
  // (4 KiB below this frame: deeper than the walk's own.)
  EXPECT_EQ(
      CaptureNativeStackFrom(
          reinterpret_cast<const char *>(__builtin_frame_address(0)) - 4096,
          pcs, 8, 8),
      -1);
  EXPECT_EQ(CaptureNativeStackFrom(heap.data(), pcs, 8, 8), -1);
  EXPECT_EQ(CaptureNativeStackFrom(
                reinterpret_cast<const char *>(__builtin_frame_address(0)) + 4,
                pcs, 8, 8),
            -1); // (misaligned)
}

// A thread with the smallest stack: the walk stays within it.
TEST(StackDepot, FramePointerWalkOnASmallThreadStack) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  TwoStacks s;
  pthread_t t;
  ASSERT_EQ(pthread_create(
                &t, &attr,
                [](void *p) -> void * {
                  Nest(static_cast<TwoStacks *>(p), 3);
                  return nullptr;
                },
                &s),
            0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_TRUE(SameCallers(s, 4)); // 4 x Nest
}

// On a signal handler's alternate stack (outside the thread's stack) the
// walk is not trusted: Abseil's unwinder takes over, and the capture still
// names the handler's callers.
TwoStacks *g_on_signal_stack;
TEST(StackDepot, CaptureOnAnAlternateSignalStack) {
  std::vector<char> alt(256 * 1024);
  stack_t ss = {}, old_ss;
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  ASSERT_EQ(sigaltstack(&ss, &old_ss), 0);
  struct sigaction sa = {}, old_sa;
  sa.sa_handler = [](int) { Nest(g_on_signal_stack, 2); };
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old_sa), 0);
  TwoStacks s;
  g_on_signal_stack = &s;
  Nest(&s, 0); // (the DWARF unwinder loads its library now, not in the handler)
  raise(SIGUSR1);
  sigaction(SIGUSR1, &old_sa, nullptr);
  sigaltstack(&old_ss, nullptr);
  EXPECT_TRUE(SameCallers(s, 3)); // 3 x Nest
}

} // namespace
} // namespace ownsan
