//===- crash_handler.h - One line for a crash inside an LLVM-C call -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// A NULL or garbage handle that ownsan has never seen passes through to
// LLVM, which may dereference it. The crash handler names the LLVM-C call
// the thread was in, then hands the signal on to whatever handled it before
// (the program's handler, a sanitizer's, or the default action).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_CRASH_HANDLER_H
#define OWNSAN_RUNTIME_CRASH_HANDLER_H

namespace ownsan {

/// The LLVM-C function the calling thread is inside (its name), or nullptr.
/// `*in_runtime` is set when ownsan's own code is running on the thread.
/// Async-signal-safe: reads thread-local state only.
const char *CurrentWrappedCallName(bool *in_runtime);
/// The handle arguments of that call that were NULL: bit i for argument
/// i + 1 (CallContext::null_args). Async-signal-safe.
unsigned CurrentNullHandleArgs();

/// Installs the SIGSEGV/SIGBUS handler once (later calls do nothing). `fd`
/// receives the line, unless `log_prefix` (log_path) is not empty: then it
/// goes to the reports' log file, PREFIX.PID, which the handler creates if
/// no report has yet. A handler the program installs afterwards replaces
/// this one, as it would any other; one installed before is chained to.
void InstallCrashHandler(int fd, const char *log_prefix);

/// The reports' log file, shared with the handler: the runtime sets it
/// when it opens the file (and -1 when it closes it); it reads it before
/// creating the file, in case the handler did. Async-signal-safe.
void SetCrashLogFd(int fd);
int CrashLogFd();

} // namespace ownsan

#endif // OWNSAN_RUNTIME_CRASH_HANDLER_H
