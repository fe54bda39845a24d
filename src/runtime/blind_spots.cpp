//===- blind_spots.cpp - Saying what ownsan cannot check ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Silence must mean "checked". Under LD_PRELOAD these things make ownsan
// blind without a crash or a report, so each is said in one line, once per
// process, at any verbosity (warn_blind_spots=0 turns them off):
//
//   static-llvm      an object other than a shared libLLVM defines LLVM-C
//                    functions (LLVM linked in statically): calls to them
//                    never pass a dynamic symbol, so no wrapper sees them.
//   allocator        the process's operator new/delete are not ownsan's
//                    (the program brings its own allocator) and no
//                    sanitizer hook reports frees instead: LLVM's own
//                    deletions and address reuse go unseen.
//   bypass           an object's bound PLT/GOT slots for LLVM-C functions
//                    point straight into libLLVM, not to the wrappers
//                    (dlopen'ed with RTLD_DEEPBIND, say): looked for at exit.
//   no-checked-call  a libLLVM of this runtime's major was loaded, but the
//                    process made no LLVM-C call through a wrapper.
//   unseen-handles   calls were checked, but most of their handle arguments
//                    named objects no wrapped call ever handed out (made with
//                    LLVM's C++ API and wrapped): nothing is known of them.
//
// The first two are looked for at start-up (the objects loaded with the
// program) and again at exit (objects dlopen'ed since); the exit line
// repeats every blind spot of the run, so the last words of a CI log say
// it. With report_format=json each also goes to the report stream as one
// {"ownsan_blind_spot":1,...} object.
//
//===----------------------------------------------------------------------===//

#include "interpose/loaded_objects.h"
#include "interpose/real_llvm.h"
#include "report/output_line.h"
#include "report/report_writer.h"
#include "runtime/build_facts.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <dlfcn.h>
#include <unistd.h>

namespace ownsan {

void Runtime::SayBlindSpot(const char *what, const std::string &object,
                           const std::string &text) {
  std::string line = OwnsanLine(LineLevel::kWarning, text);
  (void)!write(report_fd_, line.data(), line.size());
  {
    MutexLock lock(&blind_mu_);
    blind_spots_.push_back(absl::StrCat(what, " (", object, ")"));
  }
  if (flags_.report_format == "json")
    WriteRecord(absl::StrCat("{\"ownsan_blind_spot\":1,\"pid\":", getpid(),
                             ",\"what\":", JsonEscape(what),
                             ",\"object\":", JsonEscape(object),
                             ",\"message\":", JsonEscape(text), "}\n"));
}

void Runtime::StandDown() {
  if (stood_down_.exchange(true))
    return;
  g_enabled.store(false, std::memory_order_relaxed);
  // Said now, not only at exit: the object is known, and a program whose
  // bug goes unseen may not live until exit.
  if (flags_.warn_blind_spots) {
    RuntimeSection section;
    LookForStaticLLVM();
  }
}

void Runtime::LookForStaticLLVM() {
  // (At exit: nothing to do unless objects were loaded since start-up.)
  unsigned long long loaded = ObjectsLoadedSoFar();
  {
    MutexLock lock(&blind_mu_);
    if (loaded == blind_objects_loaded_)
      return;
    blind_objects_loaded_ = loaded;
  }
  auto already_read = [this](const std::string &path) {
    MutexLock lock(&blind_mu_);
    return !blind_objects_read_.insert(path).second;
  };
  for (const ObjectDefiningLLVMC &o : ObjectsDefiningLLVMC(already_read))
    SayBlindSpot(
        "static-llvm", o.path,
        absl::StrCat(o.path, " defines ", o.functions,
                     " LLVM-C functions itself (LLVM linked in statically): "
                     "its calls to them are not checked; link it with "
                     "ownsan's link mode to check them (`ownsan link-flags`, "
                     "docs/link-mode.md)"));
}

namespace {
// A sanitizer's free hook reports every free to the runtime, whichever
// operator delete LLVM calls (set once, at start-up).
std::atomic<bool> g_sanitizer_sees_frees{false};

std::string UnseenDeletionsLine(const std::string &what) {
  return absl::StrCat(what,
                      ": LLVM's own deletions and reused addresses would go "
                      "unseen and reports could be false, so nothing is "
                      "checked in this process");
}
} // namespace

// Every check rests on seeing LLVM's deletions and new memory: with another
// operator new/delete in their place and no sanitizer hook, a record
// outlives its object and names the next one at its address, so a report
// could be false. The runtime stands down (as forward_only), and says so.
bool Runtime::NoteBlindSpotsAtStart(bool sanitizer_sees_frees) {
  g_sanitizer_sees_frees.store(sanitizer_sees_frees, std::memory_order_relaxed);
  RuntimeSection section;
  // (The program defines them, or a preload ahead of ownsan's does.)
  std::string allocator = sanitizer_sees_frees ? "" : OperatorDeleteOwner();
  if (!allocator.empty())
    StandDown();
  if (!flags_.warn_blind_spots)
    return allocator.empty();
  LookForStaticLLVM();
  if (!allocator.empty())
    SayBlindSpot(
        "allocator", allocator,
        absl::StrCat(
            UnseenDeletionsLine(absl::StrCat("operator new/delete of ",
                                             allocator, " replace ownsan's")),
            allocator == ExecutablePath()
                ? ""
                : "; put ownsan's runtime first in LD_PRELOAD (`ownsan run` "
                  "does)"));
  return allocator.empty();
}

void Runtime::NoteLibLLVMAllocator([[maybe_unused]] const std::string &path) {
#if !OWNSAN_LINK_MODE
  // (Not checking already: forward_only, stood down, or not started.)
  if (g_sanitizer_sees_frees.load(std::memory_order_relaxed) ||
      !g_enabled.load(std::memory_order_relaxed))
    return;
  RuntimeSection section;
  // Case: the libLLVM was dlopen'ed with RTLD_DEEPBIND: it binds its own
  // dependencies' operator new/delete (libstdc++'s), not the global scope's.
  std::string allocator = OperatorDeleteOwnerOf(path);
  if (allocator.empty())
    return;
  StandDown();
  if (!flags_.warn_blind_spots)
    return;
  std::string line = UnseenDeletionsLine(absl::StrCat(
      path, " calls the operator new/delete of ", allocator,
      ", not ownsan's (loaded with RTLD_DEEPBIND, or bound past the global "
      "scope)"));
  // Case: two heaps meet in it (its free is libc's, the process's malloc
  // another's, as `ownsan run` preloads): a string it makes with strdup
  // (the interposed malloc) and frees with its own free() crashes the
  // program, ownsan or not.
  std::string own_free = BoundOwnerOf(path, {"free"});
  std::string process_free = GlobalOwnerOf("free");
  if (!own_free.empty() && !process_free.empty() && own_free != process_free)
    absl::StrAppend(&line, "; its free() is ", own_free, "'s, the process's ",
                    process_free,
                    "'s: a string it hands out may be freed on the wrong "
                    "heap (`ownsan run --glibc-heap` keeps one heap)");
  SayBlindSpot("allocator", path, line);
#endif
}

void Runtime::NoteBlindSpotsAtExit() {
  if (!flags_.warn_blind_spots || flags_.forward_only)
    return;
  size_t said_before;
  {
    MutexLock lock(&blind_mu_);
    said_before = blind_spots_.size();
  }
  LookForStaticLLVM(); // objects dlopen'ed since start-up
  // (Stood down: nothing was checked, and the line that said why is out.)
  bool stood_down = stood_down_.load(std::memory_order_relaxed);
  for (const ObjectDefiningLLVMC &o :
       stood_down ? std::vector<ObjectDefiningLLVMC>()
                  : ObjectsBypassingWrappers(kBuildLLVMMajor)) {
    {
      // (Once per object and process.)
      MutexLock lock(&blind_mu_);
      if (!blind_bypassing_.insert(o.path).second)
        continue;
    }
    SayBlindSpot(
        "bypass", o.path,
        absl::StrCat(o.path, " calls ", o.functions,
                     " LLVM-C functions straight into libLLVM, past ownsan "
                     "(loaded with RTLD_DEEPBIND, or bound past the global "
                     "scope): its calls to them are not checked"));
  }
  CallCounts counts = TotalCallCounts();
  if (counts.calls == 0 && !stood_down)
    for (const std::string &path : LoadedLibLLVMPaths(kBuildLLVMMajor))
      SayBlindSpot("no-checked-call", path,
                   absl::StrCat(path,
                                " was loaded but the program made no LLVM-C "
                                "call through it that ownsan checked"));
  // "Most": as many handle arguments never seen as half the checked calls.
  // (Bindings with a C++ part of their own stay below it: Debian's rustc
  // ~10 %, llvmlite's suite ~33 %; docs/blind-spots.md.)
  if (counts.calls != 0 && counts.unseen_handle_args * 2 >= counts.calls) {
#if OWNSAN_LINK_MODE
    std::vector<std::string> paths = {ExecutablePath()}; // (LLVM is in it)
#else
    std::vector<std::string> paths = LoadedLibLLVMPaths(kBuildLLVMMajor);
#endif
    for (const std::string &path : paths)
      SayBlindSpot(
          "unseen-handles", path,
          absl::StrCat(counts.unseen_handle_args, " handle arguments of the ",
                       counts.calls, " LLVM-C calls ownsan checked (through ",
                       path,
                       ") named objects it never saw made (made with LLVM's "
                       "C++ API, or not LLVM objects): uses of them after "
                       "they are freed are not reported"));
  }
  std::string line;
  {
    MutexLock lock(&blind_mu_);
    // (What was only found now was just said.)
    if (said_before == 0)
      return;
    line = OwnsanLine(LineLevel::kWarning,
                      absl::StrCat("not checked in this run: ",
                                   absl::StrJoin(blind_spots_, ", ")));
  }
  (void)!write(report_fd_, line.data(), line.size());
}

} // namespace ownsan
