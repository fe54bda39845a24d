//===- reporter.cpp - The reporter: one place that writes a report --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Report() plays ASan's ScopedInErrorReport: lock, dedupe, suppress,
// write (text or JSON, log_path), callback, halt; the leak report and the
// exit summary.
//
//===----------------------------------------------------------------------===//

#include "report/output_line.h"
#include "runtime/build_facts.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"

#include "interpose/signal_entry.h"
#include "report/report_writer.h"
#include "report/symbolizer.h"
#include "runtime/crash_handler.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <tuple>
#include <vector>

namespace ownsan {

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

std::string Runtime::SymbolizerPath() const {
  if (!flags_.symbolize)
    return "";
  return flags_.symbolizer_path.empty() ? kBuildDefaultSymbolizer
                                        : flags_.symbolizer_path;
}

namespace {
// Did a frame-pointer walk that ended at `pc` reach the start of its
// thread? A thread's outermost frames are glibc's (__libc_start_call_main,
// start_thread), which the walk reaches through code that keeps frame
// pointers; a walk that ends anywhere else met a frame without one.
bool EndsInLibc(uintptr_t pc) {
  static const void *const libc_base = [] {
    Dl_info d;
    return dladdr(reinterpret_cast<void *>(&gnu_get_libc_version), &d)
               ? d.dli_fbase
               : nullptr;
  }();
  Dl_info d;
  return libc_base && dladdr(reinterpret_cast<void *>(pc), &d) &&
         d.dli_fbase == libc_base;
}
} // namespace

StackId Runtime::ReportUseStack() {
  StackId id = CurrentCallStack();
  if (!flags_.fast_unwind)
    return id;
  const StackTrace &st = depot_.Get(id);
  if (st.pcs.empty() || !st.py_frames.empty() ||
      st.pcs.size() >= static_cast<size_t>(flags_.malloc_context_size) ||
      EndsInLibc(st.pcs.back()))
    return id; // stacks off, Python frames, full depth, or a whole walk
  // Case: the frame-pointer walk stopped at a frame without a frame pointer
  // (OCaml code, a bindings' C stub built without them): a report is rare,
  // so unwind this one with DWARF tables. Otherwise two misuses that reach
  // LLVM through the same stub would have the same use stack: one problem,
  // the second never shown, and neither at its line.
  return CaptureStack(false, /*dwarf=*/true);
}

bool Runtime::SuppressedCallHarms(const ErrorReport &rep) {
  switch (ErrorKindCallHarm(rep.kind)) {
  case CallHarm::Never:
    return false;
  case CallHarm::Always:
    return true;
  case CallHarm::IfItFreesArg:
    return rep.fn < kFnCount && FreesArg(rep.fn, rep.arg);
  }
  return true;
}

namespace {
// A repeat's text, given to the error callback, names the test running
// now, not the first occurrence's.
std::string WithTestName(const std::string &text) {
  static const char kLine[] = "\n  while running test ";
  size_t at = text.find(kLine);
  if (at == std::string::npos)
    return text;
  size_t end = text.find('\n', at + 1);
  std::string now = PrintableText(TestName());
  return absl::StrCat(text.substr(0, at + 1),
                      now.empty() ? "" : absl::StrCat(kLine + 1, now, "\n"),
                      text.substr(end + 1));
}
} // namespace

bool Runtime::Report(ErrorReport rep) {
  RuntimeSection section;
  std::string text, kind;
  bool halt = flags_.halt_on_error;
  ErrorCallback callback = error_callback_.load();
  {
    MutexLock report_lock(&report_mu_);
    // Case: a problem already reported (same kind and call, same use site
    // and free site: the same use and free stacks): count it, do not print
    // it. Whole stacks, not innermost frames: in a binding, every call goes
    // through the same wrapper line.
    StackId free_stack = rep.object->freed ? rep.object->freed->stack : 0;
    if (rep.kind == ErrorKind::DanglingInsertionPoint && rep.related &&
        rep.related->freed)
      free_stack = rep.related->freed->stack;
    auto key = std::make_tuple(static_cast<int>(rep.kind), rep.fn,
                               rep.use_stack, free_stack);
    auto it = problem_index_.find(key);
    if (it != problem_index_.end()) {
      Problem &p = problems_[it->second];
      ++p.count;
      text = WithTestName(p.text);
      kind = p.kind;
    } else {
      auto fn_name = [](FnIndex f) { return FnName(f); };
      auto short_label = [this](const ObjectRecord *r) {
        return ShortLabel(r);
      };
      ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name,
                        short_label};
      ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
      ctx.library_noun = kProfile.library_noun;
      ctx.api_name = kProfile.api_name;
      ctx.library_noun = kProfile.library_noun;
      ctx.api_name = kProfile.api_name;
      ctx.fold_frames = flags_.fold_frames;
      ResolvedReport resolved = Resolve(rep, ctx);
      // Case: the user's suppression file names this report: say nothing.
      // The call goes through unchanged, unless making it would free memory
      // twice or corrupt it: then it is skipped, as in continue mode.
      if (suppressions_.Match(resolved))
        return SuppressedCallHarms(rep);
      Problem p;
      p.problem_id = resolved.problem_id;
      p.kind = resolved.kind_name;
      p.summary = resolved.summary;
      p.text = RenderText(resolved);
      p.count = 1;
      text = p.text;
      kind = p.kind;
      bool print =
          flags_.max_reports == 0 || printed_ < size_t(flags_.max_reports);
      if (print) {
        ++printed_;
        WriteOut(flags_.report_format == "json" ? RenderJson(resolved) + "\n"
                                                : p.text);
      }
      problem_index_[key] = problems_.size();
      problems_.push_back(std::move(p));
    }
  }
  if (callback) {
    // Case: the binding asked to turn reports into its own errors: it gets
    // the report, the call is skipped and returns 0/NULL.
    {
      MutexLock report_lock(&report_mu_);
      ++handled_by_callback_;
    }
    callback(kind.c_str(), text.c_str(), error_callback_user_.load());
    return true;
  }
  if (halt) {
    if (flags_.abort_on_error)
      abort();
    _exit(flags_.exitcode);
  }
  // Continue mode: skip the offending call.
  return true;
}

void Runtime::WriteOut(const std::string &text) {
  int fd = report_fd_;
  if (!flags_.log_path.empty()) {
    if (!log_tried_) {
      log_tried_ = true;
      std::string path = absl::StrCat(flags_.log_path, ".", getpid());
      // A new file only: never through a symlink, never over a file. (The
      // crash handler may have created it: a crash line came first.)
      log_fd_ = CrashLogFd();
      if (log_fd_ < 0)
        log_fd_ =
            open(path.c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (log_fd_ < 0 && errno == EEXIST)
        log_fd_ = CrashLogFd();
      if (log_fd_ >= 0)
        SetCrashLogFd(log_fd_);
      if (log_fd_ < 0) {
        std::string line = OwnsanLine(
            LineLevel::kWarning,
            absl::StrCat("cannot create log file ", path, ": ", strerror(errno),
                         "; writing reports to stderr"));
        (void)!write(report_fd_, line.data(), line.size());
      }
    }
    if (log_fd_ >= 0)
      fd = log_fd_;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += n;
  }
}

bool Runtime::CallerMustDispose(const ObjectRecord *r) {
  // (A module is owned by the caller: a live context would dispose it, but
  // only if the context is disposed. A context only if the program made
  // it: not the global one, nor one LLVM lends.)
  if (!KindCallerDisposes(r->kind) || r->is_global_context ||
      r->created_by == kNoFn || r->owned_by_other)
    return false;
  // (An object of such a kind seen through a getter, or given to a parent
  // other than its context, is not the caller's.)
  if (KindOwnedIfCreated(r->kind) &&
      (!(kFnFlags[r->created_by] & kFnCreates) ||
       (r->parent && r->parent->kind != ObjectKind::Context)))
    return false;
  // An object owned by another live object (an iterator of a binary) is
  // that object's to free.
  return !(r->kind == ObjectKind::Opaque && r->parent);
}

void Runtime::ReportLeaks(std::string *out, size_t *leaked) {
  // Owned objects still alive: grouped by creating call and stack.
  struct Group {
    FnIndex fn;
    StackId stack;
    uint32_t thread;
    ObjectKind kind;
    const char *type_name; ///< an opaque object's C type, or null
    size_t count = 0;
    std::string example;
  };
  std::vector<Group> groups;
  absl::flat_hash_map<std::pair<FnIndex, StackId>, size_t> index;
  auto add = [&](const LeakSite &l) {
    auto [it, inserted] = index.try_emplace({l.fn, l.stack}, groups.size());
    if (inserted)
      groups.push_back({l.fn, l.stack, l.thread, l.kind, l.type_name, 0, ""});
    Group &g = groups[it->second];
    if (g.count++ == 0)
      g.example =
          absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(l.addr)));
  };
  {
    MutexLock lock(&mu_);
    graph_.ForEachLive([&](ObjectRecord *r) {
      mu_.AssertHeld(); // (called under the lock above)
      if (!CallerMustDispose(r) || inherited_.contains(r))
        return;
      add({r->created_by, r->create_stack, r->create_thread, r->kind, r->addr,
           r->kind == ObjectKind::Opaque ? r->rare().type_name : nullptr});
    });
    // (And those a root's death ended while the caller still owned them:
    // never freed, and no longer possible to free.)
    for (const LeakSite &l : ended_leaks_)
      add(l);
  }
  *leaked = 0;
  if (groups.empty())
    return;
  auto fn_name = [](FnIndex f) { return FnName(f); };
  auto short_label = [this](const ObjectRecord *r) { return ShortLabel(r); };
  ReportContext ctx{getpid(), &depot_, SymbolizerPath(), fn_name, short_label};
  ctx.symbolizer_timeout_ms = flags_.symbolizer_timeout_ms;
  ctx.library_noun = kProfile.library_noun;
  ctx.api_name = kProfile.api_name;
  // Largest first; ties in the order their stacks were first seen (depot
  // ids grow), so a run prints its leaks in the same order every time.
  std::sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) {
    return std::make_tuple(b.count, a.stack, a.fn) <
           std::make_tuple(a.count, b.stack, b.fn);
  });
  bool json = flags_.report_format == "json";
  // Every group's stack in one symbolizer run (see SymbolizerBatch).
  SymbolizerBatch batch;
  for (const Group &g : groups)
    (void)ResolveStack(g.stack, ctx);
  batch.Run(ctx.symbolizer_path, ctx.symbolizer_timeout_ms);
  // Case: a `leak:` rule (LeakSanitizer's) names the creating call or a
  // frame of the creation stack: the group is not a leak of this run.
  std::vector<std::pair<const Group *, ResolvedStack>> shown;
  for (const Group &g : groups) {
    ResolvedReport as_report;
    as_report.kind_name = "leak";
    as_report.function = FnName(g.fn);
    as_report.create.stack = ResolveStack(g.stack, ctx);
    {
      MutexLock lock(&report_mu_);
      if (suppressions_.Match(as_report))
        continue;
    }
    shown.emplace_back(&g, std::move(as_report.create.stack));
  }
  if (shown.empty())
    return;
  std::string text = OwnsanLine(
      LineLevel::kError, absl::StrCat("detected leaks of owned ",
                                      kProfile.library_noun, " objects"));
  std::string js =
      absl::StrCat("{\"ownsan_leaks\":1,\"pid\":", getpid(), ",\"groups\":[");
  for (size_t i = 0; i < shown.size(); ++i) {
    const Group &g = *shown[i].first;
    *leaked += g.count;
    const ResolvedStack &stack = shown[i].second;
    // (An opaque object by its own C type: `MlirPassManager`.)
    std::string type =
        g.type_name ? g.type_name : std::string(KindHandleType(g.kind));
    std::string noun =
        g.type_name ? HandleTypeNoun(g.type_name) : KindNoun(g.kind);
    absl::StrAppend(&text, "  ", g.count, " ", type, g.count == 1 ? "" : "s",
                    " (", noun, " ", g.example, g.count == 1 ? "" : ", ...",
                    ") created by ", FnName(g.fn), " on thread T", g.thread,
                    ", never disposed:\n",
                    StackText(stack, flags_.fold_frames));
    absl::StrAppend(&js, i ? "," : "", "{\"count\":", g.count,
                    ",\"handle_type\":", JsonEscape(type),
                    ",\"kind\":", JsonEscape(noun),
                    ",\"example\":", JsonEscape(g.example),
                    ",\"function\":", JsonEscape(FnName(g.fn)),
                    ",\"thread\":", g.thread, ",\"stack\":");
    AppendJsonStack(&js, stack);
    js += "}";
  }
  absl::StrAppend(&text, "SUMMARY: OwnSan: ", *leaked,
                  " leaked object(s) from ", shown.size(),
                  " allocation site(s)\n");
  absl::StrAppend(&js, "],\"total\":", *leaked, "}\n");
  *out += json ? js : text;
}

void Runtime::WriteRecord(const std::string &text) {
  MutexLock lock(&report_mu_);
  WriteOut(text);
}

void Runtime::OnExit() {
  RuntimeSection section;
  // Not checked, so said (as for another major's calls): one line.
  if (uint64_t n = g_signal_handler_calls.load(std::memory_order_relaxed)) {
    std::string line = OwnsanLine(
        LineLevel::kInfo,
        absl::StrCat("note: ", n,
                     " LLVM-C call(s) made in signal handlers were not checked "
                     "(checking may allocate, and a handler may have "
                     "interrupted malloc)"));
    (void)!write(2, line.data(), line.size());
  }
  NoteBlindSpotsAtExit();
  std::string out;
  size_t leaked = 0;
  // (Stood down: the objects it saw were freed by calls it did not see.)
  if (flags_.report_leaks && !stood_down_.load(std::memory_order_relaxed))
    ReportLeaks(&out, &leaked);
  bool any, unhandled = false;
  std::string unused;
  {
    MutexLock lock(&report_mu_);
    any = !problems_.empty();
    // Problems a binding turned into its own errors (error callback) do
    // not fail the run by themselves.
    size_t occurrences = 0;
    for (const Problem &p : problems_)
      occurrences += p.count;
    unhandled = occurrences > handled_by_callback_;
    bool used_suppressions = false;
    for (const Suppression &s : suppressions_.rules()) {
      used_suppressions |= s.hits > 0;
      // A rule that matched nothing may be stale or misspelt: said, like the
      // statistics, with verbosity=1.
      if (!s.hits && flags_.verbosity >= 1)
        absl::StrAppend(&unused, "  ", flags_.suppressions, ":", s.line, ": ",
                        s.type, ":", s.pattern, "\n");
    }
    if (flags_.report_format == "json") {
      // (llvm_major: `ownsan report` tells the runs of a CI matrix apart.)
      std::string json =
          absl::StrCat("{\"ownsan_summary\":1,\"pid\":", getpid(),
                       ",\"llvm_major\":", kBuildLLVMMajor, ",\"problems\":[");
      for (size_t i = 0; i < problems_.size(); ++i)
        absl::StrAppend(&json, i ? "," : "",
                        "{\"problem_id\":", JsonEscape(problems_[i].problem_id),
                        ",\"kind\":", JsonEscape(problems_[i].kind),
                        ",\"count\":", problems_[i].count,
                        ",\"summary\":", JsonEscape(problems_[i].summary), "}");
      absl::StrAppend(&json, "],\"suppressed\":[");
      bool first = true;
      for (const Suppression &s : suppressions_.rules())
        if (s.hits) {
          absl::StrAppend(&json, first ? "" : ",", "{\"pattern\":",
                          JsonEscape(absl::StrCat(s.type, ":", s.pattern)),
                          ",\"count\":", s.hits, "}");
          first = false;
        }
      absl::StrAppend(&json, "],\"leaked\":", leaked, ",\"exitcode\":",
                      (any && unhandled) || leaked ? flags_.exitcode : 0,
                      "}\n");
      // With log_path, a clean run of a process that used a checked libLLVM
      // leaves its summary too: `ownsan report` tells "no problem" from "no
      // log" by it.
      bool checked_llvm = libllvm_major_.load(std::memory_order_relaxed) != 0 &&
                          !flags_.forward_only &&
                          !stood_down_.load(std::memory_order_relaxed);
      if (any || used_suppressions || leaked ||
          (checked_llvm && !flags_.log_path.empty())) {
        if (!out.empty())
          WriteOut(out); // the leak object, one JSON line
        WriteOut(json);
      }
    } else {
      if (flags_.print_summary && any) {
        size_t total = 0;
        absl::StrAppend(&out,
                        OwnsanLine(LineLevel::kInfo,
                                   absl::StrCat(problems_.size(),
                                                " distinct problem(s):")));
        for (const Problem &p : problems_) {
          total += p.count;
          absl::StrAppend(&out, "  ", p.count, "x ", p.summary, "\n");
        }
        absl::StrAppend(&out, "SUMMARY: OwnSan: ", problems_.size(),
                        " distinct problem(s), ", total, " occurrence(s)\n");
      }
      if (used_suppressions && flags_.print_summary) {
        absl::StrAppend(&out,
                        OwnsanLine(LineLevel::kInfo, "suppressions used:"));
        for (const Suppression &s : suppressions_.rules())
          if (s.hits)
            absl::StrAppend(&out, "  ", s.hits, " ", s.type, ":", s.pattern,
                            "\n");
      }
      if (!out.empty())
        WriteOut(out);
    }
  }
  if (!unused.empty()) {
    unused.insert(0, OwnsanLine(LineLevel::kInfo, "suppressions not used:"));
    (void)!write(2, unused.data(), unused.size());
  }
  if (flags_.verbosity >= 1)
    PrintExitStatistics();
  if ((any && unhandled) || leaked) {
    // The run had problems: the process ends with `exitcode`, as with a
    // sanitizer in recover mode, after stdio is flushed.
    fflush(nullptr);
    _exit(flags_.exitcode);
  }
}

} // namespace ownsan
