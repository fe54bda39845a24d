//===- quarantine.cpp - Delayed release of freed objects' memory ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/quarantine.h"

namespace ownsan {

void Quarantine::Put(Chunk c, uint32_t thread, ReleaseList *release) {
  ++taken_;
  c.freed_by = thread;
  if (c.size > limit_) {
    // Case: larger than the whole quarantine (or the quarantine is off).
    release->push_back(c);
    return;
  }
  fifo_.push_back(c);
  bytes_ += c.size;
  while (bytes_ > limit_) {
    const Chunk &oldest = fifo_.front();
    release->push_back(oldest);
    bytes_ -= oldest.size;
    if (oldest.freed_by != thread)
      released_since_trim_ += oldest.size; // (see TakeTrimDue)
    fifo_.pop_front();
  }
  if (bytes_ > peak_)
    peak_ = bytes_;
}

} // namespace ownsan
