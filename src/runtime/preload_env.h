//===- preload_env.h - Keeping the runtime out of child processes -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// LD_PRELOAD is inherited by every program a process execs, so ownsan
// follows all of them by default (as AddressSanitizer's preloaded runtime
// does). follow_children=0 takes the runtime out of the environment at
// start-up instead, with the allocator or the malloc tunable `ownsan run`
// added for the runtime's sake (which travel with it).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_PRELOAD_ENV_H
#define OWNSAN_RUNTIME_PRELOAD_ENV_H

namespace ownsan {

/// Removes the entries of LD_PRELOAD that name this runtime's file, and the
/// allocator `ownsan run` added after it (OWNSAN_RUN_HEAP_ALLOCATOR): the
/// variable goes away if nothing else is left; other entries, a
/// sanitizer's runtime included, stay in their order.
void RemoveRuntimeFromPreload();

/// Puts back the GLIBC_TUNABLES the program was given, where `ownsan run`
/// added glibc.malloc.hugetlb=1 (read at exec: in effect for this process,
/// not for the children it starts from now on).
void RestoreProgramTunables();

} // namespace ownsan

#endif // OWNSAN_RUNTIME_PRELOAD_ENV_H
