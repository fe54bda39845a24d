//===- crash_handler.cpp - One line for a crash inside an LLVM-C call -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// States of the SIGSEGV/SIGBUS disposition, and who changes them:
//
//   not installed  until the first LLVM-C call finds libLLVM
//                  (Runtime::OnLibLLVMFound calls InstallCrashHandler);
//                  processes that never call LLVM keep theirs untouched.
//   installed      ownsan's handler is the disposition; the one it replaced
//                  (program, sanitizer or SIG_DFL) is saved in `g_previous`.
//   replaced       the program installed its own handler afterwards: ours is
//                  gone, as the program asked (interpose/signal_entry.cpp
//                  wraps the program's handler, it does not keep ours).
//
// On a signal in the "installed" state:
//   - the thread is inside a wrapped LLVM-C call: one line naming the call
//     (at most once per process, so a chained handler that returns and
//     faults again does not repeat it);
//   - otherwise (the fault is the program's own): no line.
//   Then the signal goes on to the saved disposition: a handler is called
//   in place; SIG_DFL/SIG_IGN is reinstated and the handler returns, so the
//   faulting instruction runs again and the kernel applies it (the process
//   dies with the signal, as it would without ownsan).
//
// Everything here is async-signal-safe: no allocation, no locks; write(2),
// and open(2) for the log file of log_path.
//
//===----------------------------------------------------------------------===//
#include "runtime/crash_handler.h"

#include "interpose/signal_entry.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <ucontext.h>
#include <unistd.h>

namespace ownsan {
namespace {

std::atomic<bool> g_installed{false};
std::atomic<bool> g_reported{false};
int g_fd = 2;
// log_path, if set (copied at install: the handler must not allocate), and
// the log file once someone opened it.
char g_log_prefix[4096];
std::atomic<int> g_log_fd{-1};
struct sigaction g_previous_segv;
struct sigaction g_previous_bus;

// A fixed buffer the handler formats into (a line, a file name).
template <size_t kSize> class Text {
public:
  void Add(const char *s) {
    while (*s && n_ < sizeof(buf_) - 1)
      buf_[n_++] = *s++;
  }
  void AddDec(unsigned long v) {
    char tmp[24];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (k)
      AddChar(tmp[--k]);
  }
  void AddHex(uintptr_t v) {
    Add("0x");
    char tmp[16];
    int k = 0;
    do {
      tmp[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (k < 12)
      tmp[k++] = '0'; // ASan's width, for familiar-looking addresses
    while (k)
      AddChar(tmp[--k]);
  }
  void AddChar(char c) {
    if (n_ < sizeof(buf_) - 1)
      buf_[n_++] = c;
  }
  const char *c_str() {
    buf_[n_] = '\0';
    return buf_;
  }
  void WriteTo(int fd) {
    size_t done = 0;
    while (done < n_) {
      ssize_t w = write(fd, buf_ + done, n_ - done);
      if (w <= 0)
        return;
      done += static_cast<size_t>(w);
    }
  }

private:
  char buf_[kSize];
  size_t n_ = 0;
};

// "argument 2 is NULL", "arguments 2 and 3 are NULL", "arguments 1, 2 and
// 3 are NULL": bit i of `args` is argument i + 1.
template <size_t kSize> void AddArgumentList(Text<kSize> &line, unsigned args) {
  int count = __builtin_popcount(args);
  line.Add(count == 1 ? "argument " : "arguments ");
  for (int seen = 0; args; args &= args - 1) {
    line.AddDec(static_cast<unsigned long>(__builtin_ctz(args)) + 1);
    ++seen;
    line.Add(seen == count ? "" : seen == count - 1 ? " and " : ", ");
  }
  line.Add(count == 1 ? " is NULL" : " are NULL");
}

uintptr_t FaultingPc(void *ucontext) {
#if defined(__x86_64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(ucontext)->uc_mcontext.pc);
#else
  (void)ucontext;
  return 0;
#endif
}

// Where the line goes: stderr (as the runtime found it), or with log_path
// the reports' log file, created here (new, never through a symlink, as
// the runtime would) if no report has been written yet.
int LineFd() {
  if (!g_log_prefix[0])
    return g_fd;
  int fd = g_log_fd.load(std::memory_order_acquire);
  if (fd >= 0)
    return fd;
  Text<sizeof(g_log_prefix)> path; // (the prefix leaves room for ".PID")
  path.Add(g_log_prefix);
  path.AddChar('.');
  path.AddDec(static_cast<unsigned long>(getpid()));
  fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
            0644);
  if (fd < 0)
    return g_fd; // (as the runtime does when it cannot create the file)
  int expected = -1;
  if (!g_log_fd.compare_exchange_strong(expected, fd)) {
    close(fd); // (the runtime opened it meanwhile)
    return expected;
  }
  return fd;
}

void ReportCrash(int sig, siginfo_t *info, void *ucontext) {
  bool in_runtime = false;
  const char *fn = CurrentWrappedCallName(&in_runtime);
  // Case: the program's own fault, outside any LLVM-C call.
  if (!fn)
    return;
  // Case: already said once (a chained handler returned and it faulted
  // again, or another thread crashed too).
  if (g_reported.exchange(true))
    return;
  uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  Text<512> line;
  line.Add("==");
  line.AddDec(static_cast<unsigned long>(getpid()));
  line.Add("==ERROR: OwnSan: ");
  line.Add(sig == SIGBUS ? "SIGBUS" : "SEGV");
  line.Add(" on address ");
  line.AddHex(addr);
  line.Add(" (pc ");
  line.AddHex(FaultingPc(ucontext));
  line.Add(") inside ");
  line.Add(fn);
  if (in_runtime) {
    // Case: ownsan's own code faulted (a bug in ownsan).
    line.Add(", in OwnSan's own code: this is a bug in OwnSan, please "
             "report it\n");
  } else {
    // Case: LLVM faulted on something it was given. Every handle ownsan
    // knew to be dead was reported before the call, so the culprit is a
    // handle ownsan never saw: NULL, garbage, or freed outside its view.
    unsigned nulls = CurrentNullHandleArgs();
    if (addr < 65536 && nulls) {
      // Case: the call was given NULL for handles: name them.
      line.Add(": LLVM dereferenced a NULL pointer; ");
      AddArgumentList(line, nulls);
    } else {
      line.Add(addr < 65536 ? ": LLVM dereferenced a NULL pointer; a handle "
                              "argument is probably NULL"
                            : ": LLVM dereferenced an invalid pointer; a "
                              "handle argument is probably not an LLVM "
                              "object");
    }
    line.Add(" (ownsan passes handles it never saw through unchecked)\n");
  }
  line.WriteTo(LineFd());
}

void OnCrashSignal(int sig, siginfo_t *info, void *ucontext) {
  int saved_errno = errno;
  ReportCrash(sig, info, ucontext);
  struct sigaction &previous = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  errno = saved_errno;
  if (previous.sa_flags & SA_SIGINFO) {
    // Case: the program (or a sanitizer) had a three-argument handler.
    if (previous.sa_sigaction) {
      previous.sa_sigaction(sig, info, ucontext);
      return;
    }
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    // Case: a one-argument handler.
    previous.sa_handler(sig);
    return;
  }
  // Case: default action (SIG_IGN does not apply to a synchronous fault:
  // the kernel kills the process either way). Reinstate it and return; the
  // instruction faults again and the kernel takes the default action.
  RealSigaction(sig, &previous, nullptr);
}

} // namespace

void SetCrashLogFd(int fd) { g_log_fd.store(fd, std::memory_order_release); }

int CrashLogFd() { return g_log_fd.load(std::memory_order_acquire); }

void InstallCrashHandler(int fd, const char *log_prefix) {
  if (g_installed.exchange(true))
    return;
  g_fd = fd;
  size_t n = strlen(log_prefix);
  if (n < sizeof(g_log_prefix) - 24) // (room for ".PID")
    memcpy(g_log_prefix, log_prefix, n + 1);
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = &OnCrashSignal;
  // SA_ONSTACK: a program with an alternate signal stack keeps using it.
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  RealSigaction(SIGSEGV, &action, &g_previous_segv);
  RealSigaction(SIGBUS, &action, &g_previous_bus);
}

} // namespace ownsan
