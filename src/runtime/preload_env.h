//===- preload_env.h - Keeping the runtime out of child processes -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// LD_PRELOAD is inherited by every program a process execs, so ownsan
// follows all of them by default (as AddressSanitizer's preloaded runtime
// does). follow_children=0 takes the runtime out of the environment at
// start-up instead.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_PRELOAD_ENV_H
#define OWNSAN_RUNTIME_PRELOAD_ENV_H

namespace ownsan {

/// Removes the entries of LD_PRELOAD that name this runtime's file (the
/// variable goes away if nothing else is left); other entries, a
/// sanitizer's runtime included, stay in their order.
void RemoveRuntimeFromPreload();

} // namespace ownsan

#endif // OWNSAN_RUNTIME_PRELOAD_ENV_H
