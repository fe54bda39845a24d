//===- quarantine_hooks.cpp - Freed memory held back from reuse -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Blocks a stale handle may still name wait in the Quarantine
// (src/core/quarantine.h) instead of going back to malloc: Hold() puts them
// there (TakeIntoQuarantine in tracker_deaths.cpp decides, for operator
// delete); what leaves is released the way LLVM would have (free(), or the
// LLVM-C disposer of a buffer or a string held whole), and free heap pages
// are handed back now and then (malloc_trim).
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include <malloc.h>
#include <time.h>

#include <cstdlib>

namespace ownsan {

namespace {
uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}
} // namespace

void Runtime::Hold(Quarantine::Chunk chunk) { HoldAll(&chunk, 1); }

void Runtime::HoldAll(const Quarantine::Chunk *chunks, size_t n) {
  RuntimeSection section;
  Quarantine::ReleaseList release;
  bool trim_due;
  uint32_t thread = CurrentThreadNumber();
  {
    MutexLock lock(&quarantine_mu_);
    for (size_t i = 0; i < n; ++i)
      quarantine_.Put(chunks[i], thread, &release);
    trim_due = quarantine_.TakeTrimDue(MonotonicNs);
  }
  for (const Quarantine::Chunk &c : release) {
    if (c.release == Quarantine::Chunk::kFree) {
      // A block that held lent strings stops matching now (strings.cpp).
      if (lent_string_pages_.MaybeOverlaps(c.p, c.size)) {
        MutexLock lock(&mu_);
        ForgetReleasedBlock(c.p, c.size);
      }
      OwnsanReleaseDeleted(c.p);
      continue;
    }
    // LLVM frees buffers and strings with free(), which ownsan does not
    // see, so their addresses stop matching when the real dispose happens.
    {
      MutexLock lock(&mu_);
      ForgetReleasedAddress(c.p);
    }
    if (c.release == Quarantine::Chunk::kFreeMalloced)
      free(c.p); // what the skipped disposer would have done
    else
      kProfile.dispose_held(c.release, c.p);
  }
#ifdef __GLIBC__
  if (trim_due) { // (see Quarantine::TakeTrimDue)
    uint64_t start = MonotonicNs();
    malloc_trim(0);
    uint64_t end = MonotonicNs();
    MutexLock lock(&quarantine_mu_);
    quarantine_.TrimDone(start, end);
  }
#else
  (void)trim_due;
#endif
}

} // namespace ownsan
