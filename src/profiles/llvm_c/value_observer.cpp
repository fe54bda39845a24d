//===- value_observer.cpp - LLVM C++ helpers for the runtime -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "profiles/llvm_c/value_observer.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"

extern "C" __attribute__((visibility("default"))) int
ownsan_observer_init(void) {
  return LLVM_VERSION_MAJOR;
}

extern "C" __attribute__((visibility("default"))) void *
ownsan_observer_copy_buffer(void *buffer) {
  auto *mb = static_cast<llvm::MemoryBuffer *>(buffer);
  return llvm::MemoryBuffer::getMemBufferCopy(mb->getBuffer(),
                                              mb->getBufferIdentifier())
      .release();
}
