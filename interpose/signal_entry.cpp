//===- signal_entry.cpp - The program's signal handlers, seen running -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A signal handler may interrupt the program anywhere, malloc included. A
// wrapped call it makes must not allocate: the runtime does when it meets a
// handle for the first time (records, index entries, stacks), and a second
// malloc on a thread already inside malloc corrupts the heap (glibc's
// tcache) or deadlocks on its arena lock, where the program alone, making
// read-only calls, would have run. So the runtime must know when a handler
// runs: sigaction, signal, bsd_signal and sysv_signal are interposed and
// install a trampoline that counts the handler's nesting on its thread
// (ThreadCallState::signal_depth); calls made while it is non-zero are
// forwarded unchecked and counted (a note at exit says how many).
//
// What the program sees stays its own: reading an action back gives the
// handler it installed, with its flags. The trampoline calls the handler
// with the three arguments the kernel passes to every handler on x86-64 and
// AArch64 (a one-argument handler ignores two), so a handler replaced while
// its signal is being delivered never gets mismatched arguments.
//
// A handler left by siglongjmp (a SIGSEGV or SIGFPE handler recovering)
// never returns to the trampoline: the jump interposers (jump_entry.c) call
// LeaveSignalFramesBelow with the jump's target first.
//
// Not seen: handlers installed before the runtime was loaded, with sigset,
// or by raw system calls (a Go runtime's). Their calls are checked like
// any nested call; the per-thread state is safe against that (see
// docs/architecture.md), the heap only as safe as the runtime's allocation.
//
//===----------------------------------------------------------------------===//

#include "interpose/signal_entry.h"
#include "core/tls_model.h"
#include "interpose/no_sanitize.h"
#include "interpose/wrapper_api.h"

#include <csignal>
#include <cstdint>
#include <dlfcn.h>

extern "C" void *ownsan_real_dlsym_fn(void);
// glibc's exported alias of sigaction (not declared by its headers).
extern "C" int __sigaction(int, const struct sigaction *, struct sigaction *);

namespace ownsan {
namespace {

using SigactionFn = int (*)(int, const struct sigaction *, struct sigaction *);
using HandlerFn = void (*)(int, siginfo_t *, void *);

// The program's handler per signal (what the trampoline runs): its
// sa_handler or sa_sigaction, either one, as a three-argument function.
void *g_program_handler[NSIG];
// Whether the program installed it with SA_SIGINFO (what it reads back).
bool g_program_siginfo[NSIG];

// (Plain variables with __atomic builtins: a sanitizer runtime may call
// sigaction before it can take instrumented std::atomic member calls.)
SigactionFn g_next_sigaction = nullptr;

// The trampolines' frames on this thread, innermost last; deeper nesting
// than this is counted but not tracked for jumps.
constexpr unsigned kMaxTrackedHandlers = 8;
__thread uintptr_t tls_handler_frames[kMaxTrackedHandlers] OWNSAN_TLS_MODEL;

OWNSAN_NO_SANITIZE SigactionFn NextSigaction() {
  SigactionFn next = __atomic_load_n(&g_next_sigaction, __ATOMIC_ACQUIRE);
  if (!next) {
    using DlsymFn = void *(*)(void *, const char *);
    auto real_dlsym = reinterpret_cast<DlsymFn>(ownsan_real_dlsym_fn());
    void *p = real_dlsym ? real_dlsym(RTLD_NEXT, "sigaction") : nullptr;
    // (glibc's own name for it, should a sanitizer runtime hide the next.)
    next = p ? reinterpret_cast<SigactionFn>(p) : &__sigaction;
    __atomic_store_n(&g_next_sigaction, next, __ATOMIC_RELEASE);
  }
  return next;
}

OWNSAN_NO_SANITIZE bool IsHandler(const struct sigaction *act) {
  void *h = (act->sa_flags & SA_SIGINFO)
                ? reinterpret_cast<void *>(act->sa_sigaction)
                : reinterpret_cast<void *>(act->sa_handler);
  return h != reinterpret_cast<void *>(SIG_DFL) &&
         h != reinterpret_cast<void *>(SIG_IGN) &&
         h != reinterpret_cast<void *>(SIG_ERR);
}

OWNSAN_NO_SANITIZE void Trampoline(int sig, siginfo_t *info, void *ucontext) {
  ThreadCallState &state = tls_call_state;
  unsigned depth = state.signal_depth;
  if (depth < kMaxTrackedHandlers)
    tls_handler_frames[depth] =
        reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  state.signal_depth = depth + 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  void *h = sig > 0 && sig < NSIG
                ? __atomic_load_n(&g_program_handler[sig], __ATOMIC_ACQUIRE)
                : nullptr;
  if (h)
    reinterpret_cast<HandlerFn>(h)(sig, info, ucontext);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  state.signal_depth = depth;
}

// The program's view of an action the kernel holds.
OWNSAN_NO_SANITIZE void ToProgramView(int sig, struct sigaction *old) {
  if (reinterpret_cast<void *>(old->sa_sigaction) !=
      reinterpret_cast<void *>(&Trampoline))
    return;
  void *h = __atomic_load_n(&g_program_handler[sig], __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&g_program_siginfo[sig], __ATOMIC_RELAXED)) {
    old->sa_sigaction = reinterpret_cast<HandlerFn>(h);
  } else {
    old->sa_flags &= ~SA_SIGINFO;
    old->sa_handler = reinterpret_cast<void (*)(int)>(h);
  }
}

OWNSAN_NO_SANITIZE int ProgramSigaction(int sig, const struct sigaction *act,
                                        struct sigaction *old) {
  SigactionFn next = NextSigaction();
  if (!act || sig <= 0 || sig >= NSIG || !IsHandler(act)) {
    int rc = next(sig, act, old);
    if (rc == 0 && old && sig > 0 && sig < NSIG)
      ToProgramView(sig, old);
    return rc;
  }
  struct sigaction wrapped = *act;
  void *h = (act->sa_flags & SA_SIGINFO)
                ? reinterpret_cast<void *>(act->sa_sigaction)
                : reinterpret_cast<void *>(act->sa_handler);
  // The previous program handler, in case the kernel refuses the new one.
  void *prev_handler =
      __atomic_load_n(&g_program_handler[sig], __ATOMIC_RELAXED);
  bool prev_siginfo =
      __atomic_load_n(&g_program_siginfo[sig], __ATOMIC_RELAXED);
  // Published before the kernel can deliver to the trampoline with it.
  __atomic_store_n(&g_program_siginfo[sig], (act->sa_flags & SA_SIGINFO) != 0,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_program_handler[sig], h, __ATOMIC_RELEASE);
  wrapped.sa_flags |= SA_SIGINFO;
  wrapped.sa_sigaction = &Trampoline;
  struct sigaction kernel_old;
  int rc = next(sig, &wrapped, &kernel_old);
  if (rc != 0) {
    __atomic_store_n(&g_program_siginfo[sig], prev_siginfo, __ATOMIC_RELAXED);
    __atomic_store_n(&g_program_handler[sig], prev_handler, __ATOMIC_RELEASE);
    return rc;
  }
  if (old) {
    // (The previous handler is the one just replaced, if it was wrapped.)
    if (reinterpret_cast<void *>(kernel_old.sa_sigaction) ==
        reinterpret_cast<void *>(&Trampoline)) {
      kernel_old.sa_sigaction = reinterpret_cast<HandlerFn>(prev_handler);
      if (!prev_siginfo) {
        kernel_old.sa_flags &= ~SA_SIGINFO;
        kernel_old.sa_handler = reinterpret_cast<void (*)(int)>(prev_handler);
      }
    }
    *old = kernel_old;
  }
  return 0;
}

// signal() and its two historical semantics, on top of ProgramSigaction.
OWNSAN_NO_SANITIZE sighandler_t InstallSimple(int sig, sighandler_t handler,
                                              int flags) {
  struct sigaction act = {}, old = {};
  act.sa_handler = handler;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (ProgramSigaction(sig, &act, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}

} // namespace

OWNSAN_NO_SANITIZE int RealSigaction(int sig, const struct sigaction *act,
                                     struct sigaction *old) {
  return NextSigaction()(sig, act, old);
}

OWNSAN_NO_SANITIZE void LeaveSignalFramesBelow(uintptr_t target) {
  ThreadCallState &state = tls_call_state;
  unsigned depth = state.signal_depth;
  while (depth > 0 && depth <= kMaxTrackedHandlers &&
         tls_handler_frames[depth - 1] < target)
    --depth;
  state.signal_depth = depth;
}

} // namespace ownsan

extern "C" {

OWNSAN_NO_SANITIZE OWNSAN_EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return ownsan::ProgramSigaction(sig, act, old);
}

// BSD semantics (glibc's signal): restart interrupted calls, block the
// signal while its handler runs.
OWNSAN_NO_SANITIZE OWNSAN_EXPORT sighandler_t signal(int sig,
                                                     sighandler_t handler) {
  return ownsan::InstallSimple(sig, handler, SA_RESTART);
}
OWNSAN_NO_SANITIZE OWNSAN_EXPORT sighandler_t bsd_signal(int sig,
                                                         sighandler_t handler) {
  return ownsan::InstallSimple(sig, handler, SA_RESTART);
}
// System V semantics: one delivery, then the default action.
OWNSAN_NO_SANITIZE OWNSAN_EXPORT sighandler_t
sysv_signal(int sig, sighandler_t handler) {
  return ownsan::InstallSimple(sig, handler, SA_RESETHAND | SA_NODEFER);
}
OWNSAN_NO_SANITIZE OWNSAN_EXPORT sighandler_t
__sysv_signal(int sig, sighandler_t handler) {
  return ownsan::InstallSimple(sig, handler, SA_RESETHAND | SA_NODEFER);
}

} // extern "C"
