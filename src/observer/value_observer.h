//===- value_observer.h - C ABI of libownsan_observer.so --------*- C++ -*-===//
//
// The part of ownsan that needs LLVM's C++ API lives in its own shared
// library, loaded by the runtime with dlopen only once a libLLVM is in the
// process, so the preloaded runtime never drags libLLVM into programs that
// do not use it. It attaches an llvm::CallbackVH to a Value; LLVM calls the
// handle when the Value is destroyed for any reason (an explicit delete, a
// parent's destruction, an optimization pass), and the handle forwards the
// news to the runtime and deletes itself.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_OBSERVER_VALUE_OBSERVER_H
#define OWNSAN_OBSERVER_VALUE_OBSERVER_H

extern "C" {

/// Called with the cookie given to attach, from inside ~Value.
typedef void (*ownsan_value_deleted_fn)(void *cookie);

/// Installs the deletion callback; returns the LLVM major the library was
/// built for.
typedef int (*ownsan_observer_init_fn)(ownsan_value_deleted_fn on_deleted);
/// Starts watching `value` (an llvm::Value*); returns the watcher.
typedef void *(*ownsan_observer_attach_fn)(void *value, void *cookie);
/// Stops watching (the value is alive); `watcher` is freed.
typedef void (*ownsan_observer_detach_fn)(void *watcher);
/// A new llvm::MemoryBuffer with the same contents and identifier as
/// `buffer` (an LLVMMemoryBufferRef), for LLVM to consume in its place.
typedef void *(*ownsan_observer_copy_buffer_fn)(void *buffer);
}

#endif // OWNSAN_OBSERVER_VALUE_OBSERVER_H
