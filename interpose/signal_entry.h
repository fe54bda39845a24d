//===- signal_entry.h - The program's signal handlers, seen running -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See signal_entry.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_INTERPOSE_SIGNAL_ENTRY_H
#define OWNSAN_INTERPOSE_SIGNAL_ENTRY_H

#include <csignal>
#include <cstdint>

namespace ownsan {

/// sigaction as the program's own would be without ownsan's interposer: for
/// the runtime's own handlers (the crash handler).
int RealSigaction(int sig, const struct sigaction *act, struct sigaction *old);

/// A jump (longjmp & co.) resumes at stack pointer `target`: the handlers
/// whose trampoline frames lie below it are left.
void LeaveSignalFramesBelow(uintptr_t target);

} // namespace ownsan

#endif // OWNSAN_INTERPOSE_SIGNAL_ENTRY_H
