//===- symbolizer.cpp - Program counters to function, file:line ----------===//

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

#include <cstring>

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

bool RunSymbolizer(const std::string &path, const std::string &input,
                   std::string *output) {
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
  std::vector<std::string> env_storage;
  std::vector<char *> env = ChildEnv(&env_storage);
  std::string a0 = path, a1 = "--no-inlines", a2 = "--demangle";
  char *argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, path.c_str(), &fa, nullptr, argv, env.data());
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
  // The input is small (a few dozen lines): write it all, then read.
  struct sigaction ign {
  }, old{};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  size_t done = 0;
  while (done < input.size()) {
    ssize_t n = write(in_pipe[1], input.data() + done, input.size() - done);
    if (n <= 0)
      break;
    done += n;
  }
  close(in_pipe[1]);
  sigaction(SIGPIPE, &old, nullptr);
  char buf[4096];
  for (;;) {
    ssize_t n = read(out_pipe[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    output->append(buf, n);
  }
  close(out_pipe[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

std::vector<SymbolizedFrame> Symbolize(const std::vector<uintptr_t> &pcs,
                                       const std::string &symbolizer_path) {
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
  if (symbolizer_path.empty() || pcs.empty() ||
      access(symbolizer_path.c_str(), X_OK) != 0 ||
      !RunSymbolizer(symbolizer_path, input, &output))
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
