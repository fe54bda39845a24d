//===- shadow_map.cpp - Freed objects, still matched by address ----------===//

#include "core/shadow_map.h"

namespace ownsan {

void ShadowMap::Insert(ObjectRecord *r) {
  exact_.Add(r->addr);
  by_addr_.Put(r);
}

void ShadowMap::Forget(const void *addr) { by_addr_.EraseAt(addr); }

void ShadowMap::DropRange(const void *lo, size_t size,
                          absl::FunctionRef<void(ObjectRecord *)> on_drop) {
  by_addr_.EraseRange(lo, size, [&](ObjectRecord *r) {
    on_drop(r);
    if (expired_.size() >= kMaxExpired)
      expired_.clear();
    expired_[reinterpret_cast<uintptr_t>(r->addr)] = r;
  });
}

} // namespace ownsan
