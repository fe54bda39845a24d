//===- strings.cpp - Owned and lent strings -------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Strings LLVM hands out as owned (LLVMPrint*ToString, error messages),
// which the program must dispose, and strings it only lends (names),
// which it must not.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/record_cache.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/strings/str_cat.h"

#include <malloc.h>

#include <algorithm>
#include <cstring>

namespace ownsan {

bool Runtime::FreeString(FnId fn, unsigned arg, const void *s,
                         bool error_message, bool *skip) {
  RuntimeSection section;
  ObjectRecord *r = LookupLive(s);
  if (!r) {
    // Case: a string ownsan never saw handed out (made by other code, or
    // already freed and reported by CheckString): let it through.
    auto is_message = [](ObjectKind k) {
      return k == ObjectKind::Message || k == ObjectKind::ErrorMessage;
    };
    FreedAt found;
    HistoryPin pin(this);
    {
      MutexLock lock(&mu_);
      found = FindFreedLocked(s, is_message, &pin);
    }
    if (found.evicted)
      return ReportEvicted(fn, arg, s, found.what); // (released twice)
    if (!found.record)
      // Case: maybe a string a getter lent (LLVMGetModuleIdentifier's).
      return CheckLentStringFree(fn, arg, s);
    // Case: released twice.
    return ReportStringFreedTwice(fn, arg, s, found.record);
  }
  if (r->kind != ObjectKind::Message && r->kind != ObjectKind::ErrorMessage)
    return false; // not a string we know: not ours to judge
  bool is_error = r->kind == ObjectKind::ErrorMessage;
  if (is_error != error_message) {
    // Case: the wrong deallocator (LLVMGetErrorMessage's string is new[]'d,
    // the others are malloc'ed).
    return ReportWrongDeallocator(fn, arg, s, r, is_error);
  }
  // Case: a correct release. The string is held back whole (LLVM frees it
  // with free(), which ownsan does not see) and released for real when it
  // leaves the quarantine.
  size_t size = r->rare().unterminated
                    ? malloc_usable_size(const_cast<void *>(s))
                    : strlen(static_cast<const char *>(s)) + 1;
  FreeWithDescendants(r, CurrentFreeEvent(r));
  Hold({const_cast<void *>(s), size ? size : 1,
        error_message ? Quarantine::Chunk::kDisposeErrorMessage
                      : Quarantine::Chunk::kDisposeMessage});
  *skip = true;
  return false;
}

namespace {
// The last borrowed strings LLVM handed to this thread: a fixed ring, so a
// getter call costs a few stores. A binding that frees a borrowed string
// does so right after getting it, on the same thread.
struct LentString {
  const char *s;
  FnId fn;
  const void *args[3];
  CallScope::RegetFn reget;
};
struct LentStrings {
  LentString ring[16];
  unsigned next;
};
LentStrings &CurrentLentStrings() {
  static thread_local LentStrings lent OWNSAN_TLS_MODEL;
  return lent;
}
} // namespace

void CallScope::BorrowedString(const char *s, const void *a0, const void *a1,
                               const void *a2, RegetFn reget) {
  if (!s)
    return;
  // (A section: a signal handler's getter call that interrupts the write is
  // forwarded unchecked rather than mix its entry into this one.)
  RuntimeSection section;
  LentStrings &lent = CurrentLentStrings();
  lent.ring[lent.next++ % 16] = {s, fn_, {a0, a1, a2}, reget};
}

bool Runtime::CheckLentStringFree(FnId fn, unsigned arg, const void *s) {
  const LentStrings &lent = CurrentLentStrings();
  for (const LentString &e : lent.ring) {
    if (e.s != s || !e.reget)
      continue;
    // Case: the string came from a getter on this thread. It is still lent
    // only if every handle it was asked for is live and the getter still
    // returns this very pointer (its memory may have been freed and reused
    // since, e.g. by a string the binding made and may free).
    ObjectRecord *owner = nullptr;
    bool live = true;
    for (const void *h : e.args)
      if (h) {
        ObjectRecord *r = LookupLive(h);
        live = live && r;
        if (!owner)
          owner = r;
      }
    if (!live || !owner)
      continue;
    const char *now;
    {
      RuntimeSection section;
      now = e.reget(e.args);
    }
    if (now != s)
      continue;
    RegisterOpaque(e.fn, s, "const char *", owner->addr);
    ObjectRecord *r = LookupLive(s);
    if (!r)
      return false;
    {
      MutexLock lock(&mu_);
      r->name = "string";
      r->create_stack = 0; // the getter's stack is not recorded (cost)
      MarkOwnedBy(r, nullptr, e.fn); // (its parent: the lender)
    }
    return ReportLentStringFree(fn, arg, s, r, e.fn, owner);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Strings a context owns (the spec's `lends`: MLIR's identifiers, string
// attributes...). Their bytes die with the context: a lent string is a
// record whose parent is its context (RegisterLentString in
// tracker_registration.cpp), so the context's death moves it into
// the shadow map before the context's memory is freed, and the blocks
// holding it wait in the quarantine (TakeIntoQuarantine). Only a string
// struct argument (MlirStringRef) is checked against them: the program's
// own reads of the bytes are not calls.
//
// Zero false positives: a dead string is matched only while no memory
// could have been handed out over it. The allocation hook sees malloc and
// operator new over it; realloc, calloc and mmap it does not, so a block
// holding lent strings stops matching as soon as it leaves the quarantine.
//===----------------------------------------------------------------------===//

bool Runtime::CheckStringRef(FnId fn, unsigned arg, const char *data) {
  // Fast path: no freed object was ever near these bytes.
  if (!ABSL_TS_UNCHECKED_READ(shadow_).MaybeContains(data))
    return false;
  RuntimeSection section;
  // (Bytes where another kind of object died say nothing: memory ownsan
  // never saw reused for the program's string.)
  FreedAt found;
  HistoryPin pin(this);
  {
    MutexLock lock(&mu_);
    found = FindFreedLocked(
        data, [](ObjectKind k) { return k == ObjectKind::LentString; }, &pin);
  }
  if (found.evicted)
    return ReportEvicted(fn, arg, data, found.what);
  // Case: a string its context lent, used after the context died.
  return found.record && ReportFreedUse(fn, arg, data, found.record, nullptr);
}

void CallScope::LentString(const char *data, size_t length,
                           const void *context) {
  if (!unverified_)
    Runtime::Get().RegisterLentString(fn_, data, length, context);
}

bool CallScope::CheckStringRefArg(FnId fn, unsigned arg, const char *data) {
  return Runtime::Get().CheckStringRef(fn, arg, data);
}

} // namespace ownsan
