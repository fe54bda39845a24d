//===- value_observer.h - C ABI of libownsan_observer.so --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The part of ownsan that needs LLVM's C++ API lives in its own shared
// library, loaded by the runtime with dlopen when it is first needed (a
// memory buffer given away: Runtime::ObserverCopyBuffer), so the preloaded
// runtime never drags libLLVM into programs that do not use it, and no
// process pays for loading it at start-up. It states the LLVM major it was
// built for and copies memory buffers. (Value deletions need no C++ API: every
// Value is released with operator delete, which ownsan interposes; see
// Runtime::ValuesDied.)
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_OBSERVER_VALUE_OBSERVER_H
#define OWNSAN_OBSERVER_VALUE_OBSERVER_H

extern "C" {

/// Returns LLVM_VERSION_MAJOR of the LLVM the library was built against.
typedef int (*ownsan_observer_init_fn)(void);
typedef void *(*ownsan_observer_copy_buffer_fn)(void *buffer);
}

#endif // OWNSAN_OBSERVER_VALUE_OBSERVER_H
