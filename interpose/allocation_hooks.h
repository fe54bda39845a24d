//===- allocation_hooks.h - Allocator hooks and the runtime -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The calls between the replaced (or, in link mode, wrapped) operator new
// and delete and the runtime, declared once: the hooks call the first
// three (src/runtime/runtime.cpp defines them); each hook file defines the
// last, which the runtime calls to give a held block back.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_INTERPOSE_ALLOCATION_HOOKS_H
#define OWNSAN_INTERPOSE_ALLOCATION_HOOKS_H

#include <cstddef>

/// New memory [p, p + n) was handed out.
void OwnsanOnAllocation(const void *p, size_t n);
/// operator delete (or free) of `p`, `size` bytes if a sized delete gave
/// them (0: unknown): true if the runtime keeps the block (a stale handle
/// may name it), false if the caller frees it now.
bool OwnsanTakeIntoQuarantine(void *p, size_t size);
/// The runtime's own allocation failed: one line, then exit.
[[noreturn]] void OwnsanOutOfMemory(size_t n);
/// Gives back a block the runtime kept (free(); in link mode the real
/// operator delete).
void OwnsanReleaseDeleted(void *p);

#endif // OWNSAN_INTERPOSE_ALLOCATION_HOOKS_H
