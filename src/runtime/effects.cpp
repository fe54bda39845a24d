//===- effects.cpp - The effect interpreter -------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Before() and After() read the call's effects (FnInfo, generated from
// src/profiles/llvm_c/ownership.spec) and apply them: frees, transfers,
// returned objects and their owners.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/strings/str_cat.h"

#include <malloc.h>

namespace ownsan {

bool FreesArg(FnId fn, unsigned arg) {
  const FnInfo &info = kFnInfo[fn];
  const Effect *effects = FnEffects(fn);
  for (unsigned i = 0; i < info.num_effects; ++i) {
    EffectKind k = effects[i].kind;
    if (effects[i].arg == arg &&
        (k == EffectKind::Free || k == EffectKind::FreeAttached ||
         k == EffectKind::FreeDetached || k == EffectKind::FreeCallerOwned))
      return true;
  }
  return false;
}

bool Runtime::Before(FnId fn, const void *const *args, void *const *slots) {
  bool hold_back = false;
  const FnInfo &info = kFnInfo[fn];
  const Effect *effects = FnEffects(fn);
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = effects[i];
    if (e.arg == kRet)
      continue; // about the result: After
    const void *h = args[e.arg];
    if (!h)
      continue;
    EffectSite site{fn, e, h, args, slots, nullptr, false};
    BeforeVerdict v = BeforeVerdict::kForward;
    switch (e.kind) {
    case EffectKind::CauseText:
      v = BeforeCauseText(site);
      break;
    case EffectKind::Free:
    case EffectKind::FreeAttached:
    case EffectKind::FreeDetached:
    case EffectKind::FreeCallerOwned:
      v = BeforeFree(site);
      break;
    case EffectKind::Own:
    case EffectKind::OwnByOut:
    case EffectKind::ConsumeIfOk:
    case EffectKind::ConsumeIfFailed:
      v = BeforeGiveAway(site);
      break;
    case EffectKind::Consume:
      v = BeforeConsume(site);
      break;
    case EffectKind::Attach:
    case EffectKind::AttachAtBuilder:
      v = BeforeAttach(site);
      break;
    case EffectKind::FreeMessage:
    case EffectKind::FreeErrorMessage:
      v = BeforeFreeString(site);
      break;
    default:
      break; // the other effects act after the call
    }
    if (v == BeforeVerdict::kSkip)
      return true;
    hold_back |= v == BeforeVerdict::kHoldBack;
  }
  return hold_back;
}

Runtime::BeforeVerdict Runtime::BeforeCauseText(const EffectSite &s) {
  // Case: a call that may delete values by itself (a pass pipeline): its
  // text goes into the cause of whatever it deletes.
  CurrentCall().cause_text = static_cast<const char *>(s.h);
  return BeforeVerdict::kForward;
}

Runtime::BeforeVerdict Runtime::BeforeFree(const EffectSite &s) {
  const Effect &e = s.e;
  const void *h = s.h;
  if (e.kind == EffectKind::FreeCallerOwned) {
    // Case: a contract the library does not enforce (it unlinks the object
    // first): a report only when asked for, and the call goes ahead
    // whatever the report says, as it would without ownsan.
    if (flags_.strict_ownership)
      CheckFreePrecondition(s.fn, e.arg, e.kind, e.arg_type, h);
  } else if (e.kind != EffectKind::Free &&
             CheckFreePrecondition(s.fn, e.arg, e.kind, e.arg_type, h)) {
    return BeforeVerdict::kSkip; // continue mode: not forwarded
  }
  // Case: the binding frees an object. Record the death before LLVM runs,
  // so no other thread can be handed the address first.
  ObjectRecord *r = FindOrAdopt(s.fn, h, e.arg_type);
  if (!r)
    return BeforeVerdict::kForward;
  if (r->owned_by_other) {
    // Case: the object was given away (an engine owns the module): it is
    // not the caller's to free.
    return ReportOwnedFree(s.fn, e.arg, h, r) ? BeforeVerdict::kSkip
                                              : BeforeVerdict::kForward;
  }
  FreeWithDescendants(r, CurrentFreeEvent(r));
  if (e.arg_type == HandleType::MemoryBuffer &&
      r->kind == ObjectKind::MemoryBuffer) {
    // Case: a memory buffer (malloc'ed by LLVM, so operator delete never
    // sees it): hold the whole buffer; it is disposed for real when it
    // leaves the quarantine.
    size_t size = kProfile.buffer_size(h);
    Hold({const_cast<void *>(h), size + 64,
          Quarantine::Chunk::kDisposeMemoryBuffer});
    return BeforeVerdict::kHoldBack;
  }
  if (e.extra == kFreesMallocedArray && r->kind == ObjectKind::Opaque) {
    // Case: a malloc'ed array whose disposer is free(), which ownsan does
    // not see: hold the block, free it when it leaves.
    void *p = const_cast<void *>(h);
    size_t size = malloc_usable_size(p);
    Hold({p, size ? size : 1, Quarantine::Chunk::kFreeMalloced});
    return BeforeVerdict::kHoldBack;
  }
  return BeforeVerdict::kForward;
}

Runtime::BeforeVerdict Runtime::BeforeGiveAway(const EffectSite &s) {
  // Case: giving away an object another one owns already (a module given
  // to a second execution engine): both would free it.
  return CheckSecondOwner(s.fn, s.e.arg, s.h) ? BeforeVerdict::kSkip
                                              : BeforeVerdict::kForward;
}

Runtime::BeforeVerdict Runtime::BeforeAttach(const EffectSite &s) {
  // Case: inserting an object that is in a container already (an operation
  // appended to a block while still in another, an instruction inserted
  // while in a block): both containers would hold, and free, it.
  RuntimeSection section;
  Container now;
  if (!kProfile.container_of(s.h, s.e.arg_type, &now) || !now.parent)
    return BeforeVerdict::kForward;
  ObjectRecord *r = RegisterImpl(s.fn, s.h, s.e.arg_type, 0);
  if (!r)
    return BeforeVerdict::kForward;
  ObjectRecord *p = RegisterImpl(s.fn, now.parent, now.parent_type, 0);
  return ReportAttachOfAttached(s.fn, s.e.arg, s.h, r, now,
                                p ? ShortLabel(p) : std::string(now.noun))
             ? BeforeVerdict::kSkip
             : BeforeVerdict::kForward;
}

Runtime::BeforeVerdict Runtime::BeforeConsume(const EffectSite &s) {
  // Case: the call takes the object (LLVMParseIRInContext frees its
  // buffer; LLVMLinkModules2 destroys its source module). It is dead to
  // the caller from now on, whatever LLVM does with it.
  const void *h = s.h;
  if (CheckSecondOwner(s.fn, s.e.arg, h))
    return BeforeVerdict::kSkip;
  ObjectRecord *r = FindOrAdopt(s.fn, h, s.e.arg_type);
  if (!r)
    return BeforeVerdict::kForward;
  FreeEvent *ev = CurrentFreeEvent(r);
  ev->consumed = true;
  FreeWithDescendants(r, ev);
  auto copy_buffer = r->kind == ObjectKind::MemoryBuffer && s.slots
                         ? ObserverCopyBuffer()
                         : nullptr;
  if (copy_buffer) {
    // A consumed buffer is freed by LLVM with free(), which ownsan cannot
    // see: LLVM gets an identical copy (same contents, same name) and the
    // caller's buffer waits in the quarantine, so its address cannot be
    // reused while the stale handle may be used.
    if (void *copy = copy_buffer(const_cast<void *>(h))) {
      *static_cast<void **>(s.slots[s.e.arg]) = copy;
      size_t size = kProfile.buffer_size(h);
      Hold({const_cast<void *>(h), size + 64,
            Quarantine::Chunk::kDisposeMemoryBuffer});
    }
  }
  return BeforeVerdict::kForward;
}

Runtime::BeforeVerdict Runtime::BeforeFreeString(const EffectSite &s) {
  bool held = false;
  if (FreeString(s.fn, s.e.arg, s.h, s.e.kind == EffectKind::FreeErrorMessage,
                 &held))
    return BeforeVerdict::kSkip;
  return held ? BeforeVerdict::kHoldBack : BeforeVerdict::kForward;
}

void Runtime::After(FnId fn, const void *const *args, const void *ret,
                    bool ok) {
  const FnInfo &info = kFnInfo[fn];
  const Effect *effects = FnEffects(fn);
  // New objects first: an Own effect may name one as the owner.
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = effects[i];
    if (e.kind == EffectKind::New || e.kind == EffectKind::Message ||
        e.kind == EffectKind::UnterminatedMessage ||
        e.kind == EffectKind::ErrorMessage)
      AfterNew({fn, e, nullptr, args, nullptr, ret, ok});
  }
  for (unsigned i = 0; i < info.num_effects; ++i) {
    const Effect &e = effects[i];
    if (e.arg == kRet) {
      if (ret && (e.kind == EffectKind::Own || e.kind == EffectKind::Forget))
        AfterResultBelongsElsewhere({fn, e, ret, args, nullptr, ret, ok});
      continue;
    }
    const void *h = args[e.arg];
    if (!h)
      continue;
    EffectSite site{fn, e, h, args, nullptr, ret, ok};
    switch (e.kind) {
    case EffectKind::Renames:
      AfterRenames(site);
      break;
    case EffectKind::Detach:
      AfterDetach(site);
      break;
    case EffectKind::Attach:
    case EffectKind::AttachAtBuilder:
      AfterAttach(site);
      break;
    case EffectKind::Position:
      AfterPosition(site);
      break;
    case EffectKind::ConsumeIfOk:
    case EffectKind::ConsumeIfFailed:
      AfterConsumeIf(site);
      break;
    case EffectKind::Forget:
      AfterForget(site);
      break;
    case EffectKind::Own:
    case EffectKind::OwnByOut:
      AfterOwn(site);
      break;
    default:
      break;
    }
  }
}

void Runtime::AfterNew(const EffectSite &s) {
  // Case: a new caller-owned object or string, returned or written to an
  // out parameter.
  const Effect &e = s.e;
  const void *obj = s.ret;
  if (e.arg != kRet) {
    // Out parameters are read only when LLVM writes them.
    bool written = e.extra == kWrittenAlways ||
                   (e.extra == kWrittenIfOk && s.ok) ||
                   (e.extra == kWrittenIfFailed && !s.ok);
    if (!written || !s.args[e.arg])
      return;
    obj = *static_cast<const void *const *>(s.args[e.arg]);
  }
  if (!obj)
    return;
  if (e.kind == EffectKind::New) {
    const void *parent = e.other != kNoArg ? s.args[e.other] : nullptr;
    RegisterOpaque(s.fn, obj, e.type, parent);
  } else {
    RegisterString(s.fn, static_cast<const char *>(obj),
                   e.kind == EffectKind::ErrorMessage,
                   e.kind == EffectKind::UnterminatedMessage);
  }
}

void Runtime::AfterRenames(const EffectSite &s) {
  // Case: a value or module got a new name: the one to report once it is
  // freed.
  ObjectRecord *r = LookupLive(s.h);
  if (r && (IsWatchedKind(r->kind) || r->kind == ObjectKind::Module)) {
    RuntimeSection section;
    std::string name =
        IsWatchedKind(r->kind) ? ValueName(s.h, r->kind) : ModuleName(s.h);
    MutexLock lock(&mu_);
    r->name = std::move(name);
  }
}

void Runtime::AfterDetach(const EffectSite &s) {
  // Case: the object left its parent; the caller owns it now.
  RuntimeSection section;
  if (ObjectRecord *r = LookupLive(s.h)) {
    MutexLock lock(&mu_);
    MarkCallerOwned(r);
  }
}

void Runtime::AfterAttach(const EffectSite &s) {
  // Case: a detached object was inserted into a function or block.
  RuntimeSection section;
  const void *parent = s.args[s.e.other];
  if (s.e.kind == EffectKind::AttachAtBuilder && parent)
    parent = kProfile.insert_block(parent);
  ObjectRecord *r = RegisterImpl(s.fn, s.h, HandleType::Value, 0);
  ObjectRecord *p =
      parent ? RegisterImpl(s.fn, parent, HandleType::Value, 0) : nullptr;
  if (r) {
    MutexLock lock(&mu_);
    MarkAttached(r, p);
  }
}

void Runtime::AfterPosition(const EffectSite &s) {
  // Case: the builder was positioned; remember where, so the death of that
  // block or instruction makes the builder's next insertion a report.
  RuntimeSection section;
  const Effect &e = s.e;
  ObjectRecord *b = RegisterImpl(s.fn, s.h, HandleType::Builder, 0);
  const void *block = e.other != kNoArg ? s.args[e.other] : nullptr;
  const void *before = e.extra != kNoArg ? s.args[e.extra] : nullptr;
  ObjectRecord *block_r =
      block ? RegisterImpl(s.fn, block, HandleType::BasicBlock, 0) : nullptr;
  ObjectRecord *before_r =
      before ? RegisterImpl(s.fn, before, HandleType::Value, 0) : nullptr;
  if (b) {
    MutexLock lock(&mu_);
    if (b->state == ObjectState::Live)
      SetPosition(b, before_r ? nullptr : block_r, before_r);
  }
}

void Runtime::AfterConsumeIf(const EffectSite &s) {
  // Case: the call took the object because it succeeded (or, for the
  // execution engine constructors, destroyed it because it failed).
  if (s.ok != (s.e.kind == EffectKind::ConsumeIfOk))
    return;
  RuntimeSection section;
  if (ObjectRecord *r = LookupLive(s.h)) {
    FreeEvent *ev = CurrentFreeEvent(r);
    ev->consumed = true;
    // The call has returned: LLVM may have destroyed the object already (a
    // failed engine constructor does), so its name is not read.
    FreeWithDescendants(r, ev, /*intact=*/false);
  } else if (FreeEvent *ev = CurrentCall().event) {
    // Case: operator delete showed LLVM destroying it during this call (a
    // failed engine constructor): that death was the consumption.
    MutexLock lock(&mu_);
    if (ObjectRecord *f = shadow_.Find(s.h); f && f->freed == ev)
      ev->consumed = true;
  }
}

void Runtime::AfterForget(const EffectSite &s) {
  // Case: handed to a part of LLVM ownsan does not model (an ORC
  // thread-safe module): not the caller's to free, not a leak.
  RuntimeSection section;
  if (ObjectRecord *r = LookupLive(s.h)) {
    MutexLock lock(&mu_);
    MarkOwnedByLLVM(r, s.fn);
  }
}

void Runtime::AfterOwn(const EffectSite &s) {
  // Case: the object now belongs to another (a module given to an
  // execution engine): it dies with its owner and the caller must not free
  // it.
  if (!s.ok)
    return;
  RuntimeSection section;
  // by=ret: the new object the call returned (registered by AfterNew).
  const void *owner = s.e.other == kRet ? s.ret : s.args[s.e.other];
  if (s.e.kind == EffectKind::OwnByOut)
    owner = owner ? *static_cast<const void *const *>(owner) : nullptr;
  ObjectRecord *r = FindOrAdopt(s.fn, s.h, s.e.arg_type);
  ObjectRecord *o = owner ? LookupLive(owner) : nullptr;
  if (r && o) {
    MutexLock lock(&mu_);
    MarkOwnedBy(r, o, s.fn);
  }
}

void Runtime::AfterResultBelongsElsewhere(const EffectSite &s) {
  FnId fn = s.fn;
  const Effect &e = s.e;
  const void *const *args = s.args;
  const void *ret = s.ret;
  RuntimeSection section;
  ObjectRecord *owner = nullptr;
  if (e.kind == EffectKind::Own) {
    owner = args[e.other] ? LookupLive(args[e.other]) : nullptr;
    if (!owner)
      return; // an owner we never saw: nothing to tie the result to
  }
  // The result may be known already: getters (LLVMOrcLLJITGetMainJITDylib)
  // return the same object on every call.
  ObjectRecord *r = LookupLive(ret);
  if (!r) {
    auto type = static_cast<HandleType>(e.extra); // see Effect::extra
    if (type == HandleType::Other)
      RegisterOpaque(fn, ret, e.type, nullptr);
    else
      RegisterImpl(fn, ret, type, 0);
    r = LookupLive(ret);
    if (!r)
      return;
  }
  MutexLock lock(&mu_);
  if (r->state != ObjectState::Live)
    return;
  if (owner) {
    // Case: own(ret,by=J): the result dies with J (an LLJIT's execution
    // session, main JITDylib and layers) and is not the caller's to free.
    MarkOwnedBy(r, owner, fn);
  } else {
    // Case: forget(ret): the result belongs to a part of LLVM ownsan does
    // not model (the context of a thread-safe context, shared with every
    // thread-safe module made from it).
    MarkOwnedByLLVM(r, fn);
  }
}

bool Runtime::CheckSecondOwner(FnId fn, unsigned arg, const void *h) {
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
  return ReportSecondOwner(fn, arg, h, r, owner);
}

bool Runtime::CheckFreePrecondition(FnId fn, unsigned arg, EffectKind kind,
                                    HandleType type, const void *h) {
  RuntimeSection section;
  // (The precondition concerns removable objects only: instructions,
  // blocks, ifuncs.)
  Container now;
  if (!kProfile.container_of(h, type, &now))
    return false;
  const void *parent = now.parent;
  const char *what = now.what, *container = now.noun;
  bool attached = parent != nullptr;
  if (attached == (kind == EffectKind::FreeAttached))
    return false;
  ObjectRecord *r = RegisterImpl(fn, h, type, 0);
  if (!r)
    return false;
  if (attached) {
    // Case: freeing a detached-only object that still has an owner.
    ObjectRecord *p = RegisterImpl(fn, parent, now.parent_type, 0);
    return ReportFreeOfAttached(fn, arg, h, r, what,
                                p ? ShortLabel(p) : std::string(container),
                                kind == EffectKind::FreeCallerOwned);
  }
  // Case: an erase-style call on an object with no parent.
  return ReportFreeOfDetached(fn, arg, h, r, what, container);
}

} // namespace ownsan
