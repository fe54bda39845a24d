//===- tracker_registration.cpp - The tracker: state machine, registration ===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Registration and classification of handles LLVM hands out, address
// reuse, dropped objects.
//
// HANDLE STATES
//
//   unknown --Register/adopt--> LIVE --free--> FREED(matched) --alloc-->
//   FREED(expired)
//                                 |                  |
//                                 |                  +--LLVM returns the same
//                                 |                     address again: the old
//                                 |                     record expires, a new
//                                 |                     LIVE record starts
//                                 +--memory reallocated under an unwatched
//                                    object (it died behind our back): dropped
//
//   unknown  the program has a handle the runtime never saw LLVM hand out
//            (made by C++ code in a binding, say). Arguments that are
//            unknown are let through: nothing is known to be wrong.
//   LIVE     in the OwnershipGraph, with kind, last known parent, creating
//            call and stack. Values are watched: their granule is set in
//            the kLiveValues granules (until they die), which operator
//            delete consults.
//   FREED    in the ShadowMap, keyed by the old address, with the FreeEvent
//            (freeing call, its target, stack, thread). Any use of the
//            address is reported; so is a second free.
//   expired  the record stays (reports about other objects may name it) but
//            no longer matches its address.
//   evicted  the record is gone (history_size_mb); while its address is
//            evicted-matched a use is still reported, with its kind only
//            and a note that its history is gone.
//
// WHO MAKES EACH TRANSITION
//
//   unknown -> LIVE     Register(): a wrapper saw LLVM return the handle
//                       (return value, Out parameter, out array); the
//                       parents are registered first (the profile's classify).
//   LIVE -> FREED       Before() of a spec'd free (the binding disposes):
//                       recorded *before* the call is forwarded, with the
//                       unwatched descendants (a context's modules and
//                       types). Watched descendants (values) follow from
//                       ValuesDied() while LLVM destroys them.
//   LIVE -> FREED       ValuesDied() / FlushDeaths(): operator delete (or
//                       the sanitizer free hook) releases a block that holds
//                       a watched value: LLVM destroyed it, during any call
//                       (a parent's dispose, a pass) or outside one. Inside
//                       a wrapped call the block is held and the deaths are
//                       recorded in a batch (DeferDeaths) at the latest when
//                       the call returns, before its after-effects and
//                       before a callback's nested call (which leaves the
//                       blocks to the call that deferred them). Every Value is
//                       deleted that way, and a block being released holds
//                       no live object, so each watched record in the block
//                       died.
//   LIVE -> FREED       UnwatchedDied(): operator delete (or the sanitizer
//                       free hook) releases a block holding an unwatched
//                       live object (a module an execution engine built in
//                       C++ deleted): it died, with its unwatched
//                       descendants, under the running call (batched with
//                       the values' deaths inside a wrapped call).
//   FREED -> expired    OnAllocation(): operator new returned memory that
//                       covers the address; or Register() saw LLVM hand the
//                       address out again.
//   FREED -> evicted    EvictHistory() (from NewRecord): a new object
//                       needs a record while the freed and dropped
//                       records, with the free events they pay for
//                       (HistoryEntry), exceed history_size_mb; the oldest
//                       go until half of it is left (so deaths with no
//                       registration after them, a program's last dispose,
//                       evict nothing). A matched address stays matched,
//                       by an entry that keeps only the kind
//                       (evicted-matched); an expired one is forgotten.
//                       Every reference to the record (parents,
//                       predecessors, builder positions, free event
//                       targets, context slots) is cleared, then its slot
//                       is reused by a new LIVE record. Not while a report
//                       reads freed records outside mu_ (HistoryPin).
//   evicted-matched -> gone  as FREED -> expired, but no predecessor is
//                       named: operator new over the address, or LLVM
//                       handing it out again.
//   LIVE -> dropped     OnAllocation() over an unwatched LIVE object: it
//                       died where the runtime could not see (its memory was
//                       not released through operator delete).
//
// INVARIANTS
//
//   * An address is LIVE in at most one record and FREED-matched (by a
//     record or an evicted entry) at most once; never both.
//   * No record, event or context slot refers to an evicted record: its
//     slot may already describe another object. Freed records read outside
//     mu_ are pinned (HistoryPin) against eviction.
//   * A FREED-matched address has not been returned by operator new since
//     the object died, so it cannot name a newer object: a report on it is
//     never a false positive.
//   * No lock is held while calling into LLVM (LLVM calls back into the
//     runtime from ~Value).
//   * LLVM is only asked about objects that are alive: handles the running
//     call was given or returned, and, when an object dies, the names of
//     its values (whose deaths operator delete shows) and of its context's
//     types. Module names are kept from registration and renames.
//   * No exception leaves the runtime: its allocations end the process
//     with one line when memory runs out (OwnsanOutOfMemory).
//
//
//===----------------------------------------------------------------------===//

#include "runtime/profile.h"
#include "runtime/record_cache.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ownsan {

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void Runtime::Register(FnId fn, const void *h, HandleType type) {
  if (!h || type == HandleType::Other)
    return;
  // Fast path: an object this thread handled recently (the record cache).
  // (LLVMIsA* results are not registered at all; a cached one is known.)
  ObjectRecord *r = CachedLive(h);
  if (r && type != HandleType::Error &&
      IsWatchedKind(r->kind) == IsWatchedType(type)) {
    // (See CallScope::Returned.) The handle goes last: a signal handler's
    // call that finds it finds its record and type too.
    LastReturned &last = tls_last_returned;
    last.handle = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    last.record = r;
    last.type = type;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    last.handle = h;
    return;
  }
  RegisterSlow(fn, h, type);
}

void Runtime::RegisterSlow(FnId fn, const void *h, HandleType type) {
  if (kFnFlags[fn] & kFnIsCast)
    return;
  if (type == HandleType::Error) {
    // Case: LLVM handed out an error; the caller must consume it.
    RegisterOpaque(fn, h, HandleTypeCType(HandleType::Error), nullptr);
    return;
  }
  bool want_value = IsWatchedType(type);
  // Case: a value at an address that never held a live value (its filter
  // bit is clear): new, no need to look it up. Otherwise it may be one we
  // know, though this thread has not seen it lately.
  if (!want_value || granules_.MaybeContains(h, kLiveValues)) {
    ObjectRecord *r = LookupLive(h);
    if (r && IsWatchedKind(r->kind) == want_value)
      return;
  }
  RuntimeSection section;
  RegisterImpl(fn, h, type, 0, /*looked_up=*/true);
}

ObjectRecord *Runtime::RegisterImpl(FnId fn, const void *h, HandleType type,
                                    int depth, bool looked_up) {
  if (!h || depth > 8)
    return nullptr;
  // (Register has just looked; the locked check below catches a thread
  // that registered the object since.)
  if (ObjectRecord *r = looked_up ? nullptr : LookupLive(h)) {
    bool want_value = IsWatchedType(type);
    if (type == HandleType::Other || IsWatchedKind(r->kind) == want_value)
      return r;
  }
  if (type == HandleType::Other)
    return nullptr;
  Classification c = kProfile.classify(h, type);
  if (c.kind == ObjectKind::Unknown)
    return nullptr;
  // (The parent is nearly always one this thread has just used: cached.)
  ObjectRecord *parent = c.parent ? CachedLive(c.parent) : nullptr;
  if (c.parent &&
      (!parent || IsWatchedKind(parent->kind) != IsWatchedType(c.parent_type)))
    parent = RegisterImpl(fn, c.parent, c.parent_type, depth + 1);
  bool is_global = false;
  if (c.kind == ObjectKind::Context) {
    const void *global = global_context_.load(std::memory_order_acquire);
    if (!global) {
      global = kProfile.global_root();
      // The global context is a static LLVM destroys at exit, with the
      // modules left in it: those are leaks, not deaths C++ code caused.
      // (Registered after the static's destructor, so it runs before it.)
      if (!global_context_.exchange(global, std::memory_order_acq_rel))
        atexit([] {
          Runtime::Get().exiting_.store(true, std::memory_order_relaxed);
        });
    }
    is_global = h == global;
  }
  // A value's name is what a report calls it once it is freed (its memory
  // is gone by the time ownsan learns of the death); renames update it. A
  // module's is kept from now on (and after LLVMSetModuleIdentifier): never
  // read when the module dies, since C++ code may have freed it by then.
  // (Made in place: a short string moved into another is copied again.)
  std::string name = OwnershipGraph::IsWatched(c.kind) ? ValueName(h, c.kind)
                     : c.kind == ObjectKind::Module    ? ModuleName(h)
                                                       : std::string();
  // Adopted objects (depth > 0: parents) were not created by this call.
  bool created_here = depth == 0;
  StackId stack = created_here ? CurrentCallStack() : 0;
  ObjectRecord *r;
  {
    MutexLock lock(&mu_);
    if (ObjectRecord *existing = FindLive(h)) {
      if (IsWatchedKind(existing->kind) == IsWatchedKind(c.kind))
        return existing; // another thread registered it meanwhile
      // Case: a stale unwatched record at an address LLVM now hands out as
      // another kind of object: the old one died unseen.
      DropUnseen(existing);
    }
    r = NewRecord(h, c.kind, parent, /*linked=*/true);
    r->is_global_context = is_global;
    r->name = std::move(name);
    if (created_here) {
      r->created_by = fn;
      r->create_stack = stack;
      r->create_thread = CurrentThreadNumber();
    } else {
      r->MutableRare().first_seen_in = fn; // (adopted: rare)
    }
  }
  CacheNewRecord(h, r); // the program is about to use it
  return r;
}

void Runtime::DropUnseen(ObjectRecord *r) {
  for (ObjectRecord *d : graph_.Remove(r)) {
    d->state.store(ObjectState::Freed, std::memory_order_release);
    if (OwnershipGraph::IsWatched(d->kind))
      granules_.Remove(d->addr, kLiveValues);
    d->address_reused = true;
    AddToHistory(d); // (matched nowhere, but reports may name it)
  }
}

void Runtime::EvictHistory() {
  if (history_pins_.load(std::memory_order_acquire) > 0)
    return; // (a report is reading freed records: next time)
  // (The event details it frees are the runtime's, not program memory.)
  RuntimeSection section;
  // The oldest records are cold: each is a cache miss, twice (here and
  // when its slot is recycled below) unless fetched ahead. They stay in
  // the history until then (no batch of their own: a vector the size of
  // half the bound was paged in at every first eviction).
  constexpr size_t kAhead = 8;
  AddressIndex::Cursor cursor;
  // (The entry kAhead past `from`, or `limit` if it comes first.)
  auto ahead_of = [](auto from, auto limit) {
    for (size_t k = 0; k < kAhead && from != limit; ++k)
      ++from;
    return from;
  };
  auto end = history_.begin(), ahead = ahead_of(end, history_.end());
  while (history_bytes_ > history_limit_ / 2 && end != history_.end()) {
    if (ahead != history_.end())
      __builtin_prefetch((ahead++)->record(), 1);
    ObjectRecord *r = end->record();
    history_bytes_ -= end->bytes();
    ++end;
    // A use of the address is still stale while it stays matched.
    shadow_.Evict(r, r->freed && r->freed->consumed, &cursor);
    r->state.store(ObjectState::Evicted, std::memory_order_relaxed);
  }
  // Nothing may refer to an evicted record once its slot is reused: the
  // references of every other record, and of every free event, are
  // cleared. (One pass over all records per eviction of half the bound.)
  auto evicted = [](const ObjectRecord *p) {
    return p &&
           p->state.load(std::memory_order_relaxed) == ObjectState::Evicted;
  };
  // (The slots stream in; the parents they name are anywhere: fetched
  // ahead.)
  graph_.ForEachRecord(
      [&](ObjectRecord *r) {
        if (r->state.load(std::memory_order_relaxed) == ObjectState::Evicted)
          return;
        if (evicted(r->parent))
          r->parent = nullptr;
        if (r->context_use && evicted(r->context_use->record))
          r->context_use = nullptr;
        if (RecordExtra *x = r->OwnExtra())
          for (ObjectRecord **ref : {&x->previous, &x->insert_block,
                                     &x->insert_before, &x->insert_point_freed})
            if (evicted(*ref))
              *ref = nullptr;
      },
      [](const ObjectRecord *r) { __builtin_prefetch(r->parent); });
  ForEachFreeEvent([&](FreeEvent *ev) {
    if (evicted(ev->target))
      ev->target = nullptr;
  });
  absl::erase_if(inherited_, evicted);
  ahead = ahead_of(history_.begin(), end);
  // The records of one death batch are next to each other in the history
  // and share its event: one release (a locked instruction) a run.
  FreeEvent *run_event = nullptr;
  uint32_t run = 0;
  for (auto it = history_.begin(); it != end; ++it) {
    ObjectRecord *r = it->record();
    if (ahead != end)
      __builtin_prefetch((ahead++)->record(), 1);
    if (r->freed != run_event) {
      if (run_event)
        ReleaseFreeEvent(run_event, run);
      run_event = const_cast<FreeEvent *>(r->freed);
      run = 0;
    }
    ++run;
    r->freed = nullptr;
    r->ReleaseHistory();
    graph_.Recycle(r);
  }
  if (run_event)
    ReleaseFreeEvent(run_event, run);
  evicted_ += end - history_.begin();
  history_.erase(history_.begin(), end);
}

ObjectRecord *Runtime::NewRecord(const void *h, ObjectKind kind,
                                 ObjectRecord *parent, bool linked) {
  if (history_bytes_ > history_limit_) {
    // Case: the history is over its bound and a record is wanted: the
    // oldest go now, when their slots can be reused, rather than when
    // objects die (a program that frees everything at its end would pay
    // for evicting records no object will ever need).
    EvictHistory();
    // (A parent found before the lock may have died and gone since.)
    if (parent &&
        parent->state.load(std::memory_order_relaxed) == ObjectState::Evicted)
      parent = nullptr;
  }
  // Its bits, which readers test without the lock.
  if (OwnershipGraph::IsWatched(kind)) {
    granules_.Add(h, kLiveValues); // its deletion is seen by operator delete
  } else {
    granules_.Add(h, kReuseWatched); // its death may go unseen: new memory
  }
  ObjectRecord *displaced;
  ObjectRecord *r = graph_.Add(h, kind, parent, &displaced);
  bool matched;
  ObjectRecord *old = shadow_.Displaced(displaced, &matched);
  if (!linked)
    return r;
  // Case: LLVM hands out a freed address again: a new object lives there;
  // stale copies of the handle now alias it. (Otherwise: the address was
  // reallocated earlier, by operator new, and this is the object that got
  // it; or the old object's history was evicted.)
  if (old && matched)
    old->address_reused = true;
  if (old)
    r->MutableRare().previous = old; // (generation() counts the chain)
  return r;
}

void Runtime::RegisterOpaque(FnId fn, const void *h, const char *type,
                             const void *parent) {
  // Case: a new caller-owned object of a kind the spec names (an engine,
  // a binary, an iterator...). Its parent, if any, owns its lifetime.
  RuntimeSection section;
  ObjectRecord *p = parent ? LookupLive(parent) : nullptr;
  StackId stack = CurrentCallStack();
  MutexLock lock(&mu_);
  if (ObjectRecord *old = FindLive(h))
    DropUnseen(old); // live as something we did not see die
  ObjectRecord *r = NewRecord(h, ObjectKind::Opaque, p, /*linked=*/true);
  r->SetTypeName(type);
  CacheNewRecord(h, r); // the program is about to use it
  r->created_by = fn;
  r->create_stack = stack;
  r->create_thread = CurrentThreadNumber();
}

namespace {
// The bytes a report shows of a lent string.
constexpr size_t kLentStringShown = 64;
} // namespace

void Runtime::RegisterLentString(FnId fn, const char *data, size_t length,
                                 const void *context) {
  // Case: bytes a context owns (strings.cpp). Fast path: a string this
  // thread saw lent lately.
  if (ObjectRecord *r = CachedLive(data))
    if (r->kind == ObjectKind::LentString)
      return;
  RuntimeSection section;
  ObjectRecord *ctx = FindOrAdopt(fn, context, HandleType::Context);
  if (!ctx || ctx->kind != ObjectKind::Context)
    return;
  // Case: the address is another live object's (not a string a context
  // owns, whatever the call says): nothing to judge.
  if (ObjectRecord *r = LookupLive(data); r)
    return;
  // (The context is live and owns the bytes: they can be read now, and
  // only now.)
  std::string text(data, std::min(length, kLentStringShown));
  StackId stack = CurrentCallStack();
  MutexLock lock(&mu_);
  if (FindLive(data))
    return; // (another thread registered it meanwhile)
  ObjectRecord *r =
      NewRecord(data, ObjectKind::LentString, ctx, /*linked=*/true);
  r->name = text;
  CacheNewRecord(data, r);
  r->created_by = fn;
  r->create_stack = stack;
  r->create_thread = CurrentThreadNumber();
  lent_string_pages_.Add(data);
}

ObjectRecord *Runtime::FindOrAdopt(FnId fn, const void *h, HandleType type) {
  if (ObjectRecord *r = LookupLive(h))
    return r;
  // Case: an untyped handle (an iterator, a binary...) ownsan never saw
  // handed out: a kind it cannot classify; let it through.
  if (type == HandleType::Other || type == HandleType::Error)
    return nullptr;
  // Case: the binding frees (or gives away) an object it got from code we
  // do not see. Adopt it now, as the C type of the argument the spec's
  // effect names (it is still intact), so later uses can be reported.
  RuntimeSection section;
  return RegisterImpl(fn, h, type, 1);
}

void Runtime::RegisterString(FnId fn, const char *s, bool error_message,
                             bool unterminated) {
  // Case: LLVM handed out a string the caller must release (with
  // LLVMDisposeMessage, or LLVMDisposeErrorMessage for error messages).
  // An unterminated one (LLVMGetRelocationTypeName) is never read: its
  // bytes end with the malloc block, with no NUL.
  RuntimeSection section;
  StackId stack = CurrentCallStack();
  MutexLock lock(&mu_);
  if (ObjectRecord *old = FindLive(s))
    DropUnseen(old); // live as something we did not see die
  ObjectRecord *r = NewRecord(
      s, error_message ? ObjectKind::ErrorMessage : ObjectKind::Message,
      nullptr, /*linked=*/false); // (a string names no predecessor)
  if (unterminated)
    r->MutableRare().unterminated = true;
  // A short excerpt names it in reports.
  size_t n = unterminated ? 0 : strnlen(s, 41);
  std::string excerpt(s, n > 40 ? 40 : n);
  if (n > 40)
    excerpt += "...";
  r->name = excerpt;
  r->created_by = fn;
  r->create_stack = stack;
  r->create_thread = CurrentThreadNumber();
}

//===----------------------------------------------------------------------===//
// Ownership sub-states of a LIVE record
//
//   caller-owned     the program must dispose it (or give it away):
//                    created by a *Create* call, or detached
//                    (MarkCallerOwned: LLVMRemoveModule, an erase-less
//                    remove from parent).
//   owned by object  `parent` frees it with itself, owned_by_other: given
//                    away by a call (MarkOwnedBy: a module to an engine,
//                    own(ret,by=J)); a value or block inserted into a
//                    parent (MarkAttached) dies with the parent too.
//   owned by LLVM    owner_untracked: given to a part of LLVM ownsan does
//                    not model (MarkOwnedByLLVM: forget, a thread-safe
//                    module); neither the caller's to free nor a leak.
//   consumed         the call took it and destroyed it (FreeEvent::consumed
//                    on its death, in Before/After): LIVE -> FREED.
//===----------------------------------------------------------------------===//

void Runtime::MarkCallerOwned(ObjectRecord *r) {
  graph_.SetParent(r, nullptr);
  r->owned_by_other = false;
}

void Runtime::MarkAttached(ObjectRecord *r, ObjectRecord *parent) {
  graph_.SetParent(r, parent);
}

void Runtime::MarkOwnedBy(ObjectRecord *r, ObjectRecord *owner, FnId via) {
  if (owner && owner != r)
    graph_.SetParent(r, owner);
  r->owned_by_other = true;
  r->MutableRare().owned_via = via;
}

void Runtime::MarkOwnedByLLVM(ObjectRecord *r, FnId via) {
  r->owned_by_other = true;
  r->owner_untracked = true;
  r->MutableRare().owned_via = via;
}

} // namespace ownsan
