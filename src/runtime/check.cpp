//===- check.cpp - The per-call check (the fast path) ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CallScope's verbs and Runtime::CheckHandle with its per-thread record
// cache. Kept in one translation unit so the check inlines.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/record_cache.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

namespace ownsan {

// (The cache itself: record_cache.h.)
__thread RecordCacheSet
    tls_record_cache[1u << kRecordCacheBits] OWNSAN_TLS_MODEL;
__thread uint32_t tls_record_cache_rng OWNSAN_TLS_MODEL;

inline bool Runtime::CheckHandle(FnId fn, unsigned arg, const void *h,
                                 HandleType type) {
  // Fast path: a handle naming a live object of a kind the parameter can
  // take. A live address is never freed-matched too (see INVARIANTS), so
  // the shadow map has nothing to say; what is left is the context (or, for
  // a builder, its insertion point).
  if (type == HandleType::Other) {
    // Case: an untyped handle (an array or iterator LLVM handed out) that
    // names a live object: nothing else to check.
    if (CachedLive(h))
      return false;
  } else {
    ObjectRecord *r = CachedLive(h);
    if (r && Compatible(r->kind, type)) {
      if (type == HandleType::Builder)
        return (kFnFlags[fn] & kFnUsesInsertionPoint) &&
               dangling_builders_.MaybeContains(h) &&
               CheckInsertionPoint(fn, arg, h);
      if (ContextUse *use = r->context_use;
          use && type != HandleType::MemoryBuffer && !ContextExempt(fn, arg))
        return CheckContext(fn, arg, h, r, use);
      return false;
    }
  }
  return CheckHandleSlow(fn, arg, h, type);
}

ObjectRecord *Runtime::LookupLive(const void *h) {
  if (ObjectRecord *r = CachedLive(h))
    return r;
  if (!MaybeLive(h))
    return nullptr; // (no filter bit: never registered)
  RuntimeSection section;
  ObjectRecord *r;
  {
    ReaderMutexLock lock(&mu_);
    r = graph_.Find(h);
  }
  CacheRecord(h, r);
  return r;
}

bool Runtime::CheckHandleSlow(FnId fn, unsigned arg, const void *h,
                              HandleType type) {
  // The shadow map's filter is atomic and read without the lock, by design
  // (core/shadow_map.h); what it lets through is looked up under the lock.
  if (ABSL_TS_UNCHECKED_READ(shadow_).MaybeContains(h)) {
    RuntimeSection section;
    ObjectRecord *freed = nullptr, *now = nullptr;
    FreedAt found;
    HistoryPin pin(this);
    {
      MutexLock lock(&mu_);
      // (A freed object of a kind this parameter cannot name says nothing:
      // its memory may hold an object LLVM made with malloc, a memory
      // buffer, which the allocation hook does not see.)
      found = FindFreedLocked(
          h, [type](ObjectKind k) { return Compatible(k, type); }, &pin);
      freed = found.record;
      if (!freed && type != HandleType::Other) {
        // Case: LLVM has handed the address to a new object, but of a kind
        // this parameter cannot take, and an object of the right kind died
        // here before: the handle is that dead object's stale copy.
        ObjectRecord *live = graph_.Find(h);
        if (live && !Compatible(live->kind, type))
          for (ObjectRecord *p = live->rare().previous; p && !freed;
               p = p->rare().previous)
            if (Compatible(p->kind, type)) {
              freed = p;
              now = live;
            }
      }
      if (freed)
        pin.Take(); // (read below, without the lock)
    }
    if (found.evicted)
      return ReportEvicted(fn, arg, h, found.what);
    if (freed && FreesArg(fn, arg) && freed->kind == ObjectKind::Opaque &&
        !freed->owned_by_other && freed->freed &&
        freed->freed->target != freed && !freed->freed->consumed) {
      // Case: an object that died with its owner but is a separate
      // allocation (a section iterator after LLVMDisposeObjectFile): using
      // it is a use after free, disposing it once is not.
      MutexLock lock(&mu_);
      if (!freed->rare().disposed_late) {
        freed->MutableRare().disposed_late = true;
        return false;
      }
    }
    if (freed) {
      // Case: the handle names an object that died, and no object has been
      // created at its address since (the quarantine holds the memory).
      // Any use is a use after free; a second free is a double free.
      return ReportFreedUse(fn, arg, h, freed, now);
    }
  }
  if (type == HandleType::Builder && (kFnFlags[fn] & kFnUsesInsertionPoint) &&
      dangling_builders_.MaybeContains(h))
    return CheckInsertionPoint(fn, arg, h);
  if (type != HandleType::Other && !MaybeLive(h)) {
    // Case: a handle ownsan never saw handed out (made by C++ code, wrap()):
    // nothing is known, nothing is checked. Counted for the unseen-handles
    // blind spot (blind_spots.cpp). (Only this thread writes the counter.)
    std::atomic<uint64_t> &unseen = tls_call_state.unseen_handle_args;
    unseen.store(unseen.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
    return false;
  }
  if (type != HandleType::Other && type != HandleType::Builder &&
      type != HandleType::MemoryBuffer && !ContextExempt(fn, arg)) {
    ObjectRecord *r = LookupLive(h);
    if (r && r->context_use)
      return CheckContext(fn, arg, h, r, r->context_use);
  }
  return false;
}

namespace {
bool KindExpected(uint8_t expected, ObjectKind k) {
  return (kKindExpectations[expected].kinds >> static_cast<unsigned>(k)) & 1;
}
} // namespace

ArgVerdict Runtime::CheckKindedHandle(FnId fn, unsigned arg, const void *h,
                                      HandleType type, uint8_t expected) {
  if (CheckHandle(fn, arg, h, type))
    return ArgVerdict::Skip;
  ObjectRecord *r = LookupLive(h);
  // Case: a handle ownsan never saw handed out (made by C++ code, or not
  // an LLVM object at all), or a record of an unwatched kind, which may
  // have died unseen: nothing is known. The call goes ahead.
  if (!r || !IsWatchedKind(r->kind))
    return ArgVerdict::Unverified;
  if (KindExpected(expected, r->kind))
    return ArgVerdict::Ok;
  return ReportWrongKind(fn, arg, h, r, expected);
}

//===----------------------------------------------------------------------===//
// CallScope (interpose/wrapper_api.h)
//===----------------------------------------------------------------------===//

// Wrapped calls are checked only once the library constructor has made
// the runtime (g_enabled), so g_runtime is set here. (Not inlined into
// CheckHandleArg, which would then need a frame.)
__attribute__((noinline)) bool CallScope::CheckHandleArgFully(FnId fn,
                                                              unsigned arg,
                                                              const void *h,
                                                              HandleType type) {
  return g_runtime.load(std::memory_order_relaxed)
      ->CheckHandle(fn, arg, h, type);
}

// The fast path of the per-call check (of a type HasFastCheck accepts):
// the live record of a handle naming an object of the parameter's own
// kind, from the thread's record cache, or nullptr.
namespace {
[[gnu::always_inline]] inline ObjectRecord *CachedOfType(const void *h,
                                                         HandleType type) {
  // (LLVMGetNextInstruction(prev): the argument the call before returned.)
  const ObjectRecord *last = LastReturnedLive(h);
  ObjectRecord *r = last ? const_cast<ObjectRecord *>(last) : CachedLive(h);
  return r && kKindHandleTypes[static_cast<uint8_t>(r->kind)] == type ? r
                                                                      : nullptr;
}

// ... and CheckContext's common case for it: the context is this call's
// already, or this thread owns it (true: decided, nothing to report).
[[gnu::always_inline]] inline bool ContextDecided(FnId fn, unsigned arg,
                                                  const ObjectRecord *r) {
  ContextUse *use = r->context_use;
  if (!use)
    return true;
  CallContext &call = tls_call;
  ObjectRecord *ctx = use->record;
  if (call.context == ctx)
    return true; // (exempt or not: nothing to check)
  uint32_t me = tls_thread_number_plus_one;
  if (!call.context && me != 0 &&
      use->owner.load(std::memory_order_relaxed) == me &&
      use->stack_claims_left.load(std::memory_order_relaxed) == 0 &&
      !ContextExempt(fn, arg)) {
    // The owner's claim, as CheckContext makes it.
    call.context_arg = arg;
    __atomic_store_n(&call.context, ctx, __ATOMIC_RELEASE);
    return true;
  }
  return false;
}
} // namespace

// Most checked calls: decided with no frame of its own; everything else is
// left to the full check, a tail call. Same verdicts, same writes.
bool CallScope::CheckHandleArg(FnId fn, unsigned arg, const void *h,
                               HandleType type) {
  if (const ObjectRecord *r = CachedOfType(h, type);
      r && ContextDecided(fn, arg, r))
    return false;
  return CheckHandleArgFully(fn, arg, h, type);
}

__attribute__((noinline)) ArgVerdict CallScope::CheckKindedArgFully(
    FnId fn, unsigned arg, const void *h, HandleType type, uint8_t expected) {
  return g_runtime.load(std::memory_order_relaxed)
      ->CheckKindedHandle(fn, arg, h, type, expected);
}

// The same for an argument whose kind is checked (CheckKindedHandle): a
// watched record of an expected kind is Ok once its context is.
ArgVerdict CallScope::CheckKindedArg(FnId fn, unsigned arg, const void *h,
                                     HandleType type, uint8_t expected) {
  if (const ObjectRecord *r = CachedOfType(h, type);
      r && IsWatchedKind(r->kind) && KindExpected(expected, r->kind) &&
      ContextDecided(fn, arg, r))
    return ArgVerdict::Ok;
  return CheckKindedArgFully(fn, arg, h, type, expected);
}

void CallScope::RegisterResult(FnId fn, const void *h, HandleType type) {
  g_runtime.load(std::memory_order_relaxed)->Register(fn, h, type);
}

void CallScope::CheckArray(unsigned arg, const void *const *hs, size_t n,
                           HandleType type) {
  if (!hs)
    return;
  for (size_t i = 0; i < n; ++i)
    CheckHandle(arg, hs[i], type);
}

void CallScope::Before(const void *const *args) {
  // A call already held back by a report has no effects.
  if (!skip_)
    skip_ = Runtime::Get().Before(fn_, args, nullptr);
}

void CallScope::Before(const void *const *args, void *const *slots) {
  if (!skip_)
    skip_ = Runtime::Get().Before(fn_, args, slots);
}

void CallScope::After(const void *const *args, const void *ret, bool ok) {
  // Deaths during the call come first: after-effects (a consumed module's
  // teardown) see the values LLVM has already destroyed as freed.
  if (tls_call_state.pending_deaths)
    FlushDeaths();
  Runtime::Get().After(fn_, args, ret, ok);
}

void CallScope::FlushDeaths() { Runtime::Get().FlushDeaths(); }

void CallScope::OutArray(unsigned, const void *const *hs, size_t n,
                         HandleType type) {
  if (!hs || unverified_)
    return; // (see Returned)
  for (size_t i = 0; i < n; ++i)
    Runtime::Get().Register(fn_, hs[i], type);
}

} // namespace ownsan
