//===- object_record.cpp - Records and names for object kinds ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "core/object_record.h"
#include "core/tls_model.h"

#include "core/internal_allocator.h"
#include "core/mutex.h"

#include <algorithm>
#include <cstdlib>

#include <cctype>
#include <cstring>
#include <iterator>
#include <new>

namespace ownsan {

const RecordExtra ObjectRecord::kNoExtra;

namespace {
// Extras live as long as their records and are only made and given back
// under the runtime's lock (see MutableRare, ReleaseHistory): one arena with
// a free list, no lock of its own.
MappedBump<RecordExtra, 4096> g_extras;
RecordExtra *g_free_extras = nullptr; ///< linked through `previous`
RecordExtra *NewExtra() {
  if (RecordExtra *e = g_free_extras) {
    g_free_extras = reinterpret_cast<RecordExtra *>(e->previous);
    *e = RecordExtra();
    return e;
  }
  return g_extras.New(/*leak_roots=*/false);
}
void DeleteExtra(RecordExtra *e) {
  *e = RecordExtra();
  e->previous = reinterpret_cast<ObjectRecord *>(g_free_extras);
  g_free_extras = e;
}

// Events are made outside the runtime's lock, by any thread, and given back
// when their last record is evicted: one pool under a lock of its own (a
// leaf: taken under the runtime's lock by eviction, never the other way).
constexpr size_t kEventsPerBlock = 2048;
Mutex g_events_mu(absl::kConstInit);
FreeEvent *g_free_events ABSL_GUARDED_BY(g_events_mu) = nullptr;
MappedBump<FreeEvent, kEventsPerBlock>
    g_event_arena ABSL_GUARDED_BY(g_events_mu);
// Every block of the arena, for ForEachFreeEvent: an internal allocation
// that doubles as it fills (a short program has one block, a long run a few
// hundred).
FreeEvent **g_event_blocks ABSL_GUARDED_BY(g_events_mu) = nullptr;
size_t g_event_block_count ABSL_GUARDED_BY(g_events_mu) = 0;
size_t g_event_block_capacity ABSL_GUARDED_BY(g_events_mu) = 0;
void NoteEventBlock(FreeEvent *block)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_events_mu) {
  if (g_event_block_count == g_event_block_capacity) {
    size_t capacity = g_event_block_capacity ? 2 * g_event_block_capacity : 8;
    auto **grown = static_cast<FreeEvent **>(
        InternalAllocate(capacity * sizeof(FreeEvent *)));
    std::copy(g_event_blocks, g_event_blocks + g_event_block_count, grown);
    InternalDeallocate(g_event_blocks,
                       g_event_block_capacity * sizeof(FreeEvent *));
    g_event_blocks = grown;
    g_event_block_capacity = capacity;
  }
  g_event_blocks[g_event_block_count++] = block;
}
size_t g_events_in_use ABSL_GUARDED_BY(g_events_mu) = 0;

// The events this thread made and may still record deaths with. Released
// when the thread makes an event in a later outermost call (see
// NewFreeEvent) or exits.
constexpr int kMaxHeldEvents = 8;
struct HeldEvents {
  FreeEvent *event[kMaxHeldEvents];
  int count;
};
__thread HeldEvents tls_held_events OWNSAN_TLS_MODEL;

const char *CopyDetail(const char *detail) {
  if (!detail || !*detail)
    return "";
  return strdup(detail); // (rare: a few calls have one)
}

void RecycleFreeEvent(FreeEvent *ev) {
  if (*ev->detail)
    free(const_cast<char *>(ev->detail));
  MutexLock lock(&g_events_mu);
  ev->fn = kNoFn;
  ev->target = nullptr;
  ev->next_free = g_free_events; // (in place of the detail)
  g_free_events = ev;
  --g_events_in_use;
}
} // namespace

FreeEvent *NewFreeEvent(FnIndex fn, ObjectRecord *target, StackId stack,
                        uint32_t thread, const char *detail,
                        bool release_unused, const FreeEvent *const *in_use,
                        size_t n_in_use) {
  // Holds of earlier calls: the thread records deaths with the events its
  // running calls made (`in_use`), and with no other.
  HeldEvents &held = tls_held_events;
  int kept = 0;
  for (int i = 0; i < held.count; ++i) {
    FreeEvent *e = held.event[i];
    if (!release_unused ||
        std::find(in_use, in_use + n_in_use, e) != in_use + n_in_use)
      held.event[kept++] = e;
    else
      ReleaseFreeEvent(e);
  }
  held.count = kept;
  FreeEvent *ev;
  {
    MutexLock lock(&g_events_mu);
    ev = g_free_events;
    if (ev) {
      g_free_events = ev->next_free;
    } else {
      // (events point at their details, on the heap: leak roots)
      bool new_block = g_event_arena.left == 0;
      ev = g_event_arena.New(/*leak_roots=*/true);
      if (new_block)
        NoteEventBlock(ev);
    }
    ++g_events_in_use;
  }
  ev->fn = fn;
  ev->target = target;
  ev->stack = stack;
  ev->thread = thread;
  ev->consumed = false;
  ev->charged = false;
  ev->detail = CopyDetail(detail);
  if (held.count < kMaxHeldEvents) {
    ev->refs.store(1, std::memory_order_relaxed);
    held.event[held.count++] = ev;
  } else {
    // (calls nested deeper than foreseen: the event is never reused)
    ev->refs.store(1u << 31, std::memory_order_relaxed);
  }
  return ev;
}

void ReleaseFreeEvent(FreeEvent *ev, uint32_t n) {
  if (ev->refs.fetch_sub(n, std::memory_order_acq_rel) == n)
    RecycleFreeEvent(ev);
}

void ReleaseThreadFreeEvents() {
  // The list is emptied before the events are released: code that runs
  // after (a later destructor on the exiting thread) starts a new one.
  HeldEvents &held = tls_held_events;
  FreeEvent *events[kMaxHeldEvents];
  int n = held.count;
  std::copy(held.event, held.event + n, events);
  held.count = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  for (int i = 0; i < n; ++i)
    ReleaseFreeEvent(events[i]);
}

void ForEachFreeEvent(absl::FunctionRef<void(FreeEvent *)> fn) {
  MutexLock lock(&g_events_mu);
  for (size_t b = 0; b < g_event_block_count; ++b) {
    FreeEvent *block = g_event_blocks[b];
    size_t n = decltype(g_event_arena)::PerBlock(b);
    if (block + n == g_event_arena.next + g_event_arena.left)
      n -= g_event_arena.left; // the block being filled
    for (size_t i = 0; i < n; ++i)
      fn(&block[i]);
  }
}

size_t FreeEventsInUse() {
  MutexLock lock(&g_events_mu);
  return g_events_in_use;
}

void LockFreeEventsForFork(bool lock) { LockForFork(g_events_mu, lock); }

void ResetFreeEventsLockInChild() { ResetInForkChild(g_events_mu); }

void ObjectRecord::ReleaseHistory() {
  name.Release();
  if (RecordExtra *e = OwnExtra())
    DeleteExtra(e);
  extra_.store(nullptr, std::memory_order_release);
}

void ObjectRecord::Reuse(const void *new_addr, ObjectKind new_kind) {
  __atomic_store_n(&addr, new_addr, __ATOMIC_RELEASE);
  kind = new_kind;
  is_global_context = false;
  address_reused = false;
  owned_by_other = false;
  owner_untracked = false;
  created_by = kNoFn;
  context_use = nullptr;
  parent = nullptr;
  freed = nullptr;
  create_stack = 0;
  create_thread = 0;
  extra_.store(nullptr, std::memory_order_relaxed);
  state.store(ObjectState::Live, std::memory_order_release);
}

RecordExtra &ObjectRecord::MutableRare() {
  RecordExtra *e = extra_.load(std::memory_order_acquire);
  if (!e || e->shared) {
    // Case: no extra yet, or one shared by type (copied, then written).
    RecordExtra *own = NewExtra();
    if (e) {
      *own = *e;
      own->shared = false;
    }
    extra_.store(own, std::memory_order_release);
    e = own;
  }
  return *e;
}

void ObjectRecord::SetTypeName(const char *type) {
  RecordExtra *e = extra_.load(std::memory_order_acquire);
  if (e) {
    // Case: the record has rare fields already: its own copy takes the type.
    MutableRare().type_name = type;
    return;
  }
  // Case: the usual fresh record: the type's shared extra. (Few types: a
  // short list, searched under the same lock.)
  static RecordExtra *by_type[128];
  static size_t types = 0;
  RecordExtra *x = nullptr;
  for (size_t i = 0; i < types && !x; ++i)
    if (by_type[i]->type_name == type)
      x = by_type[i];
  if (!x) {
    if (types == std::size(by_type)) {
      MutableRare().type_name = type; // (more types than foreseen)
      return;
    }
    x = NewExtra();
    x->type_name = type;
    x->shared = true;
    by_type[types++] = x;
  }
  extra_.store(x, std::memory_order_release);
}

RecordName &RecordName::operator=(std::string_view v) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "an inline name's length byte is the lowest");
  uintptr_t bits = 0;
  if (!v.empty() && v.size() <= kInline) {
    bits = (v.size() << 1) | 1;
    std::memcpy(reinterpret_cast<char *>(&bits) + 1, v.data(), v.size());
  } else if (!v.empty()) {
    uint32_t n = static_cast<uint32_t>(v.size());
    char *data = static_cast<char *>(InternalAllocate(sizeof n + n));
    std::memcpy(data, &n, sizeof n);
    std::memcpy(data + sizeof n, v.data(), n);
    bits = reinterpret_cast<uintptr_t>(data);
  }
  Release();
  bits_ = bits;
  return *this;
}

void RecordName::Release() {
  if (!bits_ || IsInline()) {
    bits_ = 0;
    return;
  }
  char *data = reinterpret_cast<char *>(bits_);
  uint32_t n;
  std::memcpy(&n, data, sizeof n);
  InternalDeallocate(data, sizeof n + n);
  bits_ = 0;
}

std::string HandleTypeNoun(const char *type) {
  std::string t = type ? type : "object";
  if (t.rfind("LLVM", 0) == 0)
    t = t.substr(4);
  if (t.size() > 3 && t.compare(t.size() - 3, 3, "Ref") == 0)
    t.resize(t.size() - 3);
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    // A word starts at a capital after a small letter, or at the last
    // capital of an acronym ("MCJITMemory": before the M of Memory).
    bool starts =
        isupper(static_cast<unsigned char>(c)) && i > 0 &&
        (!isupper(static_cast<unsigned char>(t[i - 1])) ||
         (i + 1 < t.size() && islower(static_cast<unsigned char>(t[i + 1]))));
    if (starts)
      out += ' ';
    out += static_cast<char>(tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

namespace {
struct KindRow {
  const char *c_type; ///< "" for the typedef of its HandleType
  const char *noun;
  bool caller_disposes;
};
constexpr KindRow kKinds[] = {
#define OWNSAN_OBJECT_KIND(Kind, Enum, CType, Noun, CallerDisposes)            \
  {CType, Noun, CallerDisposes},
#include OWNSAN_HANDLE_TYPES_DEF
};
constexpr const char *kHandleTypedefs[] = {
#define OWNSAN_HANDLE_TYPE(Enum, CType) CType,
#include OWNSAN_HANDLE_TYPES_DEF
};
const KindRow &Row(ObjectKind k) {
  size_t i = static_cast<size_t>(k);
  return kKinds[i < std::size(kKinds) ? i : 0];
}
} // namespace

const char *KindNoun(ObjectKind k) { return Row(k).noun; }

const char *KindHandleType(ObjectKind k) {
  const char *type = Row(k).c_type;
  if (*type)
    return type;
  return kHandleTypedefs[static_cast<size_t>(
      kKindHandleTypes[static_cast<size_t>(k)])];
}

bool KindCallerDisposes(ObjectKind k) { return Row(k).caller_disposes; }

namespace {
// Is `k` among the kinds of one of the table's kind-list rows? (The
// Unknown that ends each list, which keeps it non-empty, is never listed.)
template <size_t N> bool Lists(const ObjectKind (&kinds)[N], ObjectKind k) {
  for (size_t i = 0; i + 1 < N; ++i)
    if (kinds[i] == k)
      return true;
  return false;
}
} // namespace

bool KindOneThreadAtATime(ObjectKind k) {
  static constexpr ObjectKind kOneThread[] = {
#define OWNSAN_KIND_ONE_THREAD(Kind) ObjectKind::Kind,
#include OWNSAN_HANDLE_TYPES_DEF
      ObjectKind::Unknown};
  return Lists(kOneThread, k);
}

bool KindEndsWatchedDescendants(ObjectKind k) {
  static constexpr ObjectKind kEnds[] = {
#define OWNSAN_KIND_ENDS_WATCHED(Kind) ObjectKind::Kind,
#include OWNSAN_HANDLE_TYPES_DEF
      ObjectKind::Unknown};
  return Lists(kEnds, k);
}

bool KindOwnedIfCreated(ObjectKind k) {
  static constexpr ObjectKind kOwnedIfCreated[] = {
#define OWNSAN_KIND_OWNED_IF_CREATED(Kind) ObjectKind::Kind,
#include OWNSAN_HANDLE_TYPES_DEF
      ObjectKind::Unknown};
  return Lists(kOwnedIfCreated, k);
}

const char *KindConnector(ObjectKind k) {
  static constexpr struct {
    ObjectKind kind;
    const char *text;
  } kConnectors[] = {
#define OWNSAN_KIND_CONNECTOR(Kind, Text) {ObjectKind::Kind, Text},
#include OWNSAN_HANDLE_TYPES_DEF
      {ObjectKind::Unknown, " in "}};
  for (const auto &c : kConnectors)
    if (c.kind == k)
      return c.text;
  return " in ";
}

const char *HandleTypeCType(HandleType type) {
  return kHandleTypedefs[static_cast<size_t>(type)];
}

} // namespace ownsan
