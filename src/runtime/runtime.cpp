//===- runtime.cpp - Composition root: start-up and hooks -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Makes the Runtime (flags, libLLVM discovery, the wrappers' real
// functions) and wires the entry points of interpose/ to it. The state
// machine of handles is in tracker_*.cpp; see docs/architecture.md for
// which file does what.
//
//===----------------------------------------------------------------------===//

#include "runtime/runtime.h"
#include "core/tls_model.h"
#include "report/output_line.h"
#include "runtime/build_facts.h"
#include "runtime/runtime_internal.h"

#include "interpose/loaded_objects.h"
#include "interpose/real_llvm.h"
#include "interpose/signal_entry.h"
#include "profiles/llvm_c/value_observer.h"
#include "runtime/crash_handler.h"
#include "runtime/preload_env.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ownsan {

std::atomic<bool> g_enabled{false};
std::atomic<uint64_t> g_signal_handler_calls{0};
std::atomic<bool> g_runtime_ready{false};

__thread ThreadCallState tls_call_state OWNSAN_TLS_MODEL;
__thread CallContext tls_call OWNSAN_TLS_MODEL;
__thread LastReturned tls_last_returned OWNSAN_TLS_MODEL;
std::atomic<Runtime *> g_runtime{nullptr};

//===----------------------------------------------------------------------===//
// Start-up
//===----------------------------------------------------------------------===//

Runtime &Runtime::Create() {
  // absl's deadlock detector costs time on every lock and misreads locks
  // re-created in a fork() child; the runtime's lock order is fixed. Off
  // before the first lock (the constructor's members lock): its graph was
  // built at every start otherwise (pages of its own, faulted in).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  static Runtime *runtime = new Runtime; // never destroyed: used until exit
  g_runtime.store(runtime, std::memory_order_release);
  return *runtime;
}

Runtime::Runtime()
    : shadow_filter_(24, 4), dangling_builders_(16, 0),
      lent_string_pages_(16, 12), quarantine_(0) {
  RuntimeSection section;
  const char *opts = getenv("OWNSAN_OPTIONS");
  std::string error;
  if (opts && !ParseFlags(opts, &flags_, &error))
    Fatal(error);
  // (Before anything maps a block that could take them.)
  InternalSetHugePagesAllowed(flags_.huge_pages_for_metadata);
  if (flags_.help) {
    std::string text =
        "ownsan options (OWNSAN_OPTIONS=key=value:...):\n" + FlagsMarkdown();
    (void)!write(2, text.data(), text.size());
    _exit(0);
  }
  AddOwnCodeRanges();
  empty_stack_ = depot_.Put(StackTrace{});
  {
    MutexLock lock(&quarantine_mu_);
    quarantine_ = Quarantine(size_t(flags_.quarantine_size_mb) << 20);
    history_limit_ = size_t(flags_.history_size_mb) << 20;
  }
  if (!flags_.suppressions.empty()) {
    MutexLock lock(&report_mu_);
    if (!suppressions_.Load(flags_.suppressions, &error))
      Fatal(error);
  }
  // log_path=stderr / stdout name the streams, as in the sanitizers: no
  // file is made.
  int stream = flags_.log_path == "stdout" ? 1 : 2;
  if (flags_.log_path == "stderr" || flags_.log_path == "stdout")
    flags_.log_path.clear();
  // Reports go to the stream the process started with, even if the program
  // later points fd 2 elsewhere (pytest captures it during each test).
  report_fd_ = fcntl(stream, F_DUPFD_CLOEXEC, 100);
  if (report_fd_ < 0)
    report_fd_ = stream;
  // Registered first, so it runs last: after the program's own handlers.
  atexit([] { Runtime::Get().OnExit(); });
}

void Runtime::Fatal(const std::string &message) {
  std::string line = OwnsanLine(LineLevel::kError, message);
  (void)!write(2, line.data(), line.size());
  _exit(1);
}

#if !OWNSAN_LINK_MODE
void Runtime::OnLibLLVMFound(const std::string &path, int major) {
  RuntimeSection section;
  void *llvm_fn = RealDlsym(RTLD_DEFAULT, kProfile.anchor_function);
  if (void *h = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    if (void *f = RealDlsym(h, kProfile.anchor_function))
      llvm_fn = f;
  }
  if (llvm_fn)
    AddCodeRangesOf(llvm_fn, /*llvm=*/true);
  libllvm_major_.store(major, std::memory_order_release);
  if (flags_.handle_segv && !flags_.forward_only && !stood_down_)
    InstallCrashHandler(report_fd_, flags_.log_path.c_str());
  if (flags_.verbosity >= 1) {
    std::string line = OwnsanLine(
        LineLevel::kInfo, absl::StrCat("using ", path, " (LLVM ", major, ")"));
    (void)!write(2, line.data(), line.size());
  }
}

void *(*Runtime::ObserverCopyBuffer())(void *) {
  absl::call_once(observer_once_, [this] {
    RuntimeSection section;
    // The observer sits next to this library.
    Dl_info self;
    std::string dir;
    if (dladdr(reinterpret_cast<void *>(&FnName), &self) && self.dli_fname) {
      dir = self.dli_fname;
      dir = dir.substr(0, dir.rfind('/') + 1);
    }
    std::string observer = dir + "libownsan_observer.so";
    void *h = dlopen(observer.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      Fatal(absl::StrCat("cannot load ", observer, ": ", dlerror()));
    auto init = reinterpret_cast<ownsan_observer_init_fn>(
        RealDlsym(h, "ownsan_observer_init"));
    if (!init)
      Fatal(absl::StrCat(observer, " lacks the observer entry points"));
    int observer_major = init();
    int major = libllvm_major_.load(std::memory_order_acquire);
    if (observer_major != major)
      Fatal(absl::StrCat(observer, " was built for LLVM ", observer_major,
                         " but the process uses LLVM ", major));
    AddCodeRangesOf(reinterpret_cast<void *>(init));
    observer_copy_ = reinterpret_cast<ownsan_observer_copy_buffer_fn>(
        RealDlsym(h, "ownsan_observer_copy_buffer"));
  });
  return observer_copy_;
}
#else
// (The observer's functions are linked in: value_observer.cpp.)
// (Weak: a profile without memory buffers has no such helper.)
extern "C" void *ownsan_observer_copy_buffer(void *buffer)
    __attribute__((weak));

void Runtime::OnLinkedLLVM() {
  RuntimeSection section;
  if (flags_.handle_segv && !flags_.forward_only)
    InstallCrashHandler(report_fd_, flags_.log_path.c_str());
  observer_copy_ = &ownsan_observer_copy_buffer;
  libllvm_major_.store(kBuildLLVMMajor, std::memory_order_release);
  AddLinkedLLVMCodeRange();
#if OWNSAN_LIBRARY_SHARED
  // The C API is linked in, the library's own code is a shared object.
  if (void *library_fn = RealDlsym(RTLD_DEFAULT, kProfile.anchor_function))
    AddCodeRangesOf(library_fn, /*llvm=*/true);
#endif
  if (flags_.verbosity >= 1) {
    std::string line =
        OwnsanLine(LineLevel::kInfo,
                   absl::StrCat("linked into ", ExecutablePath(),
                                " (link mode, LLVM ", kBuildLLVMMajor, ")"));
    (void)!write(2, line.data(), line.size());
  }
}

void *(*Runtime::ObserverCopyBuffer())(void *) { return observer_copy_; }
#endif

} // namespace ownsan

// longjmp & co. (interpose/jump_entry.c) call this before they jump.
extern "C" void ownsan_before_jump(uintptr_t target, uintptr_t here) {
  ownsan::LeaveSignalFramesBelow(target);
  ownsan::CallScope::BeforeJump(target, here);
}

// ... and __cxa_begin_catch (the same file) before a C++ catch runs.
extern "C" void ownsan_before_catch(uintptr_t catcher) {
  ownsan::LeaveSignalFramesBelow(catcher);
  ownsan::CallScope::BeforeCatch(catcher);
}

// The allocation hook (interpose/allocation_observer.cpp) calls this.
void OwnsanOnAllocation(const void *p, size_t n) {
  // Allocations made before the runtime exists (or by its constructor)
  // cannot cover anything it tracks.
  if (ownsan::g_runtime_ready.load(std::memory_order_relaxed))
    ownsan::Runtime::Get().OnAllocation(p, n);
}

// operator new (interpose/allocation_observer.cpp) calls this when malloc
// fails for the runtime's own work: no exception may leave the runtime. The
// line is OwnsanLine's shape, written without allocating.
void OwnsanOutOfMemory(size_t n) {
  char line[160];
  int len = snprintf(line, sizeof line,
                     "==%d==ERROR: OwnSan: out of memory: ownsan could not "
                     "allocate %zu bytes for its own records\n",
                     static_cast<int>(getpid()), n);
  (void)!write(2, line, len > 0 ? std::min<size_t>(len, sizeof line - 1) : 0);
  _exit(1);
}

// operator delete (interpose/allocation_observer.cpp) asks this.
bool OwnsanTakeIntoQuarantine(void *p, size_t size) {
  return ownsan::g_runtime_ready.load(std::memory_order_relaxed) &&
         ownsan::Runtime::Get().TakeIntoQuarantine(p, size);
}

namespace {

// Under AddressSanitizer (or another sanitizer allocator) loaded ahead of
// ownsan, the sanitizer's operator new and delete are the ones called, not
// ownsan's. Its allocator then tells ownsan about new memory through the
// sanitizers' malloc hooks, and its own quarantine delays the reuse of freed
// memory (ASan's quarantine_size_mb), so both halves of ownsan's reasoning
// about reused addresses still hold.
void OnSanitizerMalloc(const volatile void *p, size_t n) {
  OwnsanOnAllocation(const_cast<const void *>(p), n);
}
void OnSanitizerFree(const volatile void *p) {
  if (p && ownsan::g_runtime_ready.load(std::memory_order_relaxed))
    ownsan::Runtime::Get().OnSanitizerFree(const_cast<const void *>(p));
}

// True if a sanitizer now reports every free to the runtime.
bool InstallSanitizerAllocatorHooks() {
  using Installer = int (*)(void (*)(const volatile void *, size_t),
                            void (*)(const volatile void *));
  if (auto install = reinterpret_cast<Installer>(
          dlsym(RTLD_DEFAULT, "__sanitizer_install_malloc_and_free_hooks")))
    return install(&OnSanitizerMalloc, &OnSanitizerFree) != 0;
  return false;
}

} // namespace

__attribute__((constructor(101))) static void OwnsanInit() {
#if !OWNSAN_LINK_MODE
  // A program linked with the runtime (link mode) checks itself: this
  // preloaded copy stays a plain forward (no checks, no start-up or exit
  // lines), so nothing is checked or said twice.
  if (ownsan::RealDlsym(RTLD_DEFAULT, "ownsan_linked_runtime"))
    return;
#endif
  ownsan::Runtime::Get();
  bool sanitizer_sees_frees = InstallSanitizerAllocatorHooks();
  // A child of fork() must not inherit a lock another thread held.
  pthread_atfork([] { ownsan::Runtime::Get().PrepareFork(); },
                 [] { ownsan::Runtime::Get().AfterForkInParent(); },
                 [] { ownsan::Runtime::Get().AfterForkInChild(); });
  if (!ownsan::Runtime::Get().flags().follow_children) {
    ownsan::RemoveRuntimeFromPreload();
    ownsan::RestoreProgramTunables();
  }
  // forward_only: the wrappers and the allocation hooks stay plain
  // forwards for the whole run (the interposition's own cost).
  if (ownsan::Runtime::Get().flags().forward_only)
    return;
  // A program linked against another major's libLLVM: its calls pass by.
  ownsan::NoteUncheckedLibLLVMs();
#if OWNSAN_LINK_MODE
  ownsan::ObserveLinkedAllocator();
  ownsan::Runtime::Get().OnLinkedLLVM();
#endif
  // (False: stood down, LLVM's deletions unseen; nothing is enabled.)
  if (!ownsan::Runtime::Get().NoteBlindSpotsAtStart(sanitizer_sees_frees))
    return;
  ownsan::g_runtime_ready.store(true);
  ownsan::g_enabled.store(true);
}
