//===- public_api.cpp - The public C API (include/ownsan/ownsan.h) --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ownsan_handle_state, ownsan_describe_handle, ownsan_set_error_callback
// and what they read.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "report/report_writer.h"

#include "absl/strings/str_cat.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ownsan {

void Runtime::SetErrorCallback(ErrorCallback cb, void *user) {
  error_callback_user_.store(user);
  error_callback_.store(cb);
}

int Runtime::HandleState(const void *h) {
  if (!h)
    return 0;
  FlushDeaths(); // (called from a callback inside a call)
  RuntimeSection section;
  MutexLock lock(&mu_);
  if (graph_.Find(h))
    return 1;
  ShadowMap::EvictedObject evicted;
  if (shadow_.Find(h) || shadow_.FindEvicted(h, &evicted))
    return 2;
  return 0;
}

std::string Runtime::DescribeHandle(const void *h) {
  FlushDeaths(); // (called from a callback inside a call)
  RuntimeSection section;
  ObjectRecord *r = nullptr;
  FreedAt found;
  HistoryPin pin(this);
  {
    MutexLock lock(&mu_);
    r = graph_.Find(h);
    if (!r) {
      found = FindFreedLocked(h, [](ObjectKind) { return true; }, &pin);
      r = found.record;
    }
  }
  if (found.evicted)
    return absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(h)), " (",
                        KindNoun(found.what.kind),
                        "): freed; its history "
                        "was evicted (history_size_mb=",
                        flags_.history_size_mb, ")\n");
  if (!r)
    return absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(h)),
                        ": not an object ownsan knows");
  auto fn_name = [](FnIndex f) { return FnName(f); };
  auto short_label = [this](const ObjectRecord *o) { return ShortLabel(o); };
  ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name, short_label};
  ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
  ctx.library_noun = kProfile.library_noun;
  ctx.api_name = kProfile.api_name;
  ErrorReport rep;
  rep.object = r;
  rep.handle = h;
  rep.fn = r->created_by;
  ResolvedReport rr = Resolve(rep, ctx);
  std::string out =
      absl::StrCat(rr.handle_type, " ", rr.handle, " (", rr.object_label,
                   "): ", r->state == ObjectState::Live ? "live" : "freed",
                   ", identity ", rr.identity, "\n");
  if (rr.free.present)
    absl::StrAppend(&out, "  ", rr.free.heading, "\n");
  if (rr.create.present)
    absl::StrAppend(&out, "  ", rr.create.heading, "\n");
  std::string chain;
  for (const auto &link : rr.chain)
    absl::StrAppend(&chain, chain.empty() ? "" : " -> ", link.second);
  absl::StrAppend(&out, "  ownership chain: ", chain, "\n");
  return out;
}

size_t Runtime::LiveObjects() {
  MutexLock lock(&mu_);
  return graph_.LiveCount();
}

size_t Runtime::FreedObjects() {
  MutexLock lock(&mu_);
  return shadow_.size();
}

} // namespace ownsan

//===----------------------------------------------------------------------===//
// The public API (include/ownsan/ownsan.h)
//===----------------------------------------------------------------------===//

extern "C" OWNSAN_EXPORT int ownsan_handle_state(const void *handle) {
  return ownsan::Runtime::Get().HandleState(handle);
}

extern "C" OWNSAN_EXPORT size_t ownsan_describe_handle(const void *handle,
                                                       char *buffer,
                                                       size_t size) {
  std::string text = ownsan::Runtime::Get().DescribeHandle(handle);
  if (buffer && size) {
    size_t n = std::min(size - 1, text.size());
    memcpy(buffer, text.data(), n);
    buffer[n] = 0;
  }
  return text.size();
}

extern "C" OWNSAN_EXPORT void ownsan_set_error_callback(
    void (*callback)(const char *kind, const char *report, void *user),
    void *user) {
  ownsan::Runtime::Get().SetErrorCallback(callback, user);
}
