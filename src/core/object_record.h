//===- object_record.h - What ownsan knows about one LLVM object -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// One ObjectRecord per object the program has been handed a handle to. A
// record never moves and its memory is never unmapped, so parent pointers
// and report references stay valid after the object is freed; the shadow
// map (shadow_map.h) decides which freed records are still matched by
// address. Only when the history of freed objects outgrows history_size_mb
// are the oldest records evicted: every reference to them is cleared first,
// then their slots hold new objects (Runtime::EvictHistory).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_OBJECT_RECORD_H
#define OWNSAN_CORE_OBJECT_RECORD_H

#include "core/handle_types.h"

#include "absl/functional/function_ref.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ownsan {

using StackId = uint32_t; ///< id in the StackDepot; 0 = no stack
using FnIndex = uint16_t; ///< index into kFnInfo
constexpr FnIndex kNoFn = 0xffff;

enum class ObjectState : uint8_t {
  Live,    ///< in the ownership graph
  Freed,   ///< in the shadow map (or expired from it)
  Evicted, ///< history dropped (history_size_mb): the slot awaits reuse
};

struct ObjectRecord;

/// One LLVM-C call that freed objects: the explicit dispose, or the call
/// during which LLVM deleted values by itself. Shared by every object that
/// call freed.
struct FreeEvent {
  FnIndex fn = kNoFn;
  bool consumed = false; ///< ownership went to LLVM (not a dispose)
  /// A record that died with it pays for it in the history bound
  /// (history_size_mb; under the runtime's lock).
  bool charged = false;
  StackId stack = 0;
  ObjectRecord *target = nullptr; ///< what the call freed explicitly, if any
  uint32_t thread = 0;
  /// Records that died with it, plus one while the call that made it may
  /// still use it (see NewFreeEvent). At 0 the event is reused.
  std::atomic<uint32_t> refs{0};
  union {
    /// E.g. the pass pipeline of LLVMRunPasses; "" for none. A copy that
    /// lives as long as the event.
    const char *detail = "";
    FreeEvent *next_free; ///< in the pool's free list (unused events)
  };
};
// (Every freeing call makes one, and its first record pays for it in the
// history bound: a thread's lone builder dispose costs a record and an
// event.)
static_assert(sizeof(FreeEvent) == 32, "events are half a cache line");

/// A new event, referenced by the records that die with it. Events come
/// from blocks of mapped memory shared by all threads, not from malloc: one
/// is made per freeing call, so they would take a heap chunk each and
/// interleave with the program's objects. `detail` is copied. The calling
/// thread holds the event (one reference) while it may record deaths with
/// it: its earlier events are released here, except the `in_use` ones (its
/// running call's); with `release_unused` false (calls nested in calls,
/// whose outer calls' events are out of sight) none is.
FreeEvent *NewFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                        uint32_t thread, const char *detail,
                        bool release_unused, const FreeEvent *const *in_use,
                        size_t n_in_use);
/// `n` records that died with `ev` were evicted: `n` references less.
void ReleaseFreeEvent(FreeEvent *ev, uint32_t n = 1);
/// Calls fn(ev) on every event in use (under the runtime's lock, to clear
/// targets that were evicted).
void ForEachFreeEvent(absl::FunctionRef<void(FreeEvent *)> fn);
/// Drops the calling thread's holds (it exits).
void ReleaseThreadFreeEvents();
/// Events in use, and the most there ever were (statistics).
size_t FreeEventsInUse();
/// fork(): the pool's lock is taken around it; the child gets a fresh one.
void LockFreeEventsForFork(bool lock);
void ResetFreeEventsLockInChild();

/// Which thread uses a context (contexts only; see src/runtime/contexts.cpp).
/// Written lock-free by the threads that call in, when the context changes
/// threads: a cache line of its own, so that threads working on different
/// contexts do not invalidate each other's.
struct alignas(64) ContextUse {
  ObjectRecord *record = nullptr; ///< the context's record (set once)
  /// The thread (number + 1) that claimed it last; 0: none yet. Whether
  /// that thread is inside a call on it now, its call context says.
  std::atomic<uint32_t> owner{0};
  /// Claims that still record their stack: set when another thread takes
  /// the context over (a hand-off), counted down by each claim.
  std::atomic<uint32_t> stack_claims_left{0};
  std::atomic<StackId> active_stack{0}; ///< the claim's stack, if recorded
};

/// A record's name, or nothing for the empty name (which most values have).
/// 8 bytes where a std::string takes 32. A name of up to 7 bytes ("entry",
/// "t1": most of those a program gives) is kept in those 8 bytes: byte 0
/// holds (length << 1) | 1, the next ones the characters. A longer one is
/// a copy in ownsan's internal allocator (not the program's heap, where a
/// chunk per named value would change which addresses the program's next
/// objects get), with its length first.
class RecordName {
public:
  static constexpr size_t kInline = sizeof(uintptr_t) - 1;
  /// The bytes a name of `n` characters takes besides the record.
  static size_t Footprint(size_t n) {
    return n > kInline ? sizeof(uint32_t) + n : 0;
  }
  size_t footprint() const { return IsInline() ? 0 : Footprint(view().size()); }
  RecordName() = default;
  RecordName(const RecordName &) = delete;
  RecordName &operator=(const RecordName &) = delete;
  ~RecordName() { Release(); }

  RecordName &operator=(std::string_view v);
  bool empty() const { return bits_ == 0; }
  /// Valid while the name is not changed (an inline name is in the record).
  std::string_view view() const {
    if (IsInline())
      return std::string_view(reinterpret_cast<const char *>(&bits_) + 1,
                              (bits_ & 0xff) >> 1);
    if (!bits_)
      return {};
    const char *data = reinterpret_cast<const char *>(bits_);
    uint32_t n;
    std::memcpy(&n, data, sizeof n);
    return std::string_view(data + sizeof n, n);
  }
  operator std::string() const { return std::string(view()); }

  void Release();

private:
  bool IsInline() const { return bits_ & 1; }
  /// 0, an inline name, or the address of the copy (8-byte aligned).
  uintptr_t bits_ = 0;
};

/// The fields few records need, allocated on first write: builders (their
/// position), opaque objects (their C type),
/// addresses LLVM handed out again, objects given away.
struct RecordExtra {
  /// Address reuse: the freed object that had this address before (set when
  /// LLVM handed the address out again).
  ObjectRecord *previous = nullptr;
  /// Builders: where the next instruction goes (block, or the instruction
  /// it goes before), and which of the two was freed, if one was.
  ObjectRecord *insert_block = nullptr;
  ObjectRecord *insert_before = nullptr;
  ObjectRecord *insert_point_freed = nullptr;
  /// Opaque objects: the C handle type ("LLVMExecutionEngineRef").
  const char *type_name = nullptr;
  FnIndex owned_via = kNoFn; ///< the call that gave it away
  /// Adopted objects (made outside the LLVM-C API): the call ownsan first
  /// saw them in (freeing or taking them, or owning an object it returned).
  FnIndex first_seen_in = kNoFn;
  /// Messages: no NUL terminator (LLVMGetRelocationTypeName); never strlen.
  bool unterminated = false;
  /// Died with its owner, then disposed by the caller (allowed once: an
  /// iterator is its own allocation).
  bool disposed_late = false;
  /// Shared by many records, never written (see ObjectRecord::SetTypeName):
  /// MutableRare() gives the record a copy of its own first.
  bool shared = false;
};

// One cache line: what every live object needs; the rest is in RecordExtra.
// A checked call reads addr, kind, state and context_use, so a record that
// straddled two lines would cost it two.
struct alignas(64) ObjectRecord {
  const void *addr = nullptr;
  ObjectKind kind = ObjectKind::Unknown;
  /// Read without the lock by the per-thread record cache.
  std::atomic<ObjectState> state{ObjectState::Live};
  bool is_global_context = false;
  /// LLVM handed the address out again, or the object was dropped unseen.
  /// (New memory over a freed object's address is not marked here: the
  /// shadow map stops matching it without touching the record.)
  bool address_reused = false;
  /// Given away (an engine owns the module now): not the caller's to free.
  bool owned_by_other = false;
  bool owner_untracked = false; ///< given to LLVM, not to a tracked object
  FnIndex created_by = kNoFn;
  /// The use slot of the context the object belongs to (its own for a
  /// context), if known: what every checked call claims, one load away.
  ContextUse *context_use = nullptr;
  ObjectRecord *parent = nullptr; ///< last known owner
  RecordName name;                ///< snapshot: value name / module id
  const FreeEvent *freed = nullptr;
  StackId create_stack = 0;
  uint32_t create_thread = 0;

  /// The rare fields (defaults when none were written).
  const RecordExtra &rare() const {
    RecordExtra *e = extra_.load(std::memory_order_acquire);
    return e ? *e : kNoExtra;
  }
  /// The rare fields, to write (under the runtime's lock).
  RecordExtra &MutableRare();
  /// An opaque object's C handle type. A record whose only rare field is
  /// its type shares one extra per type with every other such record (one
  /// is handed out per LLVM-C call by some APIs: metadata-entry arrays).
  /// Under the runtime's lock; `type` must outlive the process (a literal).
  void SetTypeName(const char *type);
  /// 1 for the first object ownsan saw at this address, then one more for
  /// each that took the address over: the length of the `previous` chain,
  /// counted when a report asks (linking an object to its predecessor
  /// then needs no read of the predecessor's cold record).
  uint32_t generation() const {
    uint32_t g = 1;
    for (const ObjectRecord *p = rare().previous; p; p = p->rare().previous)
      ++g;
    return g;
  }
  /// The context the object belongs to (itself for a context), if known.
  ObjectRecord *context() const {
    return context_use ? context_use->record : nullptr;
  }
  /// The record's own rare fields, if it has any (not a shared one).
  RecordExtra *OwnExtra() const {
    RecordExtra *e = extra_.load(std::memory_order_acquire);
    return e && !e->shared ? e : nullptr;
  }
  /// An evicted record gives back its name and rare fields (under the
  /// runtime's lock); its slot is then reused by Reuse().
  void ReleaseHistory();
  /// Makes an evicted slot the live record of a new object at `addr`. A
  /// thread's record cache may still hold the slot under its old address
  /// and read it without a lock: the address is written before the state
  /// says Live again (see CachedLive).
  void Reuse(const void *addr, ObjectKind kind);

private:
  static const RecordExtra kNoExtra;
  std::atomic<RecordExtra *> extra_{nullptr};
};
static_assert(sizeof(ObjectRecord) == 64, "a record is one cache line");

/// What an opaque object is called in labels ("execution engine").
inline std::string OpaqueNoun(const ObjectRecord *r) {
  return HandleTypeNoun(r->rare().type_name);
}

} // namespace ownsan

#endif // OWNSAN_CORE_OBJECT_RECORD_H
