//===- main.cpp - The ownsan command line --------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   ownsan run [--llvm N] [--] CMD [ARGS...]
//       Runs CMD with the ownsan runtime for LLVM N preloaded (without
//       --llvm: the LLVM that CMD links against, when it can tell; else the
//       LLVM this ownsan was built for); exits with CMD's status
//       (CMD replaces this process, so its pid, signals and exit status are
//       exactly CMD's). OWNSAN_OPTIONS passes through unchanged.
//   ownsan link-flags [--llvm N]
//       Prints what to add to a link line to build a program (or a shared
//       object) that carries LLVM N statically with the runtime linked in
//       (link mode, docs/link-mode.md): the --wrap list, the runtime, the
//       trampolines and static LLVM libraries in one group, the system
//       libraries. They go where libraries go: after the program's objects.
//   ownsan report [OPTIONS] PATH...
//       Merges the JSON reports of many processes (terminal summary, SARIF,
//       JUnit, HTML): execs /usr/bin/python3 with
//       <bin>/../share/ownsan/ownsan_report.py (tools/report/).
//   ownsan --version | --help
//
//===----------------------------------------------------------------------===//

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char kUsage[] =
    "usage: ownsan run [--llvm N] [--glibc-heap] [--no-huge-heap] [--] "
    "COMMAND [ARGS...]\n"
    "       ownsan link-flags [--llvm N] [--mlir]\n"
    "       ownsan report [--sarif F] [--junit F] [--html DIR] "
    "[--source-root DIR] PATH...\n"
    "       ownsan --version | --help\n"
    "Runs COMMAND with the ownsan runtime preloaded. Options for the runtime\n"
    "go in OWNSAN_OPTIONS (OWNSAN_OPTIONS=help=1 lists them). COMMAND's\n"
    "malloc is a size-class allocator (mimalloc), preloaded after the\n"
    "runtime, where this build found one: the quarantine holds freed blocks\n"
    "apart, which glibc's heap pays for in every later malloc. With\n"
    "--glibc-heap it stays glibc's, backed by transparent huge pages unless\n"
    "--no-huge-heap (docs/performance.md).\n"
    "`ownsan link-flags` prints the link options that build the runtime into\n"
    "a program with LLVM linked statically (docs/link-mode.md); with --mlir,\n"
    "the runtime checking MLIR's C API (docs/mlir.md).\n"
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

bool Readable(const std::string &path) {
  return access(path.c_str(), R_OK) == 0;
}

// Where the runtime for LLVM `major` may be, in order:
//   <bin>/../lib/libownsan.so                 this build tree's own runtime
//   <bin>/../lib/ownsan/llvm-N/libownsan.so   installed (cmake --install)
//   <bin>/../../build-llvmN/lib/libownsan.so  sibling build trees, as made
//                                             by scripts/test.sh
std::vector<std::string> RuntimeCandidates(int major) {
  std::string bin = SelfDir();
  std::string n = std::to_string(major);
  std::vector<std::string> out;
  if (major == OWNSAN_LLVM_MAJOR)
    out.push_back(bin + "/../lib/libownsan.so");
  out.push_back(bin + "/../lib/ownsan/llvm-" + n + "/libownsan.so");
  out.push_back(bin + "/../../build-llvm" + n + "/lib/libownsan.so");
  return out;
}

std::string FindRuntime(int major) {
  for (const std::string &c : RuntimeCandidates(major))
    if (Readable(c))
      return c;
  return "";
}

// Reads `len` bytes at `off` of `fd` into `out`; false when the file is
// shorter.
bool ReadAt(int fd, uint64_t off, uint64_t len, void *out) {
  char *p = static_cast<char *>(out);
  while (len) {
    ssize_t n = pread(fd, p, len, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    off += n;
    len -= n;
  }
  return true;
}

// LinkedLLVMMajor of the regular file `fd`, `size` bytes long.
int LinkedLLVMMajorOfElf(int fd, uint64_t size) {
  auto in_bounds = [&](uint64_t off, uint64_t len) {
    return off <= size && len <= size - off;
  };
  Elf64_Ehdr eh;
  if (!ReadAt(fd, 0, sizeof eh, &eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_bounds(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr)))
    return 0;
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  if (eh.e_shnum &&
      !ReadAt(fd, eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr), sh.data()))
    return 0;
  // The dynamic section and its string table are small (a few KiB); a
  // corrupt size is not believed.
  const uint64_t kMaxSection = 16 << 20;
  for (const Elf64_Shdr &s : sh) {
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= sh.size())
      continue;
    const Elf64_Shdr &strs = sh[s.sh_link];
    if (!in_bounds(s.sh_offset, s.sh_size) ||
        !in_bounds(strs.sh_offset, strs.sh_size) || s.sh_size > kMaxSection ||
        strs.sh_size > kMaxSection)
      return 0;
    std::vector<char> dyn(s.sh_size), str(strs.sh_size);
    if (!ReadAt(fd, s.sh_offset, s.sh_size, dyn.data()) ||
        !ReadAt(fd, strs.sh_offset, strs.sh_size, str.data()))
      return 0;
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= s.sh_size;
         off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      memcpy(&d, dyn.data() + off, sizeof d);
      if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strs.sh_size)
        continue;
      std::string name(
          str.data() + d.d_un.d_val,
          strnlen(str.data() + d.d_un.d_val, strs.sh_size - d.d_un.d_val));
      const char *rest = nullptr;
      if (name.rfind("libLLVM-", 0) == 0)
        rest = name.c_str() + 8;
      else if (name.rfind("libLLVM.so.", 0) == 0)
        rest = name.c_str() + 11;
      if (rest && isdigit(static_cast<unsigned char>(*rest)))
        return atoi(rest);
    }
  }
  return 0;
}

// The LLVM major a program links against, read from its ELF DT_NEEDED
// entries (libLLVM-14.so.1, libLLVM.so.19.1), or 0 when it cannot tell
// (a script, a program that loads libLLVM with dlopen, not ELF). Only a
// regular file is read, and only the headers and the dynamic section: a
// device (/dev/zero) or a FIFO is left to execvp to refuse, as a shell
// would.
int LinkedLLVMMajor(const std::string &program) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return 0;
  struct stat st;
  int major = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    major = LinkedLLVMMajorOfElf(fd, static_cast<uint64_t>(st.st_size));
  close(fd);
  return major;
}

// True for an ELF executable without a dynamic loader (PT_INTERP): linked
// with -static, it never reads LD_PRELOAD, so ownsan cannot be in it.
bool StaticallyLinked(const std::string &program) {
  int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return false;
  struct stat st;
  bool is_static = false;
  Elf64_Ehdr eh;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      ReadAt(fd, 0, sizeof eh, &eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) &&
      eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum > 0 &&
      eh.e_phoff <= static_cast<uint64_t>(st.st_size)) {
    is_static = true;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (!ReadAt(fd, eh.e_phoff + uint64_t{i} * sizeof ph, sizeof ph, &ph) ||
          ph.p_type == PT_INTERP) {
        is_static = false;
        break;
      }
    }
  }
  close(fd);
  return is_static;
}

// The file execvp would run for `cmd`.
std::string Which(const std::string &cmd) {
  if (cmd.find('/') != std::string::npos)
    return cmd;
  const char *path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + cmd;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

// The N of `--llvm N`, or 0 (the error said) when `arg` is not a major.
int ParseMajor(const char *arg) {
  if (!arg) {
    fprintf(stderr, "ownsan: --llvm needs an LLVM major version\n");
    return 0;
  }
  char *end = nullptr;
  long v = strtol(arg, &end, 10);
  if (!end || *end || v <= 0 || v > 1000) {
    fprintf(stderr, "ownsan: --llvm needs an LLVM major version, got '%s'\n",
            arg);
    return 0;
  }
  return static_cast<int>(v);
}

// The runtime for LLVM `major`, its real path; "" (the error said) if none.
std::string ResolvedRuntime(int major) {
  std::string runtime = FindRuntime(major);
  char resolved[PATH_MAX];
  if (runtime.empty() || !realpath(runtime.c_str(), resolved)) {
    fprintf(stderr,
            "ownsan: no runtime for LLVM %d (looked in %s and beside it); "
            "build one with -DLLVM_DIR=/usr/lib/llvm-%d/lib/cmake/llvm\n",
            major, RuntimeCandidates(major).front().c_str(), major);
    return "";
  }
  return resolved;
}

// Asks glibc's malloc in COMMAND to back its heap with transparent huge
// pages (tunable glibc.malloc.hugetlb=1, read once as the process starts,
// so set here, before the exec). The quarantine keeps up to
// quarantine_size_mb of the program's freed blocks from reuse, so the heap
// grows by as much: one page fault per 4 KiB page otherwise, several
// microseconds each in a VM (docs/performance.md). A tunable the user set
// stays theirs. Like LD_PRELOAD, the tunable is inherited by the children
// the runtime follows; with follow_children=0 the runtime puts back the
// GLIBC_TUNABLES the program was given (OWNSAN_RUN_GLIBC_TUNABLES: "=" and
// the value it had, or "-" if it had none).
void AskForHugePageHeap() {
  const char *old = getenv("GLIBC_TUNABLES");
  std::string tunables = old ? old : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos)
    return;
  setenv("OWNSAN_RUN_GLIBC_TUNABLES", old ? ("=" + tunables).c_str() : "-", 1);
  tunables += tunables.empty() ? "" : ":";
  tunables += "glibc.malloc.hugetlb=1";
  setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
}

// The allocator `ownsan run` preloads after the runtime to be COMMAND's
// malloc (OWNSAN_HEAP_ALLOCATOR, found by the build: mimalloc), or "" if
// none: the build found none, or its file is gone, or the program's
// LD_PRELOAD names it already (then it is the user's, and stays theirs).
// The quarantine holds a dispose's blocks back from reuse; glibc's heap
// then fragments around them, and its malloc costs twice as much
// (docs/performance.md, "The quarantine's heap"); a size-class allocator
// keeps each size's blocks apart and does not. (A sanitized build has
// none: its sanitizer is the malloc, CMakeLists.txt.)
// OWNSAN_RUN_HEAP_ALLOCATOR tells the runtime which entry `ownsan run`
// added (follow_children=0 takes it out of the children's LD_PRELOAD with
// the runtime's own).
std::string HeapAllocator(const char *old_preload) {
  std::string path = OWNSAN_HEAP_ALLOCATOR;
  if (path.empty() || !Readable(path))
    return "";
  std::string name = path.substr(path.rfind('/') + 1);
  if (old_preload && strstr(old_preload, name.c_str()))
    return "";
  return path;
}

int Run(int argc, char **argv) {
  int major = 0; // 0: not chosen with --llvm
  bool huge_page_heap = true;
  bool glibc_heap = false;
  int i = 0;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--help" || a == "-h") {
      fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--no-huge-heap") {
      huge_page_heap = false;
      continue;
    }
    if (a == "--glibc-heap") {
      glibc_heap = true;
      continue;
    }
    if (a == "--llvm") {
      major = ParseMajor(i + 1 < argc ? argv[++i] : nullptr);
      if (!major)
        return 2;
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
  if (major == 0) {
    // Without --llvm: the runtime for the LLVM the program links against,
    // when that can be told and such a runtime exists; else this build's.
    int linked = LinkedLLVMMajor(Which(argv[i]));
    major = linked && !FindRuntime(linked).empty() ? linked : OWNSAN_LLVM_MAJOR;
  }
  std::string preload = ResolvedRuntime(major);
  if (preload.empty())
    return 2;
#ifdef OWNSAN_SANITIZER_RUNTIME
  // A sanitized build of the runtime needs its sanitizer's runtime first.
  if (sizeof(OWNSAN_SANITIZER_RUNTIME) > 1)
    preload = std::string(OWNSAN_SANITIZER_RUNTIME) + ":" + preload;
#endif
  const char *old = getenv("LD_PRELOAD");
  std::string heap = glibc_heap ? "" : HeapAllocator(old);
  if (!heap.empty()) {
    preload += ":" + heap;
    setenv("OWNSAN_RUN_HEAP_ALLOCATOR", heap.c_str(), 1);
  }
  if (old && *old)
    preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  // (glibc's heap is the program's only without the allocator.)
  if (huge_page_heap && heap.empty())
    AskForHugePageHeap();
  // The pytest plugin (`pytest -p ownsan`) importable by the program.
  char py[PATH_MAX];
  if (realpath((SelfDir() + "/../share/ownsan/python").c_str(), py) &&
      Readable(std::string(py) + "/ownsan/__init__.py")) {
    std::string path = py;
    if (const char *old = getenv("PYTHONPATH"); old && *old)
      path += std::string(":") + old;
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  if (StaticallyLinked(Which(argv[i])))
    // (Said by the process itself: exec keeps the pid.)
    fprintf(stderr,
            "==%d==WARNING: OwnSan: %s is statically linked (no dynamic "
            "loader): ownsan cannot be preloaded into it, so nothing in it "
            "is checked\n",
            static_cast<int>(getpid()), argv[i]);
  execvp(argv[i], argv + i);
  fprintf(stderr, "ownsan: cannot run '%s': %s\n", argv[i], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

// The link-mode files of the MLIR-C profile's runtime for LLVM `major`
// (no preloaded runtime beside them), in order: this build tree's own when
// it is that profile's, installed (lib/ownsan/mlir-N), a sibling build
// tree (build-mlirN); "" (the error said) if none.
std::string MlirLinkDir(int major) {
  std::string bin = SelfDir(), n = std::to_string(major);
  std::vector<std::string> dirs;
  if (major == OWNSAN_LLVM_MAJOR && std::string(OWNSAN_PROFILE) == "mlir_c")
    dirs.push_back(bin + "/../lib");
  dirs.push_back(bin + "/../lib/ownsan/mlir-" + n);
  dirs.push_back(bin + "/../../build-mlir" + n + "/lib");
  char resolved[PATH_MAX];
  for (const std::string &d : dirs)
    if (Readable(d + "/ownsan_link_runtime.o") && realpath(d.c_str(), resolved))
      return resolved;
  fprintf(stderr,
          "ownsan: no MLIR-C runtime for LLVM %d (looked in %s and beside "
          "it); build one with -DOWNSAN_PROFILE=mlir_c "
          "-DLLVM_DIR=/usr/lib/llvm-%d/lib/cmake/llvm\n",
          major, dirs.front().c_str(), major);
  return "";
}

// `ownsan link-flags [--llvm N] [--mlir]`: the link-mode files sit beside
// the runtime of LLVM N (CMakeLists.txt, "Link mode"), or in the MLIR-C
// profile's directory; ownsan_link.libs holds the link line, with @DIR@
// for their directory. The
// last -lc is for linkers that put these flags after the C library (rustc):
// the runtime needs libc_nonshared's atexit and pthread_atfork.
int LinkFlags(int argc, char **argv) {
  int major = OWNSAN_LLVM_MAJOR;
  // (A build of the MLIR-C profile means its own runtime.)
  bool mlir = std::string(OWNSAN_PROFILE) == "mlir_c";
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--mlir") {
      mlir = true;
      continue;
    }
    if (a != "--llvm") {
      fprintf(stderr, "ownsan: usage: ownsan link-flags [--llvm N] [--mlir]\n");
      return 2;
    }
    major = ParseMajor(i + 1 < argc ? argv[i + 1] : nullptr);
    if (!major)
      return 2;
    ++i;
  }
  std::string dir;
  if (mlir) {
    dir = MlirLinkDir(major);
  } else {
    dir = ResolvedRuntime(major);
    dir = dir.substr(0, dir.rfind('/'));
  }
  if (dir.empty())
    return 2;
  std::string libs_file = dir + "/ownsan_link.libs";
  FILE *f = fopen(libs_file.c_str(), "r");
  if (!f || !Readable(dir + "/ownsan_link_runtime.o")) {
    if (f)
      fclose(f);
    fprintf(stderr,
            "ownsan: the runtime for LLVM %d in %s was built "
            "without link mode (-DOWNSAN_LINK_MODE=ON)\n",
            major, dir.c_str());
    return 2;
  }
  // One line, written by the build: @DIR@ stands for this directory.
  std::string line;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) {
    line += buf;
    if (line.back() == '\n') {
      line.pop_back();
      break;
    }
  }
  fclose(f);
  if (line.empty()) {
    fprintf(stderr,
            "ownsan: no static LLVM %d libraries were found when "
            "ownsan was built (install llvm-%d-dev)\n",
            major, major);
    return 2;
  }
  for (size_t at = 0; (at = line.find("@DIR@", at)) != std::string::npos;
       at += dir.size())
    line.replace(at, 5, dir);
  printf("%s\n", line.c_str());
  return 0;
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
  if (cmd == "link-flags")
    return LinkFlags(argc - 2, argv + 2);
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
