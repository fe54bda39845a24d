//===- tracker_deaths.cpp - The tracker: LIVE -> FREED --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Deaths: explicit frees with their descendants, values LLVM deleted
// (operator delete asks TakeIntoQuarantine), batched per call; expiry when
// memory is allocated again; the history bound (eviction). See the state
// machine in tracker_registration.cpp.
//
//===----------------------------------------------------------------------===//

#include "core/tls_model.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/container/inlined_vector.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace ownsan {

void Runtime::FreeWithDescendants(ObjectRecord *root, FreeEvent *ev,
                                  bool intact) {
  RuntimeSection section;
  std::vector<ObjectRecord *> dying;
  std::vector<std::pair<size_t, std::string>> renamed;
  MutexLock lock(&mu_);
  if (root->state != ObjectState::Live)
    return;
  // Case: a root whose death ends the watched objects below it although
  // the library frees none of them (MLIR's operations and blocks point into
  // their dead context): they die with it, now.
  std::vector<ObjectRecord *> ended;
  if (KindEndsWatchedDescendants(root->kind)) {
    graph_.ForEachLive([&](ObjectRecord *r) {
      if (IsWatchedKind(r->kind))
        for (const ObjectRecord *p = r->parent; p; p = p->parent)
          if (p == root) {
            ended.push_back(r);
            break;
          }
    });
  }
  if (ended.empty() && (!intact || !NameComesFromLLVM(root)) &&
      !graph_.HasUnwatchedChildren(root)) {
    // Case: an object that takes nothing with it and whose name ownsan
    // keeps (a builder, a buffer, a message, an opaque object). Its index
    // entry is retagged where it is, not erased and indexed again.
    graph_.ForgetInPlace(root);
    MarkFreedSorted(&root, 1, ev, ShadowMap::Placement::kLiveEntries);
    return;
  }
  dying = graph_.Remove(root);
  for (ObjectRecord *r : ended) {
    if (CallerMustDispose(r))
      ended_leaks_.push_back({r->created_by, r->create_stack, r->create_thread,
                              r->kind, r->addr, nullptr});
    graph_.RemoveWithoutList(r);
    dying.push_back(r);
  }
  if (intact && std::any_of(dying.begin(), dying.end(), NameComesFromLLVM)) {
    // Names are read while the objects are still intact (not yet
    // forwarded), without the lock: reading them calls into LLVM. Only a
    // name that changed since it was kept (a rename ownsan did not see:
    // LLVM's own, a pass's) is stored again.
    mu_.Unlock();
    for (size_t i = 0; i < dying.size(); ++i) {
      if (!NameComesFromLLVM(dying[i]))
        continue;
      std::string now = SnapshotName(dying[i]);
      if (now != dying[i]->name.view())
        renamed.push_back({i, std::move(now)});
    }
    mu_.Lock();
  }
  for (auto &[i, name] : renamed)
    dying[i]->name = name;
  // One sorted batch into the shadow map (a module's values by the
  // hundred), rather than a search and an insertion each.
  std::sort(dying.begin(), dying.end(),
            [](ObjectRecord *a, ObjectRecord *b) { return a->addr < b->addr; });
  MarkFreedSorted(dying.data(), dying.size(), ev,
                  ShadowMap::Placement::kNotIndexed);
}

void Runtime::MarkFreed(ObjectRecord *r, FreeEvent *ev) {
  MarkFreedSorted(&r, 1, ev, ShadowMap::Placement::kNotIndexed);
}

void Runtime::MarkFreedSorted(ObjectRecord *const *rs, size_t n, FreeEvent *ev,
                              ShadowMap::Placement entries) {
  ev->refs.fetch_add(static_cast<uint32_t>(n), std::memory_order_relaxed);
  for (size_t k = 0; k < n; ++k) {
    rs[k]->state.store(ObjectState::Freed, std::memory_order_release);
    if (OwnershipGraph::IsWatched(rs[k]->kind))
      granules_.Remove(rs[k]->addr, kLiveValues); // (its block may go)
    granules_.Add(rs[k]->addr, kReuseWatched);    // (matched from now on)
    rs[k]->freed = ev;
    AddToHistory(rs[k]);
  }
  // (The shadow map sets each address's bit in shadow_filter_.)
  if (entries == ShadowMap::Placement::kLiveEntries)
    shadow_.InsertSortedInPlace(rs, n);
  else if (entries == ShadowMap::Placement::kNotIndexed)
    shadow_.InsertSorted(rs, n);
  for (size_t k = 0; k < n; ++k)
    NoteDeath(rs[k]);
}

template <typename F>
void Runtime::ForEachRecordIn(const void *p, size_t size, F visit) {
  // One range query of the live index: a Value is not at the start of its
  // block (a User's operands, or the pointer to its hung-off operands, come
  // first), so the bits say where to look, not what is there.
  if (granules_.MaybeOverlaps(p, size, kLiveValues))
    graph_.ForEachLiveIn(p, size, visit);
}

void Runtime::ValueDied(ObjectRecord *r, FreeEvent *ev) {
  // Case: already recorded as freed by the explicit free that is now being
  // forwarded (or by another thread meanwhile).
  if (r->state != ObjectState::Live)
    return;
  if (graph_.HasUnwatchedChildren(r)) {
    graph_.Remove(r); // (what RemoveWithoutList would do, looked up once)
    MarkFreed(r, ev);
    return;
  }
  graph_.ForgetInPlace(r);
  MarkFreedSorted(&r, 1, ev, ShadowMap::Placement::kLiveEntries);
}

bool Runtime::ValuesDied(const void *p, size_t size) {
  ObjectRecord *dying[16];
  size_t n = 0;
  std::vector<ObjectRecord *> more;
  {
    ReaderMutexLock lock(&mu_);
    ForEachRecordIn(p, size, [&](ObjectRecord *r) {
      if (!OwnershipGraph::IsWatched(r->kind))
        return;
      if (n < 16)
        dying[n++] = r;
      else
        more.push_back(r);
    });
  }
  if (n == 0)
    return false; // Case: the bits were set by values that died before.
  // Case: LLVM destroyed values the program may still hold (a parent was
  // freed, or a pass deleted them): they die with the call now running.
  FreeEvent *ev = CurrentFreeEvent(nullptr);
  MutexLock lock(&mu_);
  for (size_t i = 0; i < n; ++i)
    ValueDied(dying[i], ev);
  for (ObjectRecord *r : more)
    ValueDied(r, ev);
  return true;
}

bool Runtime::UnwatchedDied(const void *p, size_t size) {
  if (exiting_.load(std::memory_order_relaxed))
    return false; // (see RegisterImpl)
  {
    ReaderMutexLock lock(&mu_);
    bool any = false;
    graph_.ForEachUnwatchedIn(p, size, [&](ObjectRecord *) { any = true; });
    if (!any)
      return false;
  }
  // (The event is taken without the lock: it captures a stack.)
  FreeEvent *ev = CurrentFreeEvent(nullptr);
  MutexLock lock(&mu_);
  absl::InlinedVector<ObjectRecord *, 4> dying;
  graph_.ForEachUnwatchedIn(p, size,
                            [&](ObjectRecord *r) { dying.push_back(r); });
  for (ObjectRecord *r : dying)
    UnwatchedDiedLocked(r, ev);
  return !dying.empty();
}

void Runtime::UnwatchedDiedLocked(ObjectRecord *r, FreeEvent *ev) {
  // Case: already taken by the death of an ancestor in the same block; or
  // the process is exiting (see RegisterImpl).
  if (r->state != ObjectState::Live || exiting_.load(std::memory_order_relaxed))
    return;
  // Its unwatched descendants (a context's modules and types) died with it
  // if C++ code did not free them first; their names are the ones recorded
  // earlier: the memory is gone.
  for (ObjectRecord *d : graph_.Remove(r))
    MarkFreed(d, ev);
}

namespace {
// Blocks operator delete released during this thread's running call, whose
// value deaths are not recorded yet (ThreadCallState::pending_deaths of
// them). A module's dispose releases its values one by one: recording them
// in batches takes the locks once per batch, not three times per value.
//
// The batch belongs to one call (`owner`, its scope's frame). A call nested
// in it (a callback's, or a signal handler's, which may have interrupted
// malloc or free) records the outer call's deaths but leaves its blocks to
// the outer call to release, and records its own deaths at once.
constexpr size_t kMaxPendingDeaths = 32;
struct PendingDeaths {
  FreeEvent *event;  ///< the call's free event, taken at the first death
  const void *owner; ///< CallContext::frame of the call
  size_t recorded;   ///< blocks whose deaths are recorded (held still)
  struct Block {
    void *p;
    size_t size;
  } blocks[kMaxPendingDeaths];
};
__thread PendingDeaths tls_pending_deaths OWNSAN_TLS_MODEL;

// The calling thread exits: the events it held go back to the pool once
// their records are evicted. (In a runtime section: a signal handler's
// wrapped call meanwhile is forwarded unchecked. One that comes after and
// makes an event holds it anew, and registers this again.)
__thread bool tls_holds_events OWNSAN_TLS_MODEL;
void ReleaseHeldFreeEvents(void *) {
  RuntimeSection section;
  tls_holds_events = false;
  ReleaseThreadFreeEvents();
}

} // namespace

FreeEvent *NewThreadFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                              const char *detail) {
  // (The event pool's lock is held inside: a signal handler's wrapped call
  // meanwhile is forwarded unchecked, never waits for it.)
  RuntimeSection section;
  if (!tls_holds_events) {
    tls_holds_events = true;
    ReleaseAtThreadExit<ReleaseHeldFreeEvents>(&tls_holds_events);
  }
  const CallContext &call = CurrentCall();
  const ThreadCallState &state = CurrentThreadCallState();
  const FreeEvent *in_use[] = {call.event, call.orphan_event,
                               state.pending_deaths ? tls_pending_deaths.event
                                                    : nullptr};
  return NewFreeEvent(fn, target, stack, CurrentThreadNumber(), detail,
                      /*release_unused=*/state.depth <= 1, in_use,
                      std::size(in_use));
}

Runtime::Deferral Runtime::DeferDeaths(void *p, size_t size) {
  // Case: outside any wrapped call (the program's C++ code, exit-time
  // destructors): nothing would flush the batch soon.
  const CallContext &call = CurrentCall();
  if (call.fn == kNoFn)
    return Deferral::kNotDeferred;
  ThreadCallState &state = CurrentThreadCallState();
  PendingDeaths &pending = tls_pending_deaths;
  if (state.pending_deaths == 0) {
    // Case: the bit was read before another thread recorded the value's
    // death, and the call has no free event yet: look before taking a
    // stack for it. Nothing in the block lives: no death to record.
    if (!call.event && !call.stack && !AnyLiveIn(p, size))
      return Deferral::kNothingLives;
    // The stack is taken here, inside LLVM, as for a death recorded at once.
    pending.event = CurrentFreeEvent(nullptr);
    pending.owner = call.frame;
    pending.recorded = 0;
  } else if (pending.owner != call.frame) {
    // Case: the batch is an outer call's (see PendingDeaths).
    return Deferral::kNotDeferred;
  }
  pending.blocks[state.pending_deaths++] = {p, size};
  if (state.pending_deaths == kMaxPendingDeaths)
    FlushDeaths();
  return Deferral::kDeferred;
}

bool Runtime::AnyLiveIn(const void *p, size_t size) {
  ReaderMutexLock lock(&mu_);
  bool any = false;
  ForEachRecordIn(p, size, [&](ObjectRecord *) { any = true; });
  return any;
}

// Sorts ranges[0, n) by address, carrying each one's block index along (an
// insertion sort: a batch is at most kMaxPendingDeaths blocks, freed in
// address order within each of the heap's size classes, the classes
// interleaved. std::sort took 0.5 % fewer of (c)'s instructions, which its
// time did not show: docs/performance-history.md, 7 December, night.)
static void SortRanges(AddressIndex::Range *ranges, uint16_t *block, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    AddressIndex::Range r = ranges[i];
    uint16_t b = block[i];
    size_t j = i;
    for (; j > 0 && ranges[j - 1].lo > r.lo; --j) {
      ranges[j] = ranges[j - 1];
      block[j] = block[j - 1];
    }
    ranges[j] = r;
    block[j] = b;
  }
}

void Runtime::FlushDeaths(bool release) {
  ThreadCallState &state = CurrentThreadCallState();
  if (state.pending_deaths == 0)
    return;
  // Before the batch is read: a signal handler's call that interrupts the
  // flush is forwarded unchecked instead of flushing the same blocks.
  RuntimeSection section; // (nothing is deferred while it runs)
  PendingDeaths &pending = tls_pending_deaths;
  // Case: a call nested in the batch's call: the blocks are the outer
  // call's to release.
  if (pending.owner != CurrentCall().frame)
    release = false;
  size_t n = state.pending_deaths, from = pending.recorded;
  if (from == n && !release)
    return;
  bool any[kMaxPendingDeaths] = {}; // block i held a watched value
  Quarantine::Chunk held[kMaxPendingDeaths];
  void *unheld[kMaxPendingDeaths];
  size_t n_held = 0, n_unheld = 0;
  {
    MutexLock lock(&mu_);
    // Two passes: find the records' index entries first and prefetch the
    // records, then mark them (each is a cache miss of its own otherwise).
    constexpr size_t kBatch = 128;
    struct Found {
      ObjectRecord **slot; ///< its index entry
      uint16_t block;      ///< the pending block it is in
    };
    absl::InlinedVector<Found, kBatch> found;
    absl::InlinedVector<std::pair<ObjectRecord *, uint16_t>, 2> unwatched;
    // Never called from inside the index's range walk; the entries found
    // stay where they are until the first value with unwatched children is
    // removed from the graph (after the others are retagged).
    auto die = [&]() {
      mu_.AssertHeld();
      // The usual value (no unwatched children) passes from the graph to
      // the shadow map with the rest of the batch, in address order (the
      // walk's), its index entry retagged where the walk found it.
      absl::InlinedVector<ObjectRecord *, kBatch> dead;
      absl::InlinedVector<ObjectRecord *, 2> general;
      for (const Found &f : found) {
        ObjectRecord *r = *f.slot;
        if (!OwnershipGraph::IsWatched(r->kind)) {
          // Case: an unwatched object in a block with values (a module
          // C++ code deleted, next to one of its values): it died too,
          // recorded once the batch is marked.
          unwatched.push_back({r, f.block});
          continue;
        }
        any[f.block] = true;
        if (r->state != ObjectState::Live)
          continue; // (see ValueDied)
        if (graph_.HasUnwatchedChildren(r)) {
          general.push_back(r); // (rare)
          continue;
        }
        shadow_.RetagInPlace(f.slot);
        dead.push_back(r);
      }
      found.clear();
      for (ObjectRecord *r : general)
        ValueDied(r, pending.event); // (removes r from the index)
      graph_.ForgetWatched(dead.size());
      MarkFreedSorted(dead.data(), dead.size(), pending.event,
                      ShadowMap::Placement::kRetagged);
    };
    // The blocks in address order, walked in one pass over the index.
    // (Each was deferred because a live value's bit is in it: not asked
    // again. One whose values another thread recorded meanwhile finds
    // none there.)
    AddressIndex::Range ranges[kMaxPendingDeaths];
    uint16_t range_block[kMaxPendingDeaths];
    size_t n_ranges = 0;
    for (size_t i = from; i < n; ++i) {
      auto [p, size] = pending.blocks[i];
      ranges[n_ranges] = {p, size};
      range_block[n_ranges++] = static_cast<uint16_t>(i);
    }
    SortRanges(ranges, range_block, n_ranges);
    graph_.ForEachLiveSlotInSorted(ranges, n_ranges,
                                   [&](size_t k, ObjectRecord **slot) {
                                     __builtin_prefetch(*slot, 1);
                                     found.push_back({slot, range_block[k]});
                                   });
    die();
    for (auto [r, block] : unwatched) {
      UnwatchedDiedLocked(r, pending.event);
      any[block] = true;
    }
    pending.recorded = n;
    if (!release)
      return;
    for (size_t i = 0; i < n; ++i) {
      auto [p, size] = pending.blocks[i];
      // As in TakeIntoQuarantine: hold the block if a freed record matches
      // an address in it.
      if (any[i] || shadow_.AnyInRange(p, size))
        held[n_held++] = {p, size, Quarantine::Chunk::kFree};
      else
        unheld[n_unheld++] = p;
    }
    state.pending_deaths = 0;
    pending.recorded = 0;
  }
  for (size_t i = 0; i < n_unheld; ++i)
    OwnsanReleaseDeleted(unheld[i]);
  HoldAll(held, n_held);
}

void Runtime::OnSanitizerFree(const void *p) {
  if (CurrentThreadCallState().in_runtime)
    return;
  size_t size = malloc_usable_size(const_cast<void *>(p));
  if (!size)
    return;
  // (Both sets in one question: see granules_.)
  Granules::SetMask sets =
      granules_.OverlappingSets(p, size, Granules::kAllSets);
  if (!sets)
    return;
  bool values = sets & (1u << kLiveValues);
  bool tracked = sets & (1u << kReuseWatched);
  RuntimeSection section;
  if (values)
    ValuesDied(p, size);
  if (tracked)
    UnwatchedDied(p, size);
}

void Runtime::OnAllocation(const void *p, size_t n) {
  if (CurrentThreadCallState().in_runtime)
    return;
  // (Direct-mapped, its summary line covers 2 MiB of addresses: a hashed
  // filter tested first cost a cold line at most allocations and decided
  // nothing this bitmap does not.)
  if (!granules_.OverlappingSets(p, n ? n : 1, 1u << kReuseWatched))
    return;
  RuntimeSection section;
  MutexLock lock(&mu_);
  // Case: new memory over a freed object's address. The address may name a
  // new object from now on; stop matching it.
  shadow_.DropRange(p, n);
  // Case: new memory over an unwatched object we believed live: it was
  // freed by code we do not see. Forget it (and its unwatched children).
  std::vector<ObjectRecord *> stale;
  graph_.ForEachUnwatchedIn(p, n, [&](ObjectRecord *r) { stale.push_back(r); });
  for (ObjectRecord *r : stale) {
    if (r->state != ObjectState::Live)
      continue;
    DropUnseen(r);
  }
  // The block's granules now hold neither, unless a neighbour shares one:
  // the next allocation here (a server reuses the same blocks all day)
  // takes no lock. (Bits only ever set passed nine in ten for nothing.)
  // Only the granules at its edges are looked up: it was emptied above.
  ForgetUnwatchedGranules(p, n ? n : 1, /*emptied=*/n != 0);
}

void Runtime::ForgetUnwatchedGranules(const void *p, size_t size,
                                      bool emptied) {
  auto held = [&](uintptr_t granule) {
    mu_.AssertHeld();
    const void *at = reinterpret_cast<const void *>(granule);
    constexpr size_t kBytes = Granules::kGranuleBytes;
    return shadow_.AnyInRange(at, kBytes) || graph_.AnyUnwatchedIn(at, kBytes);
  };
  if (emptied)
    granules_.ForgetEmptied(p, size, held, kReuseWatched);
  else
    granules_.ForgetUnheld(p, size, held, kReuseWatched);
}

void Runtime::ForgetReleasedAddress(const void *p) { shadow_.DropRange(p, 1); }

void Runtime::ForgetReleasedBlock(const void *p, size_t size) {
  shadow_.DropRange(p, size);
}

// Does [p, p + size) hold the object the running call frees explicitly?
// Its record was matched at its address when the call began (Before), and
// the memory is only now being released: the block is one a stale handle
// names, no need to ask the shadow map under the lock. (Holding a block
// that turns out to hold no matched address only delays its reuse.)
static bool HoldsFreeTarget(const void *p, size_t size) {
  const FreeEvent *ev = CurrentCall().event;
  if (!ev || !ev->target)
    return false;
  uintptr_t a = reinterpret_cast<uintptr_t>(ev->target->addr),
            lo = reinterpret_cast<uintptr_t>(p);
  return a - lo < size;
}

bool Runtime::TakeIntoQuarantine(void *p, size_t size) {
  if (CurrentThreadCallState().in_runtime)
    return false;
  // (A sized delete's size: the objects in the block lie within the bytes
  // it was asked for. Otherwise malloc's, which asking costs a call.)
  if (!size)
    size = malloc_usable_size(p);
  if (!size)
    size = 1;
  // May the block hold a live value, a matched freed address or a live
  // unwatched record? One question for both (granules_).
  Granules::SetMask sets =
      granules_.OverlappingSets(p, size, Granules::kAllSets);
  if (!sets)
    return false;
  bool values = sets & (1u << kLiveValues);
  bool tracked = sets & (1u << kReuseWatched);
  RuntimeSection section;
  // Case: a block that may hold live values, released inside a wrapped
  // call: recorded with the call's other deaths (held until then).
  if (values) {
    switch (DeferDeaths(p, size)) {
    case Deferral::kDeferred:
      return true;
    case Deferral::kNothingLives:
      values = false;
      break;
    case Deferral::kNotDeferred:
      break;
    }
  }
  // Case: the block held live values: they died, and their freed records
  // now match addresses in it (no need to ask the shadow map).
  bool died = values && ValuesDied(p, size);
  // Case: the block held an unwatched object ownsan believed live (a module
  // an execution engine built in C++ deleted): it died here.
  if (tracked && UnwatchedDied(p, size))
    died = true;
  if (!died && !HoldsFreeTarget(p, size)) {
    MutexLock lock(&mu_);
    // Case: memory that holds no freed object's address: free it now.
    if (!shadow_.AnyInRange(p, size)) {
      if (tracked)
        ForgetUnwatchedGranules(p, size, /*emptied=*/false);
      return false;
    }
  }
  // Case: the memory of an object a stale handle may still name.
  Hold({p, size, Quarantine::Chunk::kFree});
  return true;
}

} // namespace ownsan
