//===- errors.cpp - Report sentences for handle checks --------------------===//
//
// The reports of the checks made in check.cpp, contexts.cpp and
// tracker_registration.cpp: each builds its ErrorReport and hands it to
// Report() (reporter.cpp).
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "fn_ids.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>

namespace ownsan {

bool Runtime::ReportEvicted(FnId fn, unsigned arg, const void *h,
                            ShadowMap::EvictedObject what) {
  // Case: the handle names an object that died and whose address is still
  // unreused, but whose record was evicted (history_size_mb): what it was
  // is all that is left.
  ObjectRecord stand_in;
  stand_in.addr = h;
  stand_in.kind = what.kind;
  stand_in.state = ObjectState::Evicted; // (layout: not a tracked record)
  ErrorKind kind = FreesArg(fn, arg) ? ErrorKind::DoubleFree
                   : what.consumed   ? ErrorKind::UseAfterConsume
                                     : ErrorKind::UseAfterFree;
  ErrorReport rep = NewReport(kind, &stand_in, h, fn, arg);
  rep.history_evicted = true;
  rep.note = absl::StrCat(
      "its history is gone: it was freed long enough ago that its record "
      "was evicted to keep the history of freed objects within "
      "history_size_mb=",
      flags_.history_size_mb, "; a larger history_size_mb keeps more");
  return Report(std::move(rep));
}

bool Runtime::ReportCrossContext(FnId fn, unsigned arg, const void *h,
                                 ObjectRecord *r, ObjectRecord *ctx) {
  CallContext &call = CurrentCall();
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::CrossContext, r, h, fn, arg);
  rep.note = absl::StrCat("argument ", arg + 1, " belongs to ", ShortLabel(ctx),
                          " but argument ", call.context_arg + 1,
                          " belongs to ", ShortLabel(call.context),
                          ": objects of two contexts cannot be mixed");
  return Report(std::move(rep));
}

bool Runtime::ReportContextRace(FnId fn, unsigned arg, ObjectRecord *r,
                                ContextUse *use, uint32_t active) {
  ObjectRecord *ctx = use->record;
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::ContextRace, ctx, ctx->addr, fn, arg);
  rep.has_other = true;
  rep.other_thread = active - 1;
  rep.other_stack = use->active_stack.load();
  rep.other_fn = use->active_fn.load();
  if (!rep.other_stack) {
    // Case: the owner's claim recorded no stack (no hand-off before it, or
    // a long run of claims by the owner alone since the last one): show
    // the frame that called into LLVM.
    if (const void *pc = use->active_pc.load(std::memory_order_relaxed)) {
      StackTrace one;
      one.pcs.push_back(reinterpret_cast<uintptr_t>(pc));
      rep.other_stack = depot_.Put(std::move(one));
    }
  }
  rep.note = absl::StrCat(
      "argument ", arg + 1, " (", ShortLabel(r), ") belongs to ",
      ShortLabel(ctx),
      ", which another thread is using right now; an LLVMContext must not "
      "be used by two threads at once");
  return Report(std::move(rep));
}

ArgVerdict Runtime::ReportWrongKind(FnId fn, unsigned arg, const void *h,
                                    ObjectRecord *r, uint8_t expected) {
  // Case: a live value of another kind: LLVM would cast it unchecked and
  // read the wrong object's fields (undefined behaviour).
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::WrongHandleKind, r, h, fn, arg);
  rep.expected = kKindExpectations[expected].description;
  rep.note = absl::StrCat(FnName(fn), " expects ", rep.expected,
                          " as argument ", arg + 1, ", but it is ",
                          ShortLabel(r), "; the C API casts it unchecked");
  // (A suppressed report lets the call through: its result is not trusted.)
  return Report(std::move(rep)) ? ArgVerdict::Skip : ArgVerdict::Unverified;
}

bool Runtime::ReportSecondOwner(FnId fn, unsigned arg, const void *h) {
  RuntimeSection section;
  ObjectRecord *r = LookupLive(h);
  if (!r)
    return false;
  const ObjectRecord *owner;
  {
    ReaderMutexLock lock(&mu_);
    if (!r->owned_by_other || r->owner_untracked || !r->parent ||
        r->parent->state != ObjectState::Live)
      return false;
    owner = r->parent;
  }
  ErrorReport rep = NewReport(ErrorKind::InvalidTransfer, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " gives away an object that ",
                          ShortLabel(owner), " already owns (since ",
                          FnName(r->rare().owned_via), "): both would free it");
  return Report(std::move(rep));
}

bool Runtime::ReportOwnedFree(FnId fn, unsigned arg, const void *h,
                              ObjectRecord *r) {
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " frees an object the caller gave away: ",
                          r->owner_untracked ? std::string("LLVM")
                          : r->parent        ? ShortLabel(r->parent)
                                             : std::string("another object"),
                          " owns it since ", FnName(r->rare().owned_via),
                          " and frees it itself",
                          r->kind == ObjectKind::Module
                              ? " (take it back first, e.g. LLVMRemoveModule)"
                              : "");
  return Report(std::move(rep));
}

} // namespace ownsan
