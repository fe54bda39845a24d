//===- wrapper_api.h - What the generated wrappers call ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The generated wrappers (build/gen/wrappers.cpp, see tools/gen_wrappers.py)
// include only this header and the llvm-c headers. Every wrapper has the same
// shape (the lines marked "if" appear when the function has such arguments,
// spec effects or results):
//
//   // spec: LLVMFoo ...                                    (if spec'd)
//   extern "C" OWNSAN_EXPORT R LLVMFoo(A0 p0, A1 *p1, unsigned p2) {
//     ownsan::CallScope call(ownsan::kFn_LLVMFoo, __builtin_return_address(0));
//     const void *args[] = {(const void *)p0, nullptr, nullptr}; // if spec'd
//     if (call.Checking()) {
//       call.CheckHandle(0, p0, ownsan::HandleType::Module);   // each handle
//       call.CheckArray(1, p1, p2, ownsan::HandleType::Value); // handle arrays
//       call.Before(args);                                     // if spec'd
//     }
//     if (call.Skipped())  // held back by the runtime: a neutral result
//       return R{};
//     R r = ownsan::Real<R (*)(A0, A1 *, unsigned)>(ownsan::kFn_LLVMFoo)(
//         p0, p1, p2);
//     if (call.Checking()) {
//       call.After(args, (const void *)r, true);   // if spec'd (ok: success)
//       call.OutArray(1, p1, n, ownsan::HandleType::Value); // spec'd out_array
//       call.Returned(r, ownsan::HandleType::Value);  // handle results and
//                                                     // Out* parameters
//       call.BorrowedString(r, ...);                  // lent `const char *`
//     }
//     return r;
//   }
//
// `args` holds the call's handle arguments (as const void*), so the
// spec's effects ("free argument 0", "detach argument 1") are interpreted by
// the runtime, not spelled out in generated code.
//
// The runtime's own calls into libLLVM (classification, labels, disposers)
// use the typed entry points of build/gen/real_fns.h, generated from the
// same headers: ownsan::real::LLVMFoo(p0, p1, p2) makes the call above.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_INTERPOSE_WRAPPER_API_H
#define OWNSAN_INTERPOSE_WRAPPER_API_H

#include "core/object_record.h"
#include "core/tls_model.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

#define OWNSAN_EXPORT __attribute__((visibility("default")))

// The two ways in (docs/architecture.md) differ only here. Preloaded, a
// wrapper is named LLVMFoo and calls the libLLVM loaded in the process.
// Linked in (link mode, OWNSAN_LINK_MODE=1), `ld --wrap=LLVMFoo` sends the
// program's calls to __wrap_LLVMFoo, a trampoline to ownsan_link_LLVMFoo,
// which calls __real_LLVMFoo: the program's own, statically linked LLVMFoo.
#if OWNSAN_LINK_MODE
#define OWNSAN_WRAPPER_NAME(fn) ownsan_link_##fn
// A __real_LLVMFoo the linker left unbound is address 0: lld 14 binds
// --wrap's __real_X to nothing when no other reference pulls X's archive
// member in. Calling it would crash in the runtime; say so instead.
#define OWNSAN_REAL(fn, type) (::ownsan::LinkedReal(__real_##fn, #fn))
#define OWNSAN_REAL_WEAK __attribute__((weak))
#else
#define OWNSAN_WRAPPER_NAME(fn) fn
#define OWNSAN_REAL(fn, type) (::ownsan::Real<type>(::ownsan::kFn_##fn))
#define OWNSAN_REAL_WEAK
#endif

namespace ownsan {

#if OWNSAN_LINK_MODE
/// Stops the program with one line: the C API function `fn` is not linked
/// in (interpose/link_entry.cpp).
[[noreturn]] void LinkedWithout(const char *fn);

/// `real`, checked to be linked in. (The empty asm keeps the compiler from
/// assuming that a function's address is never null.)
template <typename F> inline F *LinkedReal(F *real, const char *fn) {
  asm("" : "+r"(real));
  if (__builtin_expect(real == nullptr, 0))
    LinkedWithout(fn);
  return real;
}
#endif

// HandleType: core/handle_types.h (the table
// src/profiles/llvm_c/handle_types.def).

/// Identifies a wrapped function: index into the generated tables.
using FnId = uint16_t;

/// One effect of a spec entry (src/profiles/llvm_c/ownership.spec), interpreted
/// by the runtime before or after the real call.
enum class EffectKind : uint8_t {
  Free,            ///< arg is destroyed with everything it owns
  FreeAttached,    ///< like Free; the arg must still be in its parent
  FreeDetached,    ///< like Free; the arg must not be in a parent
  FreeCallerOwned, ///< like Free; the header says not in a parent, the
                   ///< library tolerates it (strict_ownership=1 reports)
  Detach,          ///< arg leaves its parent; the caller owns it now
  Attach,          ///< arg gets a parent: arg `other` (a function or block)
  AttachAtBuilder, ///< arg gets the insert block of builder arg `other`
  OutArray,        ///< arg is an array of handles the call fills (count given)
  Position,     ///< builder arg is positioned: in block `other`, before `extra`
  CauseText,    ///< string arg describes what the call does (a pass pipeline)
  Renames,      ///< value arg gets a new name (kept for reports once freed)
  SerializedBy, ///< arg (an engine) serializes the call: no context claim
  DataOnly,     ///< LLVM only reads arg as data (a shuffle mask's integers):
                ///< it takes no part in the context checks
  New,          ///< a new caller-owned object: the result (arg == kRet) or
                ///< out param `arg`; its parent is arg `other` (or none)
  Consume,      ///< arg now belongs to LLVM: the caller must not touch it
  ConsumeIfOk,  ///< Consume, when the call succeeded
  ConsumeIfFailed, ///< Consume, when the call failed (EE constructors)
  Own,          ///< arg is now owned by arg `other`: not the caller's to free
  OwnByOut,     ///< arg is now owned by the new object in out param `other`
  Message,      ///< an owned string (LLVMDisposeMessage): result or out param
  ErrorMessage, ///< an owned string for LLVMDisposeErrorMessage (result)
  FreeMessage,  ///< string arg is released with LLVMDisposeMessage
  FreeErrorMessage, ///< string arg is released with LLVMDisposeErrorMessage
  Forget, ///< arg now belongs to a part of LLVM ownsan does not model (ORC):
          ///< still usable, never the caller's to free or leak
  UnterminatedMessage, ///< Message with no NUL terminator (the result)
  Lends, ///< the result is a string whose bytes a context owns (the wrapper
         ///< calls CallScope::LentString with it)
};

constexpr uint8_t kNoArg = 255;
constexpr uint8_t kRet = 254; ///< Effect::arg naming the call's result
constexpr uint8_t kFreesMallocedArray = 1; ///< Effect::extra of a Free
/// Effect::extra of New/Message on an out parameter: when LLVM writes it.
constexpr uint8_t kWrittenAlways = 0;
constexpr uint8_t kWrittenIfOk = 1;
constexpr uint8_t kWrittenIfFailed = 2;

struct Effect {
  EffectKind kind;
  uint8_t arg;   ///< which argument (0-based), or kRet
  uint8_t other; ///< second argument for Attach*, Position, New, Own*
  /// Position: the instruction to insert before, or kNoArg. New/Message on
  /// an out param: when LLVM writes it (kWritten*).
  /// Own/Forget of the result (arg == kRet): the result's HandleType.
  /// Free: kFreesMallocedArray if the arg is a malloc'ed array LLVM handed
  /// out (its disposer is just free()).
  uint8_t extra;
  const char *type = nullptr; ///< New/Own: the object's C handle type
  /// The C type of argument `arg` (Other for the result or a non-handle):
  /// how to adopt an object ownsan never saw that the call frees or takes.
  HandleType arg_type = HandleType::Other;
};

/// Per-function static facts, emitted by the generator. Offsets, not
/// pointers: the table needs no relocation, so its pages are neither
/// written nor faulted in at start-up (WrappedFnName, FnEffects).
struct FnInfo {
  uint32_t name;         ///< offset of the name in kFnNames
  uint16_t first_effect; ///< index of the first spec effect in kEffects
  uint8_t num_effects;
  /// The arguments that take no part in the context checks, from the
  /// effects: bit i for argument i < 7 (data_only), kAllContextExempt if
  /// every one (serialized_by). Read on every checked call's first handle.
  uint8_t context_exempt;
};
constexpr uint8_t kAllContextExempt = 0x80;

extern const FnInfo kFnInfo[];
/// Every function's name, NUL-terminated, in FnId order (which is strcmp
/// order: the dlsym interposer and link mode binary-search it).
extern const char kFnNames[];
/// Every function's spec effects, in FnId order.
extern const Effect kEffects[];

inline const char *WrappedFnName(FnId fn) {
  return kFnNames + kFnInfo[fn].name;
}
inline const Effect *FnEffects(FnId fn) {
  return kEffects + kFnInfo[fn].first_effect;
}

/// kFnFlags[fn]: facts about a function that are not effects, computed by
/// the generator from its name (the profile's fn_flags.txt) and
/// listed in its classification line (`flags=[...]`).
extern const uint8_t kFnFlags[];
constexpr uint8_t kFnIsCast = 1; ///< LLVMIsA*: hands back its argument or
                                 ///< NULL; the result is not registered
/// Inserts at a builder's insertion point (LLVMBuild*, ...): a builder left
/// pointing into freed IR is reported.
constexpr uint8_t kFnUsesInsertionPoint = 2;
/// Its result is a new object the caller owns (LLVMContextCreate,
/// mlirOperationCreate): for the kinds whose live objects at exit are leaks
/// only when such a call made them (OWNSAN_KIND_OWNED_IF_CREATED).
constexpr uint8_t kFnCreates = 4;
extern const unsigned kFnCount;

/// strcmp, without libc and sanitizer instrumentation (for the interposers
/// a sanitizer's own start-up calls, before its interceptors of strcmp &
/// co. and its shadow memory work: interpose/fn_names.cpp).
int CompareWithoutLibc(const char *a, const char *b);
/// The FnId of the wrapped function called `name`, or kFnCount if none
/// (interpose/fn_names.cpp: a binary search of kFnNames, safe to call from
/// a sanitizer's own start-up).
unsigned FnIdOfName(const char *name);
inline bool IsWrappedName(const char *name) {
  return FnIdOfName(name) < kFnCount;
}

/// The kinds of value a handle argument must name (one row of
/// src/profiles/llvm_c/handle_kinds.spec): a bit per ObjectKind, and how a
/// report says it ("a function"). Entry 0 is "no expectation".
struct KindExpectation {
  uint32_t kinds;
  const char *description;
};
extern const KindExpectation kKindExpectations[];

/// What checking one argument decided.
enum class ArgVerdict : uint8_t {
  Ok,
  Skip,       ///< reported: the call must not happen
  Unverified, ///< the kind could not be checked (unknown handle): forward
              ///< the call, but do not trust what it returns
};

/// The real entry points, resolved from the libLLVM actually loaded.
extern std::atomic<void *> g_real_fns[];
void *ResolveReal(FnId fn); // never returns nullptr (dies with a message)

template <typename F> inline F Real(FnId fn) {
  void *p = g_real_fns[fn].load(std::memory_order_acquire);
  if (__builtin_expect(p == nullptr, 0))
    p = ResolveReal(fn);
  return reinterpret_cast<F>(p);
}

/// Thread state shared by the wrappers; lives in the runtime. Plain
/// (constant-initialized) thread locals: the wrappers reach them with one
/// TLS-relative load, no guard and no call.
struct ThreadCallState {
  unsigned depth = 0;      ///< nesting of wrapped calls on this thread
  bool in_runtime = false; ///< the runtime itself is running (no checks)
  /// Nesting of the program's signal handlers running on this thread
  /// (interpose/signal_entry.cpp): their calls are forwarded unchecked,
  /// since checking may allocate and a handler may have interrupted malloc.
  uint8_t signal_depth = 0;
  /// Blocks released during the running call whose value deaths the
  /// runtime has yet to record (Runtime::DeferDeaths).
  uint16_t pending_deaths = 0;
  /// Checked calls this thread made (verbosity=1 statistics). Only this
  /// thread writes it, as a plain increment; the runtime reads it from
  /// another thread at exit, hence the atomic.
  std::atomic<uint64_t> calls{0};
  /// Handle arguments of those calls that named no object ownsan ever saw
  /// (made by C++ code: the `unseen-handles` blind spot). The same.
  std::atomic<uint64_t> unseen_handle_args{0};
};
/// The first checked call of a thread: lists its counter for the exit
/// statistics.
void NoteFirstCall();
extern __thread ThreadCallState tls_call_state OWNSAN_TLS_MODEL;
inline ThreadCallState &CurrentThreadCallState() { return tls_call_state; }
extern std::atomic<bool> g_enabled;
/// Wrapped calls made from the program's signal handlers (unchecked).
extern std::atomic<uint64_t> g_signal_handler_calls;

struct FreeEvent;
struct ObjectRecord;

/// What the runtime knows about the outermost wrapped call on this thread.
/// Entered and left inline by CallScope; the rest is the runtime's.
/// With no call open, stack, event, cause_text, context and null_args are
/// zero: the scope that closes a call clears them.
///
/// Other threads read `fn`, `caller_pc` and `context` of this one, and of
/// its saved outer calls, to tell whether it is inside a call on a context
/// now (src/runtime/contexts.cpp), holding the thread registry's lock
/// that keeps the thread from exiting meanwhile.
struct CallContext {
  FnId fn = 0xffff;   ///< kNoFn: no wrapped call is running
  uint32_t stack = 0; ///< StackId of the call, once captured
  FreeEvent *event = nullptr;
  /// CauseText argument of the call, if any (valid during the call).
  const char *cause_text = nullptr;
  /// The context the call's handles belong to (the call claimed it), and
  /// the argument that named it first.
  ObjectRecord *context = nullptr;
  unsigned context_arg = 0;
  /// Values LLVM deletes outside any wrapped call share one event until the
  /// next wrapped call starts (one stack capture per burst, not per value).
  FreeEvent *orphan_event = nullptr;
  /// Where the program called the wrapper from (its return address): what a
  /// race report shows of a thread whose stack was not recorded.
  const void *caller_pc = nullptr;
  /// The frame of the call's wrapper (CallScope::Frame) and the nesting
  /// depth it was entered at. A jump (longjmp) out of the call never runs
  /// its CallScope's destructor; the frame tells that the scope was left
  /// (see CallScope::BeforeJump, EnterNested).
  const void *frame = nullptr;
  unsigned level = 0;
  /// The handle arguments (a bit per index below 32) the call was given
  /// NULL in: what the crash handler names when LLVM faults on NULL.
  uint32_t null_args = 0;
};
extern __thread CallContext tls_call OWNSAN_TLS_MODEL;

/// The handle this thread registered last, with its record and type: a call
/// in a loop that returns one object over and over (LLVMTypeOf on values of
/// one type) finds it here without leaving the wrapper.
struct LastReturned {
  const void *handle = nullptr;
  const ObjectRecord *record = nullptr;
  HandleType type = HandleType::Other;
};
extern __thread LastReturned tls_last_returned OWNSAN_TLS_MODEL;
/// `record` still names a live object at `h`.
/// (A record's slot may be reused for another object, which writes the new
/// address before the state says Live: the address is read again after.)
inline bool LiveAt(const ObjectRecord *record, const void *h) {
  return __atomic_load_n(&record->addr, __ATOMIC_RELAXED) == h &&
         record->state.load(std::memory_order_acquire) == ObjectState::Live &&
         __atomic_load_n(&record->addr, __ATOMIC_RELAXED) == h;
}

/// The record of `h` if it is the handle this thread registered last and
/// its object still lives there (no hashing: a loop's next handle is most
/// often what the call before returned), else nullptr.
inline const ObjectRecord *LastReturnedLive(const void *h) {
  const LastReturned &last = tls_last_returned;
  return last.handle == h && LiveAt(last.record, h) ? last.record : nullptr;
}

/// RAII scope of one wrapped call. Calls made while the runtime itself is
/// working are plain forwards; calls nested in another wrapped call come from
/// the program's callbacks (or its signal handlers) and are checked on a
/// saved call context.
///
/// A signal handler's wrapped call may interrupt this code anywhere: the
/// call context is published with its `fn` written last and retired with
/// `fn` cleared first (compiler fences keep that order), so a nested call
/// finds either no call or a whole one, which it saves and restores.
class CallScope {
public:
  /// `caller_pc`: the wrapper's return address (__builtin_return_address).
  // (Always inlined: a call out of line costs a frame of its own, a good
  // part of a wrapper's; the profile leaves rarely-trained wrappers without.)
  [[gnu::always_inline]] explicit CallScope(FnId fn,
                                            const void *caller_pc = nullptr)
      : fn_(fn) {
    // Calls nested in a wrapped call come from the program's callbacks
    // (diagnostic handlers, ORC materializers): libLLVM binds its own C API
    // calls internally. They are checked too, on a saved call context.
    ThreadCallState &state = tls_call_state;
    level_ = state.depth;
    state.depth = level_ + 1;
    checking_ = g_enabled.load(std::memory_order_relaxed);
    if (__builtin_expect(UncheckedBits(state) != 0, 0)) {
      if (checking_ && !state.in_runtime)
        g_signal_handler_calls.fetch_add(1, std::memory_order_relaxed);
      checking_ = false;
    }
    if (checking_) {
      uint64_t calls = state.calls.load(std::memory_order_relaxed) + 1;
      state.calls.store(calls, std::memory_order_relaxed);
      if (__builtin_expect(calls == 1, 0))
        NoteFirstCall();
      if (level_ != 0) {
        Entered e = EnterNested(fn, Frame(), caller_pc);
        level_ = e.level;
        checking_ = e.checking;
      } else {
        Publish(fn, Frame(), 0, caller_pc);
      }
    }
  }
  [[gnu::always_inline]] ~CallScope() {
    if (checking_) {
      CallContext &call = tls_call;
      // Case: calls inside this one were left by a jump (their scopes are
      // still open), or this scope was closed already.
      if (__builtin_expect(call.frame != Frame() || call.fn == 0xffff, 0) &&
          !CloseScopesInside(Frame())) {
        tls_call_state.depth = level_;
        return;
      }
      if (tls_call_state.pending_deaths)
        FlushDeaths();
      call.fn = 0xffff;
      std::atomic_signal_fence(std::memory_order_seq_cst);
      // (Ends this call's claim of its context: see Runtime::CheckContext.)
      __atomic_store_n(&call.context, nullptr, __ATOMIC_RELEASE);
      call.stack = 0;
      call.event = nullptr;
      call.cause_text = nullptr;
      call.null_args = 0;
      if (level_ != 0)
        LeaveNested();
    }
    // (Absolute, not a decrement: scopes a jump left inside this one count
    // no more.)
    tls_call_state.depth = level_;
  }
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

  bool Checking() const { return checking_; }
  /// The runtime decided the real call must not happen.
  bool Skipped() const { return skip_; }
  /// An argument's kind could not be checked (ArgVerdict::Unverified).
  bool Unverified() const { return unverified_; }

  /// Checks one handle argument before it reaches LLVM.
  [[gnu::always_inline]] void CheckHandle(unsigned arg, const void *h,
                                          HandleType type) {
    if (!h) {
      NoteNullArg(arg);
      return;
    }
    // (`type` is a constant in every wrapper: one of the two calls stays.)
    if (HasFastCheck(type) ? CheckHandleArg(fn_, arg, h, type)
                           : CheckHandleArgFully(fn_, arg, h, type))
      skip_ = true;
  }
  /// The same for an argument that must name a value of the kinds in
  /// kKindExpectations[expected].
  void CheckHandle(unsigned arg, const void *h, HandleType type,
                   uint8_t expected) {
    if (!h)
      NoteNullArg(arg);
    if (!h || skip_)
      return;
    switch (HasFastCheck(type)
                ? CheckKindedArg(fn_, arg, h, type, expected)
                : CheckKindedArgFully(fn_, arg, h, type, expected)) {
    case ArgVerdict::Ok:
      break;
    case ArgVerdict::Skip:
      skip_ = true;
      break;
    case ArgVerdict::Unverified:
      unverified_ = true;
      break;
    }
  }
  /// Checks an input array of `n` handles.
  void CheckArray(unsigned arg, const void *const *hs, size_t n,
                  HandleType type);
  /// Spec hooks, with the call's handle arguments (nullptr for others).
  void Before(const void *const *args);
  /// `slots` are the addresses of the parameters, for effects that hand
  /// LLVM a stand-in (a consumed memory buffer's copy).
  void Before(const void *const *args, void *const *slots);
  /// `ret`: the result if it is a pointer; `ok`: the call succeeded.
  void After(const void *const *args, const void *ret = nullptr,
             bool ok = true);
  /// The out-array effect needs its element count, computed by the wrapper.
  void OutArray(unsigned arg, const void *const *hs, size_t n, HandleType type);
  /// Registers a handle LLVM returned.
  [[gnu::always_inline]] void Returned(const void *h, HandleType type) {
    // (After a call with an argument of unverified kind the result may be
    // garbage: LLVM read the argument as another kind. It is not classified.)
    if (!h || unverified_)
      return;
    if (tls_last_returned.type == type && LastReturnedLive(h))
      return; // known: registered by this thread last, still live
    RegisterResult(fn_, h, type);
  }
  /// A string LLVM lent (a borrowed `const char *` result) and how to ask
  /// for it again: LLVMDisposeMessage on it is an invalid free, which the
  /// runtime confirms with `reget` before reporting. Up to 3 arguments.
  using RegetFn = const char *(*)(const void *const *args);
  void BorrowedString(const char *s, const void *a0, const void *a1,
                      const void *a2, RegetFn reget);
  /// A string struct argument (MlirStringRef): its bytes must not be a
  /// string the API lent whose owner has died.
  void CheckStringRef(unsigned arg, const char *data) {
    if (data && CheckStringRefArg(fn_, arg, data))
      skip_ = true;
  }
  /// The call returned `length` bytes at `data` that `context` owns (the
  /// spec's lends): they die with it.
  void LentString(const char *data, size_t length, const void *context);

  FnId fn() const { return fn_; }

  /// longjmp & co. (interpose/jump_entry.c) are about to resume at stack
  /// pointer `target` from `here` (the interposer's frame): closes the
  /// scopes of the calls the jump leaves, as their destructors would have.
  static void BeforeJump(uintptr_t target, uintptr_t here);
  /// A C++ catch runs at stack pointer `catcher` (interpose/jump_entry.c):
  /// closes the scopes of the calls its exception left.
  static void BeforeCatch(uintptr_t catcher);

private:
  /// in_runtime and signal_depth, side by side: one load tests both.
  [[gnu::always_inline]] static uint16_t
  UncheckedBits(const ThreadCallState &state) {
    static_assert(offsetof(ThreadCallState, signal_depth) ==
                  offsetof(ThreadCallState, in_runtime) + 1);
    uint16_t bits;
    __builtin_memcpy(&bits,
                     reinterpret_cast<const char *>(&state) +
                         offsetof(ThreadCallState, in_runtime),
                     sizeof bits);
    return bits;
  }
  /// (Only a checked call's: its context is the thread's current one.)
  [[gnu::always_inline]] void NoteNullArg(unsigned arg) const {
    if (checking_ && arg < 32)
      tls_call.null_args |= 1u << arg;
  }
  /// What identifies the scope on its thread's stack: the wrapper's frame
  /// (one scope per wrapper). Not `this`, which would make the scope's
  /// fields live in memory instead of registers.
  [[gnu::always_inline]] static const void *Frame() {
    return __builtin_frame_address(0);
  }
  /// Makes the call `fn` at `frame` the thread's current call.
  /// (stack, event, context: zero already, see CallContext.)
  [[gnu::always_inline]] static void
  Publish(FnId fn, const void *frame, unsigned level, const void *caller_pc) {
    CallContext &call = tls_call;
    call.orphan_event = nullptr;
    call.caller_pc = caller_pc;
    call.frame = frame;
    call.level = level;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    call.fn = fn;
  }
  struct Entered {
    unsigned level; ///< the call's nesting depth after all
    bool checking;  ///< false: nested too deep, forwarded unchecked
  };
  /// A call from a callback: first closes scopes a jump left (the call may
  /// then be the outermost after all), then saves the outer call's context.
  static Entered EnterNested(FnId fn, const void *frame, const void *caller_pc);
  /// Restores the outer call's context.
  static void LeaveNested();
  /// The destructor found another call's context current: closes the
  /// scopes opened inside the one at `frame` (a jump left them). False if
  /// that scope is not open any more.
  static bool CloseScopesInside(const void *frame);
  /// Runtime::CheckHandle / Runtime::Register on the process's runtime.
  /// CheckHandleArg first tries the common case, for the handle types
  /// HasFastCheck accepts (builders have their insertion point checked,
  /// memory buffers no context, untyped handles no kind).
  static constexpr bool HasFastCheck(HandleType type) {
    return type != HandleType::Other && type != HandleType::Builder &&
           type != HandleType::MemoryBuffer;
  }
  static bool CheckHandleArg(FnId fn, unsigned arg, const void *h,
                             HandleType type);
  static bool CheckHandleArgFully(FnId fn, unsigned arg, const void *h,
                                  HandleType type);
  static ArgVerdict CheckKindedArg(FnId fn, unsigned arg, const void *h,
                                   HandleType type, uint8_t expected);
  static ArgVerdict CheckKindedArgFully(FnId fn, unsigned arg, const void *h,
                                        HandleType type, uint8_t expected);
  static void RegisterResult(FnId fn, const void *h, HandleType type);
  /// Runtime::CheckStringRef.
  static bool CheckStringRefArg(FnId fn, unsigned arg, const char *data);
  /// Records the value deaths the call left pending.
  static void FlushDeaths();

  unsigned level_; ///< the thread's nesting depth when the call began
                   ///< (not 0: nested in another wrapped call)
  FnId fn_;
  bool checking_;
  bool skip_ = false;
  bool unverified_ = false; ///< see ArgVerdict::Unverified
};

} // namespace ownsan

#endif // OWNSAN_INTERPOSE_WRAPPER_API_H
