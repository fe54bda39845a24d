//===- shadow_map.cpp - Freed objects, still matched by address ----------===//

#include "core/shadow_map.h"

namespace ownsan {

void ShadowMap::Insert(ObjectRecord *r) {
  exact_.Add(r->addr);
  by_addr_[reinterpret_cast<uintptr_t>(r->addr)] = r;
}

void ShadowMap::Forget(const void *addr) {
  by_addr_.erase(reinterpret_cast<uintptr_t>(addr));
}

void ShadowMap::DropRange(const void *lo, size_t size,
                          absl::FunctionRef<void(ObjectRecord *)> on_drop) {
  uintptr_t begin = reinterpret_cast<uintptr_t>(lo);
  auto it = by_addr_.lower_bound(begin);
  while (it != by_addr_.end() && it->first < begin + size) {
    on_drop(it->second);
    if (expired_.size() >= kMaxExpired)
      expired_.clear();
    expired_[it->first] = it->second;
    it = by_addr_.erase(it);
  }
}

} // namespace ownsan
