/*===- jump_entry.c - longjmp and its siblings ---------------------------===
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * A program that leaves a wrapped call with longjmp (from a diagnostic or
 * fatal-error handler, or siglongjmp from a SIGFPE handler in JIT code)
 * skips the call's CallScope destructor. These definitions interpose glibc's
 * and tell the runtime where the jump lands first, so that it closes the
 * scopes of the calls being left (CallScope::BeforeJump); then they jump
 * with the next definition (glibc's, or a sanitizer's interceptor).
 *
 * The target stack pointer is read from the jmp_buf, where glibc stores it
 * mangled with the thread's pointer guard (x86-64 only; elsewhere the jump
 * goes through unseen and the runtime finds the left scopes later).
 *
 * A C++ exception thrown through a wrapped call (by a handler, through
 * libLLVM) skips its CallScope destructor too: the wrappers have no
 * unwinding code (CMakeLists.txt). __cxa_begin_catch, interposed here, runs
 * in the catching frame once the unwinder has left every frame below it,
 * and tells the runtime to close the scopes of the calls left
 * (CallScope::BeforeCatch). (Not in link mode, where a program may link
 * the C++ runtime statically and define it too: there the runtime finds
 * the left scopes when the next call starts.)
 *
 *===---------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "interpose/no_sanitize.h"

void *ownsan_real_dlsym_fn(void);
void ownsan_before_jump(uintptr_t target, uintptr_t here);
void ownsan_before_catch(uintptr_t catcher);

/* What longjmp becomes with _FORTIFY_SOURCE (declared by glibc's headers
 * only then). */
void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
    __attribute__((noreturn));

typedef void (*jump_fn)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
typedef void *(*dlsym_fn)(void *, const char *);

enum { kLongjmp, kUnderscoreLongjmp, kSiglongjmp, kLongjmpChk, kJumpFns };
static const char *const kJumpNames[kJumpFns] = {"longjmp", "_longjmp",
                                                 "siglongjmp", "__longjmp_chk"};
/* Resolved at load time: a jump may come from a signal handler, where
 * dlsym must not run. */
static jump_fn g_next[kJumpFns];

__attribute__((constructor(102))) static void resolve_jumps(void) {
  dlsym_fn real_dlsym = (dlsym_fn)ownsan_real_dlsym_fn();
  for (int i = 0; i < kJumpFns; ++i)
    g_next[i] =
        real_dlsym ? (jump_fn)real_dlsym(RTLD_NEXT, kJumpNames[i]) : NULL;
}

/* The jump leaves these frames for good: OWNSAN_NO_SANITIZE. */

/* The stack pointer the jump resumes with, or 0 if unknown. */
OWNSAN_NO_SANITIZE static uintptr_t
jump_target_sp(const struct __jmp_buf_tag *env) {
#if defined(__x86_64__) && !defined(__ILP32__)
  /* glibc's PTR_MANGLE: xor with %fs:0x30 (the pointer guard), then rotate
   * left by 17 bits; the stack pointer is word 6 (JB_RSP) of __jmpbuf. */
  uintptr_t mangled = (uintptr_t)env->__jmpbuf[6];
  uintptr_t guard;
  __asm__("mov %%fs:0x30, %0" : "=r"(guard));
  return ((mangled >> 17) | (mangled << 47)) ^ guard;
#else
  (void)env;
  return 0;
#endif
}

OWNSAN_NO_SANITIZE __attribute__((noreturn, noinline)) static void
jump(int which, struct __jmp_buf_tag *env, int val) {
  uintptr_t target = jump_target_sp(env);
  if (target)
    ownsan_before_jump(target, (uintptr_t)__builtin_frame_address(0));
  jump_fn next = g_next[which];
  if (!next)
    abort(); /* (no libc definition: cannot happen with glibc) */
  next(env, val);
}

#define OWNSAN_EXPORT __attribute__((visibility("default")))

/* One interposer per name of kJumpNames, each going on to its own next. */
#define OWNSAN_JUMP_INTERPOSER(name, which)                                    \
  OWNSAN_NO_SANITIZE OWNSAN_EXPORT void name(struct __jmp_buf_tag env[1],      \
                                             int val) {                        \
    jump(which, env, val);                                                     \
  }
OWNSAN_JUMP_INTERPOSER(longjmp, kLongjmp)
OWNSAN_JUMP_INTERPOSER(_longjmp, kUnderscoreLongjmp)
OWNSAN_JUMP_INTERPOSER(siglongjmp, kSiglongjmp)
OWNSAN_JUMP_INTERPOSER(__longjmp_chk, kLongjmpChk)

#ifndef OWNSAN_LINK_MODE
typedef void *(*begin_catch_fn)(void *);
static _Atomic(begin_catch_fn) g_begin_catch;

OWNSAN_EXPORT void *__cxa_begin_catch(void *exception) {
  /* (The catching frame's stack pointer: above this frame's saved frame
   * pointer and return address.) */
  ownsan_before_catch((uintptr_t)__builtin_frame_address(0) +
                      2 * sizeof(void *));
  begin_catch_fn next =
      atomic_load_explicit(&g_begin_catch, memory_order_relaxed);
  if (!next) {
    /* (The C++ runtime may have been loaded after the preload's start.) */
    dlsym_fn real_dlsym = (dlsym_fn)ownsan_real_dlsym_fn();
    next = real_dlsym
               ? (begin_catch_fn)real_dlsym(RTLD_NEXT, "__cxa_begin_catch")
               : NULL;
    if (!next)
      abort(); /* (a catch without a C++ runtime: cannot happen) */
    atomic_store_explicit(&g_begin_catch, next, memory_order_relaxed);
  }
  return next(exception);
}
#endif
