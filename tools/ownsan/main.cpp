//===- main.cpp - The ownsan command line --------------------------------===//
//
//   ownsan run [--llvm N] [--] CMD [ARGS...]
//       Runs CMD with the ownsan runtime preloaded; exits with CMD's status
//       (CMD replaces this process, so its pid, signals and exit status are
//       exactly CMD's). OWNSAN_OPTIONS passes through unchanged.
//   ownsan report [OPTIONS] PATH...
//       Merges the JSON reports of many processes (terminal summary, SARIF,
//       JUnit, HTML): execs /usr/bin/python3 with
//       <bin>/../share/ownsan/ownsan_report.py (tools/report/).
//   ownsan --version | --help
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char kUsage[] =
    "usage: ownsan run [--llvm N] [--] COMMAND [ARGS...]\n"
    "       ownsan report [--sarif F] [--junit F] [--html DIR] "
    "[--source-root DIR] PATH...\n"
    "       ownsan --version\n"
    "Runs COMMAND with the ownsan runtime preloaded. Options for the runtime\n"
    "go in OWNSAN_OPTIONS (OWNSAN_OPTIONS=help=1 lists them).\n"
    "`ownsan report` merges the JSON reports of many processes "
    "(`ownsan report --help`).\n";

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string path(buf, n);
  return path.substr(0, path.rfind('/'));
}

// The runtime for LLVM `major`: lib/libownsan.so next to bin/ for the
// version this CLI was built with, lib/llvm-N/libownsan.so for others.
std::string RuntimePath(int major) {
  std::string lib = SelfDir() + "/../lib";
  if (major == OWNSAN_LLVM_MAJOR)
    return lib + "/libownsan.so";
  return lib + "/llvm-" + std::to_string(major) + "/libownsan.so";
}

int Run(int argc, char **argv) {
  int major = OWNSAN_LLVM_MAJOR;
  int i = 0;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--llvm" && i + 1 >= argc) {
      fprintf(stderr, "ownsan: --llvm needs an LLVM major version\n");
      return 2;
    }
    if (a == "--llvm") {
      char *end = nullptr;
      long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v <= 0 || v > 1000) {
        fprintf(stderr,
                "ownsan: --llvm needs an LLVM major version, got '%s'\n",
                argv[i]);
        return 2;
      }
      major = static_cast<int>(v);
      continue;
    }
    if (a.rfind("--", 0) == 0) {
      fprintf(stderr, "ownsan: unknown option '%s' for 'run'\n%s", a.c_str(),
              kUsage);
      return 2;
    }
    break;
  }
  if (i >= argc) {
    fprintf(stderr, "ownsan: 'run' needs a command\n%s", kUsage);
    return 2;
  }
  std::string runtime = RuntimePath(major);
  char resolved[PATH_MAX];
  if (!realpath(runtime.c_str(), resolved) || access(resolved, R_OK) != 0) {
    fprintf(stderr,
            "ownsan: no runtime for LLVM %d at %s (build one with "
            "-DLLVM_DIR=/usr/lib/llvm-%d/lib/cmake/llvm)\n",
            major, runtime.c_str(), major);
    return 2;
  }
  std::string preload = resolved;
#ifdef OWNSAN_SANITIZER_RUNTIME
  // A sanitized build of the runtime needs its sanitizer's runtime first.
  if (sizeof(OWNSAN_SANITIZER_RUNTIME) > 1)
    preload = std::string(OWNSAN_SANITIZER_RUNTIME) + ":" + preload;
#endif
  if (const char *old = getenv("LD_PRELOAD"); old && *old)
    preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  execvp(argv[i], argv + i);
  fprintf(stderr, "ownsan: cannot run '%s': %s\n", argv[i], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

// `ownsan report ARGS...`: the report tool is a Python script installed in
// share/ownsan next to bin/; it takes over this process.
int Report(int argc, char **argv) {
  static const char kPython[] = "/usr/bin/python3";
  std::string script = SelfDir() + "/../share/ownsan/ownsan_report.py";
  if (access(script.c_str(), R_OK) != 0) {
    fprintf(stderr, "ownsan: 'report' is not installed (no %s)\n",
            script.c_str());
    return 2;
  }
  std::vector<char *> args;
  args.push_back(const_cast<char *>(kPython));
  args.push_back(script.data());
  for (int i = 0; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(kPython, args.data());
  fprintf(stderr, "ownsan: cannot run %s: %s\n", kPython, strerror(errno));
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(kUsage, stderr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "run")
    return Run(argc - 2, argv + 2);
  if (cmd == "report")
    return Report(argc - 2, argv + 2);
  if (cmd == "--version") {
    printf("ownsan %s (LLVM %d)\n", OWNSAN_VERSION, OWNSAN_LLVM_MAJOR);
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    fputs(kUsage, stdout);
    return 0;
  }
  fprintf(stderr, "ownsan: unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return 2;
}
