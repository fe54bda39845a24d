//===- quarantine.cpp - Delayed release of freed objects' memory ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/quarantine.h"

namespace ownsan {

void Quarantine::Put(Chunk c, ReleaseList *release) {
  ++taken_;
  if (c.size > limit_) {
    // Case: larger than the whole quarantine (or the quarantine is off).
    release->push_back(c);
    return;
  }
  fifo_.push_back(c);
  bytes_ += c.size;
  while (bytes_ > limit_) {
    release->push_back(fifo_.front());
    bytes_ -= fifo_.front().size;
    released_since_trim_ += fifo_.front().size;
    fifo_.pop_front();
  }
  if (bytes_ > peak_)
    peak_ = bytes_;
}

} // namespace ownsan
