//===- labels.cpp - How reports name objects ------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Labels such as `module 'm'`, `context 0x...`, `message "..."`, from
// the names snapshotted at registration (the library is only asked about
// live objects); watched objects' labels are the profile's (watched_label).
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "report/report_writer.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace ownsan {

//===----------------------------------------------------------------------===//
// Labels
//===----------------------------------------------------------------------===//

// Does SnapshotName ask LLVM (values, types), or is the name the one
// recorded at registration (modules: see RegisterImpl)?
bool Runtime::NameComesFromLLVM(const ObjectRecord *r) {
  return IsWatchedKind(r->kind) || IsPrintedKind(r->kind);
}

std::string Runtime::SnapshotName(const ObjectRecord *r) {
  void *h = const_cast<void *>(r->addr);
  if (IsWatchedKind(r->kind))
    return ValueName(h, r->kind);
  if (IsPrintedKind(r->kind))
    return kProfile.printed_text(h, r->kind);
  return r->name;
}

std::string Runtime::ShortLabel(const ObjectRecord *r) {
  // (An opaque object is named by its C type unless it was given a name.)
  std::string name = r->kind == ObjectKind::Opaque && r->name.empty()
                         ? OpaqueNoun(r)
                         : std::string(r->name);
  // Live values are named as they are now (names change); freed ones as
  // they were when they died.
  if (r->state == ObjectState::Live && IsWatchedKind(r->kind))
    name = SnapshotName(r);
  // A name is the program's bytes: escaped, so it cannot forge report lines
  // or reach the terminal as an escape sequence (messages: CEscape below).
  std::string raw_name = name;
  name = PrintableText(name);
  std::string addr =
      absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(r->addr)));
  // Watched objects (values, operations...) as the library's users know
  // them: `function @f`, `operation "func.func" @f`.
  if (IsWatchedKind(r->kind))
    return kProfile.watched_label(r->kind, name, addr);
  if (IsPrintedKind(r->kind))
    return absl::StrCat(KindNoun(r->kind), " ", name.empty() ? addr : name);
  switch (r->kind) {
  case ObjectKind::Context:
    return absl::StrCat("context ", addr,
                        r->is_global_context ? " (global)" : "");
  case ObjectKind::Module:
    return absl::StrCat("module \"", name, "\"");
  case ObjectKind::Opaque:
    return absl::StrCat(name.empty() ? "object" : name, " ", addr);
  case ObjectKind::LentString:
    // (Its bytes as they were when it was lent, cut to kLentStringShown.)
    return absl::StrCat("string ", addr, " \"", absl::CEscape(raw_name), "\"");
  case ObjectKind::Message:
  case ObjectKind::ErrorMessage:
    if (r->rare().unterminated)
      return absl::StrCat("message ", addr, " (not NUL-terminated)");
    return absl::StrCat(r->kind == ObjectKind::ErrorMessage ? "error message "
                                                            : "message ",
                        addr, " \"", absl::CEscape(raw_name), "\"");
  default:
    return absl::StrCat(KindNoun(r->kind), " ", addr);
  }
}

} // namespace ownsan
