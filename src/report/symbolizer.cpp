//===- symbolizer.cpp - Program counters to function, file:line ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/symbolizer.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <limits>

extern char **environ;

namespace ownsan {
namespace {

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

void Locate(SymbolizedFrame *f) {
  Dl_info info;
  // pc - 1: a return address may belong to the next line or function.
  if (!dladdr(reinterpret_cast<void *>(f->pc - 1), &info) || !info.dli_fbase)
    return;
  f->module = info.dli_fname ? info.dli_fname : "";
  if (f->module.empty() || f->module.find('/') == std::string::npos)
    if (info.dli_fbase == dlopen(nullptr, RTLD_LAZY | RTLD_NOLOAD) ||
        f->module.empty())
      f->module = SelfExe();
  auto *ehdr = static_cast<const ElfW(Ehdr) *>(info.dli_fbase);
  bool is_exec = ehdr->e_type == ET_EXEC; // non-PIE: addresses are absolute
  f->offset =
      is_exec ? f->pc : f->pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
  if (info.dli_sname)
    f->function = info.dli_sname;
}

// Environment for the symbolizer: ours minus the preload (it links libLLVM
// and must not be checked itself) and minus our options.
std::vector<char *> ChildEnv(std::vector<std::string> *storage) {
  for (char **e = environ; e && *e; ++e) {
    if (!strncmp(*e, "LD_PRELOAD=", 11) || !strncmp(*e, "OWNSAN_", 7))
      continue;
    storage->push_back(*e);
  }
  std::vector<char *> out;
  for (auto &s : *storage)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Set once a symbolizer had to be killed: the next stacks of this process
// go unsymbolized at once instead of waiting again for each one.
std::atomic<bool> g_symbolizer_timed_out{false};

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Writes `input` to the child and reads its answer until it closes its
// output, until `deadline` at most. False on a timeout.
bool Exchange(int to_child, int from_child, const std::string &input,
              int64_t deadline, std::string *output) {
  size_t written = 0;
  if (input.empty()) {
    close(to_child);
    to_child = -1;
  }
  char buf[4096];
  for (;;) {
    pollfd fds[2] = {{from_child, POLLIN, 0}, {to_child, POLLOUT, 0}};
    int64_t left = deadline - NowMs();
    if (left <= 0)
      break;
    int n = poll(fds, to_child >= 0 ? 2 : 1,
                 static_cast<int>(std::min<int64_t>(left, INT_MAX)));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (to_child >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w =
          write(to_child, input.data() + written, input.size() - written);
      if (w > 0)
        written += w;
      // All written, or the child stopped reading: it sees EOF.
      if ((w < 0 && errno != EINTR && errno != EAGAIN) ||
          written == input.size()) {
        close(to_child);
        to_child = -1;
      }
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      ssize_t r = read(from_child, buf, sizeof(buf));
      if (r < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (r <= 0) {
        if (to_child >= 0)
          close(to_child);
        return true;
      }
      output->append(buf, r);
    }
  }
  if (to_child >= 0)
    close(to_child);
  return false;
}

bool RunSymbolizer(const std::string &path, const std::string &input,
                   int timeout_ms, std::string *output) {
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0)
    return false;
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull >= 0)
    posix_spawn_file_actions_adddup2(&fa, devnull, 2);
  // A process group of its own, so that a timeout kills whatever the
  // symbolizer started too (a wrapper script's children).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> env_storage;
  std::vector<char *> env = ChildEnv(&env_storage);
  std::string a0 = path, a1 = "--no-inlines", a2 = "--demangle";
  char *argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, path.c_str(), &fa, &attr, argv, env.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (devnull >= 0)
    close(devnull);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    return false;
  }
  // Non-blocking: a child that stops reading must not block the write
  // past the deadline.
  fcntl(in_pipe[1], F_SETFL, fcntl(in_pipe[1], F_GETFL) | O_NONBLOCK);
  struct sigaction ign{}, old{};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  const int64_t deadline = timeout_ms > 0 ? NowMs() + timeout_ms
                                          : std::numeric_limits<int64_t>::max();
  bool answered = Exchange(in_pipe[1], out_pipe[0], input, deadline, output);
  sigaction(SIGPIPE, &old, nullptr);
  close(out_pipe[0]);
  // Reap it; one that closed its output but does not exit is killed at the
  // deadline too.
  bool killed = false;
  if (!answered) {
    kill(-pid, SIGKILL);
    killed = true;
  }
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno == EINTR)
      continue;
    if (done < 0) // ECHILD: the program reaped it (a SIGCHLD handler)
      return !killed && !output->empty();
    if (NowMs() >= deadline) {
      kill(-pid, SIGKILL);
      killed = true;
      continue;
    }
    timespec pause = {0, 2L * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
  if (killed)
    g_symbolizer_timed_out.store(true);
  return !killed && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

namespace {
// The batch open on this thread (SymbolizerBatch), if any.
thread_local SymbolizerBatch *tls_batch = nullptr;
} // namespace

SymbolizerBatch::SymbolizerBatch() : outer_(tls_batch) { tls_batch = this; }

SymbolizerBatch::~SymbolizerBatch() { tls_batch = outer_; }

void SymbolizerBatch::Run(const std::string &symbolizer_path, int timeout_ms) {
  std::vector<uintptr_t> pcs(wanted_.begin(), wanted_.end());
  std::sort(pcs.begin(), pcs.end());
  collecting_ = false; // (so that the call below runs the symbolizer)
  std::vector<SymbolizedFrame> frames =
      Symbolize(pcs, symbolizer_path, timeout_ms);
  for (SymbolizedFrame &f : frames)
    answers_.emplace(f.pc, std::move(f));
  wanted_.clear();
}

std::vector<SymbolizedFrame> Symbolize(const std::vector<uintptr_t> &pcs,
                                       const std::string &symbolizer_path,
                                       int timeout_ms) {
  if (SymbolizerBatch *batch = tls_batch) {
    if (batch->collecting_) {
      // First pass: note the pcs; the frames are thrown away.
      batch->wanted_.insert(pcs.begin(), pcs.end());
      return std::vector<SymbolizedFrame>(pcs.size());
    }
    // Second pass: answered from the batch's one run when it has them all.
    bool all = !batch->answers_.empty();
    for (size_t i = 0; all && i < pcs.size(); ++i)
      all = batch->answers_.contains(pcs[i]);
    if (all) {
      std::vector<SymbolizedFrame> frames;
      frames.reserve(pcs.size());
      for (uintptr_t pc : pcs)
        frames.push_back(batch->answers_.at(pc));
      return frames;
    }
  }
  std::vector<SymbolizedFrame> frames(pcs.size());
  std::string input;
  for (size_t i = 0; i < pcs.size(); ++i) {
    frames[i].pc = pcs[i];
    Locate(&frames[i]);
    // Unknown modules still get a line so answers stay aligned.
    absl::StrAppend(&input, "\"", frames[i].module, "\" 0x",
                    absl::Hex(frames[i].offset ? frames[i].offset - 1 : 0),
                    "\n");
  }
  std::string output;
  if (symbolizer_path.empty() || pcs.empty() || g_symbolizer_timed_out.load() ||
      access(symbolizer_path.c_str(), X_OK) != 0 ||
      !RunSymbolizer(symbolizer_path, input, timeout_ms, &output))
    return frames;
  // One block per input line: "function\nfile:line:col\n\n".
  std::vector<std::string> blocks = absl::StrSplit(output, "\n\n");
  for (size_t i = 0; i < frames.size() && i < blocks.size(); ++i) {
    std::vector<std::string> lines =
        absl::StrSplit(blocks[i], '\n', absl::SkipEmpty());
    if (lines.size() < 2)
      continue;
    if (lines[0] != "??")
      frames[i].function = lines[0];
    std::vector<std::string> loc = absl::StrSplit(lines[1], ':');
    if (loc.size() >= 3 && loc[0] != "??") {
      frames[i].file = loc[0];
      (void)absl::SimpleAtoi(loc[1], &frames[i].line);
      (void)absl::SimpleAtoi(loc[2], &frames[i].column);
      if (frames[i].line == 0)
        frames[i].file.clear();
    }
  }
  return frames;
}

} // namespace ownsan
