//===- runtime.h - The ownsan runtime: state machine of handles -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Runtime owns the OwnershipGraph (live objects), the ShadowMap (freed
// objects) and the StackDepot, and implements what the generated wrappers
// ask for through CallScope (interpose/wrapper_api.h). Its member functions
// are defined one file per job (docs/architecture.md, "The runtime's
// files"); the state machine is in tracker_registration.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_RUNTIME_H
#define OWNSAN_RUNTIME_RUNTIME_H

#include "core/address_filter.h"
#include "core/builder_positions.h"
#include "core/granule_bitmap.h"
#include "core/mutex.h"
#include "core/ownership_graph.h"
#include "core/quarantine.h"
#include "core/shadow_map.h"
#include "core/tls_model.h"
#include "report/error_report.h"
#include "report/stack_depot.h"
#include "report/suppressions.h"
#include "runtime/flags.h"
#include "runtime/profile.h"
#include "wrapper_api.h"

#include "absl/base/call_once.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <string>
#include <tuple>

namespace ownsan {

class Runtime;
struct OpenCall;
/// Set once, when the runtime is created; a plain load on the hot paths.
extern std::atomic<Runtime *> g_runtime
    __attribute__((visibility("hidden"))); // (read directly, not via GOT)

class Runtime {
public:
  /// The process-wide runtime (created by the library constructor).
  static Runtime &Get() {
    Runtime *r = g_runtime.load(std::memory_order_acquire);
    return __builtin_expect(r != nullptr, 1) ? *r : Create();
  }

  const Flags &flags() const { return flags_; }

  // --- From the generated wrappers (via CallScope). ---
  /// Checks one handle argument; true if the call must be skipped (a
  /// report was made and the run continues).
  bool CheckHandle(FnId fn, unsigned arg, const void *h, HandleType type);
  /// CheckHandle, then whether the handle names a value of the kinds in
  /// kKindExpectations[expected] (src/profiles/llvm_c/handle_kinds.spec).
  ArgVerdict CheckKindedHandle(FnId fn, unsigned arg, const void *h,
                               HandleType type, uint8_t expected);
  /// Applies the spec's before-effects; true if the real call must be
  /// skipped (the runtime holds a freed memory buffer in quarantine).
  bool Before(FnId fn, const void *const *args, void *const *slots);
  void After(FnId fn, const void *const *args, const void *ret, bool ok);
  void Register(FnId fn, const void *h, HandleType type);
  /// A string argument's bytes (MlirStringRef's `data`): reported if they
  /// are a lent string whose owner died.
  bool CheckStringRef(FnId fn, unsigned arg, const char *data);
  /// `length` bytes at `data` a call lent (the spec's `lends`), which
  /// `context` owns: they die with it.
  void RegisterLentString(FnId fn, const char *data, size_t length,
                          const void *context);

  // --- From the allocator. ---
  void OnAllocation(const void *p, size_t n); ///< new memory [p, p + n)
  /// operator delete of `size` bytes (0: unknown): records the death of the
  /// values that lived in the block, then keeps `p` in the quarantine if it
  /// holds a freed object's address (true), or leaves it to be freed.
  bool TakeIntoQuarantine(void *p, size_t size);
  /// The sanitizer free hook (an ASan allocator, whose quarantine delays
  /// reuse): records the death of the values that lived at `p`.
  void OnSanitizerFree(const void *p);
  /// Puts a chunk into the quarantine and releases what falls out.
  void Hold(Quarantine::Chunk chunk);
  /// Hold() for several chunks, with one lock.
  void HoldAll(const Quarantine::Chunk *chunks, size_t n);
  /// The malloc observer's tcache replay (native_reuse.cpp): without
  /// ownsan, glibc would have given `held` (`size` bytes), which the
  /// quarantine took, to the request that got `successor`.
  void NoteNativeSuccessor(const void *held, size_t size,
                           const void *successor);
  /// The live object that would be at `addr` without the quarantine (at
  /// the same offset in the native successor's block), or nullptr.
  const ObjectRecord *NativeSuccessorOf(const void *addr);
  /// Records the value deaths in the blocks operator delete released during
  /// this thread's running call (see DeferDeaths), then (`release`) holds or
  /// frees the blocks. Only the call that deferred them releases them.
  void FlushDeaths(bool release = true);
  /// Quarantine statistics (verbosity=1 prints them at exit).
  void PrintExitStatistics();

  /// pthread_atfork handlers.
  void PrepareFork();
  void AfterForkInParent();
  void AfterForkInChild();

  /// Called once a libLLVM is found (its code range, the crash handler).
  void OnLibLLVMFound(const std::string &path, int major);
  /// The observer's MemoryBuffer copy, or nullptr: libownsan_observer.so is
  /// loaded at the first need, not at start-up (dlopen, its pages and
  /// relocations cost every process, and few ever give a buffer away).
  void *(*ObserverCopyBuffer())(void *);
  /// Checks stop for the rest of the process, and the exit reports no leaks
  /// of what was seen before (an LLVM linked into an object, not a libLLVM:
  /// interpose/real_llvm.cpp; LLVM's deletions unseen: blind_spots.cpp).
  void StandDown();
  /// Link mode's start-up in place of OnLibLLVMFound: LLVM is part of the
  /// program (interpose/link_entry.cpp).
  void OnLinkedLLVM();
  /// Says what the preload cannot see (blind_spots.cpp), at start-up and
  /// when libLLVM `path` is found; stands down (false) when LLVM's deletions
  /// miss ownsan's operator delete and no sanitizer hook reports them.
  bool NoteBlindSpotsAtStart(bool sanitizer_sees_frees);
  void NoteLibLLVMAllocator(const std::string &path);

  /// Prints `message` as a one-line ownsan error and exits with status 1.
  [[noreturn]] static void Fatal(const std::string &message);

  // For tests and the benchmark.
  size_t LiveObjects();
  size_t FreedObjects();

private:
  Runtime();
  static Runtime &Create();

  /// `looked_up`: the caller found no live record of this kind at `h`.
  ObjectRecord *RegisterImpl(FnId fn, const void *h, HandleType type, int depth,
                             bool looked_up = false);
  /// Register() past its fast path.
  __attribute__((noinline)) void RegisterSlow(FnId fn, const void *h,
                                              HandleType type);
  /// The live record of `h`, or a new one for an object the program got
  /// from code ownsan does not see, of C type `type` (none for Other).
  ObjectRecord *FindOrAdopt(FnId fn, const void *h, HandleType type);
  void RegisterOpaque(FnId fn, const void *h, const char *type,
                      const void *parent);
  void RegisterString(FnId fn, const char *s, bool error_message,
                      bool unterminated = false);
  bool FreeString(FnId fn, unsigned arg, const void *s, bool error_message,
                  bool *skip);
  std::string SnapshotName(const ObjectRecord *r);
  static bool NameComesFromLLVM(const ObjectRecord *r);
  std::string ShortLabel(const ObjectRecord *r);

  StackId CurrentCallStack();
  /// `dwarf`: unwind with DWARF whatever fast_unwind says; `call_frame`:
  /// the running wrapper's frame, to walk up from (see stacks.cpp).
  StackId CaptureStack(bool from_inside_llvm, bool dwarf = false,
                       const void *call_frame = nullptr);
  /// Says once that the process's CPython is too old for Python frames.
  void NotePythonTooOld();
  /// The call's stack for a report (see its definition).
  StackId ReportUseStack();
  FreeEvent *CurrentFreeEvent(ObjectRecord *target);
  /// `intact`: the objects are still whole (the call is not forwarded yet),
  /// so names that change are read from LLVM; otherwise the names recorded
  /// earlier are kept.
  void FreeWithDescendants(ObjectRecord *root, FreeEvent *ev,
                           bool intact = true);
  // --- The effect interpreter (effects.cpp): one function per effect kind.
  /// One effect of a call, with what it names: `h` is the argument `e.arg`
  /// (or the result).
  struct EffectSite {
    FnId fn;
    const Effect &e;
    const void *h;
    const void *const *args;
    void *const *slots; ///< Before: where the wrapper reads each argument
    const void *ret;    ///< After: the result
    bool ok;            ///< After: the call succeeded
  };
  /// What a before-effect says about forwarding the call.
  enum class BeforeVerdict {
    kForward,  ///< go on
    kHoldBack, ///< the runtime holds the object: the real dispose waits
    kSkip,     ///< reported (continue mode): the call is not made
  };
  BeforeVerdict BeforeCauseText(const EffectSite &s);
  BeforeVerdict BeforeFree(const EffectSite &s);
  BeforeVerdict BeforeGiveAway(const EffectSite &s);
  BeforeVerdict BeforeConsume(const EffectSite &s);
  BeforeVerdict BeforeAttach(const EffectSite &s);
  BeforeVerdict BeforeFreeString(const EffectSite &s);
  void AfterNew(const EffectSite &s);
  void AfterRenames(const EffectSite &s);
  void AfterDetach(const EffectSite &s);
  void AfterAttach(const EffectSite &s);
  void AfterPosition(const EffectSite &s);
  void AfterConsumeIf(const EffectSite &s);
  void AfterForget(const EffectSite &s);
  void AfterOwn(const EffectSite &s);
  /// own(ret,by=J) / forget(ret): the handle a call returned is owned by
  /// arg J, or by a part of LLVM ownsan does not model.
  void AfterResultBelongsElsewhere(const EffectSite &s);
  /// LLVMDisposeMessage on a string a getter lent this thread (and still
  /// lends): reports it; false if it is not one.
  bool CheckLentStringFree(FnId fn, unsigned arg, const void *s);
  /// An object given away again while another object owns it: reported.
  bool CheckSecondOwner(FnId fn, unsigned arg, const void *h);
  bool CheckFreePrecondition(FnId fn, unsigned arg, EffectKind kind,
                             HandleType type, const void *h);
  bool CheckInsertionPoint(FnId fn, unsigned arg, const void *builder);
  bool CheckContext(FnId fn, unsigned arg, const void *h, ObjectRecord *r,
                    ContextUse *use);
  __attribute__((noinline)) void RecordClaimStack(ContextUse *use);
  /// CheckHandle when the per-thread record cache cannot decide.
  bool CheckHandleSlow(FnId fn, unsigned arg, const void *h, HandleType type);
  /// The live record at `h` (the thread's record cache first), or nullptr.
  ObjectRecord *LookupLive(const void *h);
  /// False if no live record can be at `h`: registration sets its bit in a
  /// set (under mu_, before publishing), cleared once its granule holds none.
  bool MaybeLive(const void *h) const {
    return granules_.OverlappingSets(h, 1, Granules::kAllSets) != 0;
  }
  /// graph_.Find(h), not looked up where MaybeLive says nothing lives.
  ObjectRecord *FindLive(const void *h) ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return MaybeLive(h) ? graph_.Find(h) : nullptr;
  }
  /// Every Value is deleted with operator delete: the watched values whose
  /// address lies in the block [p, p + size) being released died. True if
  /// there were any (their freed records now match addresses in the block).
  bool ValuesDied(const void *p, size_t size);
  /// operator delete (or the sanitizer free hook) released [p, p + size),
  /// which held unwatched objects ownsan believed live (C++ code deleted a
  /// module, context or builder): they died with their unwatched
  /// descendants, their freed records match. True if there were any.
  bool UnwatchedDied(const void *p, size_t size);
  /// UnwatchedDied() under mu_, with the call's free event taken already.
  void UnwatchedDiedLocked(ObjectRecord *r, FreeEvent *ev)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// ValuesDied() for a block released inside a wrapped call: recorded with
  /// the next FlushDeaths() (at the latest when the call returns), under one
  /// lock with the other blocks of the call. The block is held until then;
  /// kNotDeferred outside one (the caller records the deaths now);
  /// kNothingLives if nothing in the block lives (a bit read stale).
  enum class Deferral { kDeferred, kNotDeferred, kNothingLives };
  Deferral DeferDeaths(void *p, size_t size);
  bool AnyLiveIn(const void *p, size_t size); ///< watched or not
  /// Calls visit(r) on each live record at an address in [p, p + size)
  /// (watched or not), if the kLiveValues granules say there may be one.
  template <typename F>
  void ForEachRecordIn(const void *p, size_t size, F visit)
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  /// The watched record `r` died with `ev`, unless it was freed already.
  void ValueDied(ObjectRecord *r, FreeEvent *ev)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// The value's name as LLVM has it now (calls into LLVM: no lock held).
  static std::string ValueName(const void *h, ObjectKind kind);
  /// The module's identifier as LLVM has it now (likewise).
  static std::string ModuleName(const void *h);
  void SetPosition(ObjectRecord *builder, ObjectRecord *block,
                   ObjectRecord *before) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// A live record dies with `ev` (under mu_): into the shadow map.
  void MarkFreed(ObjectRecord *r, FreeEvent *ev)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// MarkFreed() of each of `rs`, sorted by address, one per address (a
  /// batch; `entries`: where their index entries are).
  void MarkFreedSorted(ObjectRecord *const *rs, size_t n, FreeEvent *ev,
                       ShadowMap::Placement entries)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// A live record (and its unwatched descendants) died where ownsan could
  /// not see it: forgotten, not matched (under mu_).
  void DropUnseen(ObjectRecord *r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// The record of a new object at `h` (graph_.Add), evicting the oldest
  /// history first if it is over its bound; `linked`: the record names the
  /// object that had the address before, if any.
  ObjectRecord *NewRecord(const void *h, ObjectKind kind, ObjectRecord *parent,
                          bool linked) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// Bookkeeping for a record that just died (under mu_): builders that
  /// pointed at it now dangle.
  void NoteDeath(ObjectRecord *r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// LLVM released the memory at `p` with free(), unseen (a buffer or a
  /// string the quarantine held whole): the address stops matching.
  void ForgetReleasedAddress(const void *p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// The same for every address in a block (one that held lent strings).
  void ForgetReleasedBlock(const void *p, size_t size)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  enum GranuleSet : unsigned { kLiveValues, kReuseWatched }; // (granules_)
  using Granules = GranuleBitmap<3, 2>;
  void ForgetUnwatchedGranules(const void *p, size_t size, // (kReuseWatched)
                               bool emptied) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // --- Ownership sub-states of a LIVE record (tracker_registration.cpp). ---
  /// Detached from its parent: the caller owns it now.
  void MarkCallerOwned(ObjectRecord *r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// Inserted into `parent` (a function, a block), or into nothing known.
  void MarkAttached(ObjectRecord *r, ObjectRecord *parent)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// Given to `owner` by `via` (a module to an engine): it dies with the
  /// owner and is not the caller's to free. A null owner keeps the parent.
  void MarkOwnedBy(ObjectRecord *r, ObjectRecord *owner, FnId via)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// Given by `via` to a part of LLVM ownsan does not model: not the
  /// caller's to free, not a leak.
  void MarkOwnedByLLVM(ObjectRecord *r, FnId via)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // --- The history bound (history_size_mb). ---
  /// One record of the history. The first record that died with a free
  /// event also pays for the event (events are shared, and one that made a
  /// call's only death, a thread's builder say, costs as much again).
  class HistoryEntry {
  public:
    HistoryEntry(ObjectRecord *r, bool pays_event)
        : bits_(reinterpret_cast<uintptr_t>(r) | uintptr_t(pays_event)) {}
    ObjectRecord *record() const {
      return reinterpret_cast<ObjectRecord *>(bits_ & ~uintptr_t(1));
    }
    /// What keeping it costs, as history_size_mb counts it.
    size_t bytes() const {
      return sizeof(ObjectRecord) + sizeof(HistoryEntry) +
             record()->name.footprint() + (bits_ & 1 ? sizeof(FreeEvent) : 0);
    }

  private:
    uintptr_t bits_; // (records are 64-byte aligned: bit 0 is free)
  };
  /// `r` just died (or was dropped): the newest history.
  void AddToHistory(ObjectRecord *r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    FreeEvent *ev = const_cast<FreeEvent *>(r->freed);
    bool pays_event = ev && !ev->charged;
    if (pays_event)
      ev->charged = true;
    history_.emplace_back(r, pays_event);
    history_bytes_ += history_.back().bytes();
    history_peak_bytes_ = std::max(history_peak_bytes_, history_bytes_);
  }
  /// Over the bound: evicts the oldest records until half of it is left
  /// (see the state machine in tracker_registration.cpp). Not while a thread is
  /// making a report from a freed record outside mu_ (history_pins_).
  void EvictHistory() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  /// Holds eviction off while a record found under mu_ is read outside it
  /// (a report being made). Take() under mu_.
  class HistoryPin {
  public:
    explicit HistoryPin(Runtime *rt) : rt_(rt) {}
    ~HistoryPin() {
      if (taken_)
        rt_->history_pins_.fetch_sub(1, std::memory_order_release);
    }
    void Take() {
      if (!taken_)
        rt_->history_pins_.fetch_add(1, std::memory_order_relaxed);
      taken_ = true;
    }

  private:
    Runtime *rt_;
    bool taken_ = false;
  };
  /// What a stale handle at `addr` names, for a use whose kind test is
  /// `accepts` (a freed object of another kind says nothing: its memory
  /// may hold an object ownsan never saw made): the freed record, pinned
  /// for the caller to read without mu_, or what is left of one whose
  /// history was evicted.
  struct FreedAt {
    ObjectRecord *record = nullptr;
    bool evicted = false;
    ShadowMap::EvictedObject what{};
  };
  template <typename Accepts>
  FreedAt FindFreedLocked(const void *addr, Accepts accepts, HistoryPin *pin)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    FreedAt out;
    if (ObjectRecord *r = shadow_.Find(addr)) {
      if (accepts(r->kind)) {
        out.record = r;
        pin->Take();
      }
      return out;
    }
    out.evicted =
        shadow_.FindEvicted(addr, &out.what) && accepts(out.what.kind);
    return out;
  }

  // --- Report constructors (errors.cpp): one per kind and variant, the
  // only code that writes a report's sentence. Each returns Report()'s
  // verdict: true when the offending call is to be skipped.
  /// A report of `kind` on `object`, passed as argument `arg` of `fn` on
  /// this thread, with this call's stack.
  ErrorReport NewReport(ErrorKind kind, const ObjectRecord *object,
                        const void *handle, FnId fn, unsigned arg);
  /// use-after-free, double-free or use-after-consume of a freed object
  /// whose record is kept; `now`: what lives at its address now, if any.
  bool ReportFreedUse(FnId fn, unsigned arg, const void *h,
                      const ObjectRecord *freed, const ObjectRecord *now);
  /// double-free of an owned string.
  bool ReportStringFreedTwice(FnId fn, unsigned arg, const void *s,
                              const ObjectRecord *freed);
  /// A use (or second free) of `h`, whose freed object's record was
  /// evicted: reported from what the shadow map kept (its kind).
  bool ReportEvicted(FnId fn, unsigned arg, const void *h,
                     ShadowMap::EvictedObject what);
  /// invalid-free of an object the caller gave away.
  bool ReportOwnedFree(FnId fn, unsigned arg, const void *h, ObjectRecord *r);
  /// invalid-free by a detached-only free of an attached object.
  bool ReportFreeOfAttached(FnId fn, unsigned arg, const void *h,
                            ObjectRecord *r, const char *what,
                            const std::string &parent_label,
                            bool tolerated = false);
  /// invalid-free by an erase-style free of a detached object.
  bool ReportFreeOfDetached(FnId fn, unsigned arg, const void *h,
                            ObjectRecord *r, const char *what,
                            const char *container);
  /// invalid-free of an owned string by the other string deallocator.
  bool ReportWrongDeallocator(FnId fn, unsigned arg, const void *s,
                              ObjectRecord *r, bool error_message);
  /// invalid-free of a string `lender` lent, owned by `owner`.
  bool ReportLentStringFree(FnId fn, unsigned arg, const void *s,
                            ObjectRecord *r, FnId lender, ObjectRecord *owner);
  bool ReportDanglingInsertionPoint(FnId fn, unsigned arg, const void *h,
                                    ObjectRecord *builder, ObjectRecord *dead);
  // (CheckContext's rare branches are out of line so that its common path,
  // a claim, stays small.)
  __attribute__((noinline)) bool
  ReportContextRace(FnId fn, unsigned arg, ObjectRecord *r, ContextUse *use,
                    uint32_t owner, const OpenCall &open);
  __attribute__((noinline)) bool ReportCrossContext(FnId fn, unsigned arg,
                                                    const void *h,
                                                    ObjectRecord *r,
                                                    ObjectRecord *ctx);
  /// invalid-transfer: `r` given away again while `owner` owns it.
  bool ReportAttachOfAttached(FnId fn, unsigned arg, const void *h,
                              ObjectRecord *r, const Container &now,
                              const std::string &owner);
  bool ReportSecondOwner(FnId fn, unsigned arg, const void *h, ObjectRecord *r,
                         const ObjectRecord *owner);
  __attribute__((noinline)) ArgVerdict ReportWrongKind(FnId fn, unsigned arg,
                                                       const void *h,
                                                       ObjectRecord *r,
                                                       uint8_t expected);

  /// Reports (or counts, or suppresses) a problem. Halts unless
  /// halt_on_error=0 or a binding installed an error callback; then returns
  /// true: the offending call is skipped.
  bool Report(ErrorReport report);
  /// Would the call a suppressed report let through free memory twice or
  /// corrupt it (a double dispose)? Then it is skipped all the same.
  static bool SuppressedCallHarms(const ErrorReport &rep);
  /// llvm-symbolizer to use ("" when symbolize=0).
  std::string SymbolizerPath() const;
  void WriteOut(const std::string &text)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(report_mu_);
  /// Writes one line that is not a report (a JSON record) where reports go.
  void WriteRecord(const std::string &text);
  void OnExit();
  void ReportLeaks(std::string *out, size_t *leaked);

public:
  /// The public API (include/ownsan/ownsan.h).
  using ErrorCallback = void (*)(const char *kind, const char *report,
                                 void *user);
  void SetErrorCallback(ErrorCallback cb, void *user);
  int HandleState(const void *h);
  std::string DescribeHandle(const void *h);

private:
  Flags flags_;
  Mutex mu_;
  OwnershipGraph graph_ ABSL_GUARDED_BY(mu_);
  ShadowMap shadow_ ABSL_GUARDED_BY(mu_){graph_.Index(), shadow_filter_};
  /// Freed (and dropped) records, oldest first: the history
  /// history_size_mb bounds.
  std::deque<HistoryEntry, InternalAllocator<HistoryEntry>>
      history_ ABSL_GUARDED_BY(mu_);
  size_t history_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t history_peak_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t history_limit_ = 0;
  size_t evicted_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<int> history_pins_{0};
  /// 16-byte granules that ever held a shadow entry (set by shadow_, whose
  /// look-ups it filters).
  AddressFilter shadow_filter_;
  /// 8-byte granules: live watched values (kLiveValues, cleared at death);
  /// matched freed entries, live unwatched records (kReuseWatched, lazily).
  /// The hooks ask both of a block at once, without the lock.
  Granules granules_;
  StackDepot depot_;
  StackId empty_stack_ = 0;
  Mutex report_mu_;

  /// Builders whose insertion block or instruction died: checked on use.
  AddressFilter dangling_builders_;
  /// Where lent strings were registered: a block leaving the quarantine
  /// here stops matching at once (a program string the allocation hook
  /// does not see, from realloc or mmap, may come next; see strings.cpp).
  AddressFilter lent_string_pages_;
  /// Block/instruction record -> builders positioned at it.
  BuilderPositions positioned_at_ ABSL_GUARDED_BY(mu_);
  /// In a fork() child with report_leaks: the objects to dispose that the
  /// parent had made, not leaks of this process.
  absl::flat_hash_set<const ObjectRecord *> inherited_ ABSL_GUARDED_BY(mu_);
  /// Where a leak was made: its creating call and stack, kind and address.
  struct LeakSite {
    FnIndex fn;
    StackId stack;
    uint32_t thread;
    ObjectKind kind;
    const void *addr;
    const char *type_name; ///< an opaque object's C type, or null
  };
  /// Caller-owned objects a root's death ended (OWNSAN_KIND_ENDS_WATCHED)
  /// before the caller disposed of them: leaks at exit.
  std::vector<LeakSite> ended_leaks_ ABSL_GUARDED_BY(mu_);
  /// Is a live `r` the caller's to dispose (a leak if alive at exit)?
  static bool CallerMustDispose(const ObjectRecord *r);

  // Blind spots (blind_spots.cpp).
  void SayBlindSpot(const char *what, const std::string &object,
                    const std::string &text);
  void LookForStaticLLVM();
  void NoteBlindSpotsAtExit();
  Mutex blind_mu_; // a leaf: nothing is called with it held
  absl::flat_hash_set<std::string>
      blind_objects_read_ ABSL_GUARDED_BY(blind_mu_);
  std::vector<std::string> blind_spots_ ABSL_GUARDED_BY(blind_mu_);
  unsigned long long blind_objects_loaded_ ABSL_GUARDED_BY(blind_mu_) = 0;
  absl::flat_hash_set<std::string> blind_bypassing_ ABSL_GUARDED_BY(blind_mu_);

  // Reports (report_mu_).
  struct Problem {
    std::string problem_id, kind, summary, text, json;
    size_t count = 0;
  };
  absl::flat_hash_map<std::tuple<int, FnId, StackId, StackId>, size_t>
      problem_index_ ABSL_GUARDED_BY(report_mu_);
  size_t handled_by_callback_ ABSL_GUARDED_BY(report_mu_) = 0;
  int report_fd_ = 2; ///< a copy of stderr taken at start-up
  std::vector<Problem> problems_ ABSL_GUARDED_BY(report_mu_);
  size_t printed_ ABSL_GUARDED_BY(report_mu_) = 0;
  int log_fd_ ABSL_GUARDED_BY(report_mu_) = -1;
  bool log_tried_ ABSL_GUARDED_BY(report_mu_) = false;
  Suppressions suppressions_ ABSL_GUARDED_BY(report_mu_);
  std::atomic<ErrorCallback> error_callback_{nullptr};
  std::atomic<void *> error_callback_user_{nullptr};

  Mutex quarantine_mu_;
  Quarantine quarantine_ ABSL_GUARDED_BY(quarantine_mu_);

  struct NativeSuccessor { // where glibc would have put a held block
    const void *held = nullptr;
    size_t size = 0;
    const void *successor = nullptr;
  };
  static constexpr size_t kNativeSuccessors = 256;
  Mutex native_reuse_mu_; // a leaf
  NativeSuccessor
      native_successors_[kNativeSuccessors] ABSL_GUARDED_BY(native_reuse_mu_);
  size_t native_successors_next_ ABSL_GUARDED_BY(native_reuse_mu_) = 0;

  // The C++ helper (libownsan_observer.so), loaded by ObserverCopyBuffer.
  void *(*observer_copy_)(void *) = nullptr; ///< copies a MemoryBuffer
  absl::once_flag observer_once_;
  /// The checked libLLVM's major (OnLibLLVMFound; the observer must match).
  std::atomic<int> libllvm_major_{0};
  std::atomic<const void *> global_context_{nullptr};
  /// exit() has begun: unwatched objects dying now are not recorded freed.
  std::atomic<bool> exiting_{false};
  std::atomic<bool> stood_down_{false}; ///< see StandDown
};

/// This thread's number + 1, 0 until first asked (a trivial thread-local:
/// no guard). Defined in thread_state.cpp.
extern __thread uint32_t tls_thread_number_plus_one OWNSAN_TLS_MODEL
    __attribute__((visibility("hidden")));
/// Numbers the calling thread (T0 is the main thread).
uint32_t NumberThisThread();
/// The calling thread's number, as reports show it (T0, T1...). Inline: a
/// context claim on every checked call reads it.
inline uint32_t CurrentThreadNumber() {
  uint32_t n = tls_thread_number_plus_one;
  if (__builtin_expect(n == 0, 0))
    return NumberThisThread();
  return n - 1;
}
/// CurrentThreadNumber() + 1: never 0 (what context claims store).
inline uint32_t CurrentThreadNumberPlusOne() {
  uint32_t n = tls_thread_number_plus_one;
  if (__builtin_expect(n == 0, 0))
    return NumberThisThread() + 1;
  return n;
}

} // namespace ownsan

#endif // OWNSAN_RUNTIME_RUNTIME_H
