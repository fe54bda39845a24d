//===- errors.cpp - One constructor per report kind -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The only place a report's sentence is written. Detection code (check.cpp,
// contexts.cpp, builders.cpp, effects.cpp, strings.cpp) decides that a call
// is wrong and calls the Report* function of that kind and variant here; it
// builds the ErrorReport (the kind, the object, the call's stack and the
// note) and hands it to Report() (reporter.cpp), which dedupes, suppresses,
// writes and halts. The kinds are in the order of src/report/error_kinds.def,
// which holds each kind's meaning and hint.
//
// Grep rule (tools/check_runtime_layout.py): `NewReport(` and `.note =`
// appear in no other file of src/runtime.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>

namespace ownsan {

ErrorReport Runtime::NewReport(ErrorKind kind, const ObjectRecord *object,
                               const void *handle, FnId fn, unsigned arg) {
  ErrorReport rep;
  rep.kind = kind;
  rep.object = object;
  rep.handle = handle;
  rep.fn = fn;
  rep.arg = arg;
  rep.use_stack = ReportUseStack();
  rep.thread = CurrentThreadNumber();
  return rep;
}

// --- use-after-free, double-free, use-after-consume -----------------------

bool Runtime::ReportFreedUse(FnId fn, unsigned arg, const void *h,
                             const ObjectRecord *freed,
                             const ObjectRecord *now) {
  // The report shows how the object died (its free event) and, in
  // `related`, what lives at its address now, if anything.
  ErrorKind kind =
      FreesArg(fn, arg) ? ErrorKind::DoubleFree : ErrorKind::UseAfterFree;
  if (freed->freed && freed->freed->consumed)
    kind = ErrorKind::UseAfterConsume;
  ErrorReport rep = NewReport(kind, freed, h, fn, arg);
  rep.related = now;
  if (kind == ErrorKind::UseAfterFree && !now)
    rep.native_successor = NativeSuccessorOf(freed->addr);
  return Report(std::move(rep));
}

bool Runtime::ReportStringFreedTwice(FnId fn, unsigned arg, const void *s,
                                     const ObjectRecord *freed) {
  // (A string's free is not a spec free of its argument, so the kind is
  // not FreesArg's.)
  return Report(NewReport(ErrorKind::DoubleFree, freed, s, fn, arg));
}

bool Runtime::ReportEvicted(FnId fn, unsigned arg, const void *h,
                            ShadowMap::EvictedObject what) {
  // The object died and its address is still unreused, but its record was
  // evicted (history_size_mb): what it was is all that is left.
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

// --- invalid-free: one constructor per way a free can be wrong ------------

bool Runtime::ReportOwnedFree(FnId fn, unsigned arg, const void *h,
                              ObjectRecord *r) {
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  rep.note = absl::StrCat(
      FnName(fn), " frees an object the caller gave away: ",
      r->owner_untracked ? std::string(kProfile.library_noun)
      : r->parent        ? ShortLabel(r->parent)
                         : std::string("another object"),
      " owns it since ", FnName(r->rare().owned_via), " and frees it itself",
      r->kind == ObjectKind::Module
          ? absl::StrCat(" (take it back first, e.g. ",
                         kProfile.take_back_example, ")")
          : "");
  return Report(std::move(rep));
}

bool Runtime::ReportFreeOfAttached(FnId fn, unsigned arg, const void *h,
                                   ObjectRecord *r, const char *what,
                                   const std::string &parent_label,
                                   bool tolerated) {
  // LLVM would free the object while its parent still lists it (or, for
  // a contract the library does not enforce, strict_ownership=1, the
  // header says it must not be in one).
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " frees only detached ", what,
                          "; this one is still in ", parent_label);
  if (tolerated)
    absl::StrAppend(&rep.note,
                    " (the header's contract: ", kProfile.library_noun,
                    " unlinks it first, so no memory error follows; "
                    "reported because strict_ownership=1)");
  return Report(std::move(rep));
}

bool Runtime::ReportFreeOfDetached(FnId fn, unsigned arg, const void *h,
                                   ObjectRecord *r, const char *what,
                                   const char *container) {
  // An erase-style call: LLVM would dereference the missing parent.
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " needs ", what, " that are in a ",
                          container, "; this one is detached");
  return Report(std::move(rep));
}

bool Runtime::ReportWrongDeallocator(FnId fn, unsigned arg, const void *s,
                                     ObjectRecord *r, bool error_message) {
  // LLVMGetErrorMessage's string is new[]'d, the others are malloc'ed.
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, s, fn, arg);
  rep.note =
      absl::StrCat(FnName(fn), " cannot release this string: it came from ",
                   FnName(r->created_by), " and must be released with ",
                   error_message ? kProfile.error_message_disposer
                                 : kProfile.message_disposer);
  return Report(std::move(rep));
}

bool Runtime::ReportLentStringFree(FnId fn, unsigned arg, const void *s,
                                   ObjectRecord *r, FnId lender,
                                   ObjectRecord *owner) {
  ErrorReport rep = NewReport(ErrorKind::InvalidFree, r, s, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " frees a string ", kProfile.library_noun,
                          " only lent: ", FnName(lender), " returned it and ",
                          ShortLabel(owner), " owns it; only strings ",
                          kProfile.library_noun, " hands out as owned (",
                          kProfile.owned_strings_example,
                          ", error messages...) go to ", FnName(fn));
  return Report(std::move(rep));
}

// --- dangling-insertion-point ---------------------------------------------

bool Runtime::ReportDanglingInsertionPoint(FnId fn, unsigned arg, const void *h,
                                           ObjectRecord *builder,
                                           ObjectRecord *dead) {
  // LLVM would insert into freed memory.
  ErrorReport rep =
      NewReport(ErrorKind::DanglingInsertionPoint, builder, h, fn, arg);
  rep.related = dead;
  rep.note = absl::StrCat(
      FnName(fn), " inserts at the builder's position, which is ",
      dead->kind == ObjectKind::BasicBlock ? "the end of a freed block"
                                           : "before a freed instruction",
      "; position the builder again first");
  return Report(std::move(rep));
}

// --- context-race ---------------------------------------------------------

bool Runtime::ReportContextRace(FnId fn, unsigned arg, ObjectRecord *r,
                                ContextUse *use, uint32_t owner,
                                const OpenCall &open) {
  ObjectRecord *ctx = use->record;
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::ContextRace, ctx, ctx->addr, fn, arg);
  rep.has_other = true;
  rep.other_thread = owner - 1;
  rep.other_stack = use->active_stack.load();
  rep.other_fn = open.fn;
  if (!rep.other_stack) {
    // Case: the owner's claim recorded no stack (no hand-off before it, or
    // a long run of claims by the owner alone since the last one): show
    // the frame that called into LLVM.
    if (const void *pc = open.caller_pc) {
      StackTrace one;
      one.pcs.push_back(reinterpret_cast<uintptr_t>(pc));
      rep.other_stack = depot_.Put(std::move(one));
    }
  }
  rep.note = absl::StrCat(
      "argument ", arg + 1, " (", ShortLabel(r), ") belongs to ",
      ShortLabel(ctx), ", which another thread is using right now; an ",
      kProfile.context_type, " must not be used by two threads at once");
  return Report(std::move(rep));
}

// --- cross-context --------------------------------------------------------

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

// --- invalid-transfer -----------------------------------------------------

bool Runtime::ReportSecondOwner(FnId fn, unsigned arg, const void *h,
                                ObjectRecord *r, const ObjectRecord *owner) {
  // Both owners would free it.
  ErrorReport rep = NewReport(ErrorKind::InvalidTransfer, r, h, fn, arg);
  rep.note = absl::StrCat(FnName(fn), " gives away an object that ",
                          ShortLabel(owner), " already owns (since ",
                          FnName(r->rare().owned_via), "): both would free it");
  return Report(std::move(rep));
}

bool Runtime::ReportAttachOfAttached(FnId fn, unsigned arg, const void *h,
                                     ObjectRecord *r, const Container &now,
                                     const std::string &owner) {
  // Two containers would hold it, and both free it.
  ErrorReport rep = NewReport(ErrorKind::InvalidTransfer, r, h, fn, arg);
  rep.note = absl::StrCat(
      FnName(fn), " takes ", now.what, " the caller owns, but ", owner,
      " holds this one: both would free it",
      *now.take_out ? absl::StrCat("; take it out first (", now.take_out, ")")
                    : std::string());
  return Report(std::move(rep));
}

// --- wrong-handle-kind ----------------------------------------------------

ArgVerdict Runtime::ReportWrongKind(FnId fn, unsigned arg, const void *h,
                                    ObjectRecord *r, uint8_t expected) {
  // A live value of another kind: LLVM would cast it unchecked and read the
  // wrong object's fields (undefined behaviour).
  RuntimeSection section;
  ErrorReport rep = NewReport(ErrorKind::WrongHandleKind, r, h, fn, arg);
  rep.expected = kKindExpectations[expected].description;
  rep.note = absl::StrCat(FnName(fn), " expects ", rep.expected,
                          " as argument ", arg + 1, ", but it is ",
                          ShortLabel(r), "; the C API casts it unchecked");
  // (A suppressed report lets the call through: its result is not trusted.)
  return Report(std::move(rep)) ? ArgVerdict::Skip : ArgVerdict::Unverified;
}

} // namespace ownsan
