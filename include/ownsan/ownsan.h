/*===- ownsan/ownsan.h - Ask the ownsan runtime about LLVM-C handles -----===*\
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
|*                                                                            *|
|* For bindings that want to cooperate with ownsan in their debug builds.    *|
|* Every function here is exported by libownsan.so, the runtime that         *|
|* `ownsan run` preloads. Look them up with dlsym(RTLD_DEFAULT, name): a      *|
|* binding then works the same with or without ownsan (the look-up returns   *|
|* NULL when the runtime is not loaded). Nothing links against ownsan.       *|
|*                                                                            *|
|* Example (Python ctypes):                                                   *|
|*                                                                            *|
|*   import ctypes                                                            *|
|*   rt = ctypes.CDLL(None)                                                   *|
|*   state = getattr(rt, "ownsan_handle_state", None)   # None: no ownsan     *|
|*   if state:                                                                *|
|*       state.argtypes = [ctypes.c_void_p]                                   *|
|*       assert state(module_handle) == OWNSAN_HANDLE_LIVE                    *|
|*                                                                            *|
|* All functions are thread-safe. None of them may be called from inside an  *|
|* error callback except ownsan_handle_state and ownsan_describe_handle.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef OWNSAN_OWNSAN_H
#define OWNSAN_OWNSAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ownsan_handle_state()
 *
 * What ownsan knows about a handle (any LLVM-C handle, as a pointer):
 *   OWNSAN_HANDLE_UNKNOWN  never seen: not handed out by the LLVM-C API
 *                          while ownsan watched, or NULL
 *   OWNSAN_HANDLE_LIVE     a live object
 *   OWNSAN_HANDLE_FREED    its object was freed; using it would be reported
 */
enum {
  OWNSAN_HANDLE_UNKNOWN = 0,
  OWNSAN_HANDLE_LIVE = 1,
  OWNSAN_HANDLE_FREED = 2
};
int ownsan_handle_state(const void *handle);

/* ownsan_describe_handle()
 *
 * Writes a description of the handle's object and its history (label,
 * state, identity, who created it, what freed it and why, ownership chain)
 * as NUL-terminated text into `buffer` (at most `size` bytes, truncated if
 * needed). Returns the length of the full text, so a caller can retry with
 * a larger buffer. `buffer` may be NULL when `size` is 0.
 */
size_t ownsan_describe_handle(const void *handle, char *buffer, size_t size);

/* ownsan_set_error_callback()
 *
 * Turns ownsan's reports into the binding's own errors. After a callback is
 * installed, each report (the first occurrence is also printed, or written
 * to log_path, as usual) calls `callback(kind, report, user)` with the error
 * kind ("use-after-free", "double-free", ...) and the full text report,
 * instead of stopping the program; the offending LLVM-C call is then not
 * made, and returns 0 / NULL to the binding, which can raise its exception
 * (llvm-nanobind's LLVMMemoryError, say) when the call returns. The strings
 * are valid only during the callback. Pass NULL to restore the default.
 */
void ownsan_set_error_callback(void (*callback)(const char *kind,
                                                const char *report, void *user),
                               void *user);

#ifdef __cplusplus
}
#endif

#endif /* OWNSAN_OWNSAN_H */
