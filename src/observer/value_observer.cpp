//===- value_observer.cpp - Value deletion callbacks from LLVM -----------===//

#include "observer/value_observer.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Value.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Support/MemoryBuffer.h"

namespace {

ownsan_value_deleted_fn g_on_deleted = nullptr;

class DeletionWatcher final : public llvm::CallbackVH {
public:
  DeletionWatcher(llvm::Value *v, void *cookie)
      : llvm::CallbackVH(v), cookie_(cookie) {}

  // Runs inside ~Value, before the memory is released: the runtime records
  // the death first, so no other thread can be handed this address while
  // the object is still "live" in the runtime's books.
  void deleted() override {
    void *cookie = cookie_;
    setValPtr(nullptr); // leave the value's handle list before dying
    delete this;
    if (g_on_deleted)
      g_on_deleted(cookie);
  }

private:
  void *cookie_;
};

} // namespace

extern "C" __attribute__((visibility("default"))) int
ownsan_observer_init(ownsan_value_deleted_fn on_deleted) {
  g_on_deleted = on_deleted;
  return LLVM_VERSION_MAJOR;
}

extern "C" __attribute__((visibility("default"))) void *
ownsan_observer_attach(void *value, void *cookie) {
  return new DeletionWatcher(static_cast<llvm::Value *>(value), cookie);
}

extern "C" __attribute__((visibility("default"))) void
ownsan_observer_detach(void *watcher) {
  delete static_cast<DeletionWatcher *>(watcher);
}

extern "C" __attribute__((visibility("default"))) void *
ownsan_observer_copy_buffer(void *buffer) {
  auto *mb = static_cast<llvm::MemoryBuffer *>(buffer);
  return llvm::MemoryBuffer::getMemBufferCopy(mb->getBuffer(),
                                              mb->getBufferIdentifier())
      .release();
}
