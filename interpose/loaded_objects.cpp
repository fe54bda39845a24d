//===- loaded_objects.cpp - What the preload cannot see -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Section headers and .symtab are read from the files: a statically linked
// LLVM's functions are in the executable's .symtab, which is not loaded. A
// stripped object's .dynsym is read where it is loaded. Every size and
// offset read from a file is checked against the file's size first, and
// every loaded range against the object's segments: a truncated or odd
// file is skipped, never trusted.
//
//===----------------------------------------------------------------------===//

#include "interpose/loaded_objects.h"

#include "interpose/real_llvm.h"
#include "wrapper_api.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace ownsan {
namespace {

// A file read piece by piece: only the headers and one symbol table are
// read (pread into memory, not a map: mapping whole files and faulting
// their pages in cost ~0.1 ms per object, most of ownsan's start-up). The
// file's size is asked for (fstat) only before a large read: a short read
// says the file is shorter, and a size read from a header may be garbage.
class FileReader {
public:
  explicit FileReader(const std::string &path)
      : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~FileReader() {
    if (fd_ >= 0)
      close(fd_);
  }
  FileReader(const FileReader &) = delete;
  FileReader &operator=(const FileReader &) = delete;

  /// Reads `n` bytes at `offset` into `out`; false if the file is shorter.
  bool Read(uint64_t offset, uint64_t n, std::vector<char> *out) {
    if (fd_ < 0)
      return false;
    if (n > kReadWithoutSize && !Fits(offset, n))
      return false;
    out->resize(n);
    uint64_t done = 0;
    while (done < n) {
      ssize_t got = pread(fd_, out->data() + done, n - done,
                          static_cast<off_t>(offset + done));
      if (got <= 0)
        return false;
      done += static_cast<uint64_t>(got);
    }
    return true;
  }

private:
  // (Section headers are a few KiB; a symbol table is larger.)
  static constexpr uint64_t kReadWithoutSize = 64 * 1024;
  bool Fits(uint64_t offset, uint64_t n) {
    if (size_ == kUnknown) {
      struct stat st;
      size_ = fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)
                  ? static_cast<uint64_t>(st.st_size)
                  : 0;
    }
    return offset <= size_ && n <= size_ - offset;
  }
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  int fd_;
  uint64_t size_ = kUnknown;
};

// ownsan's own object (libownsan.so): its base address and loaded
// segments, found once by the segments that hold this code (dladdr would
// also look for the nearest symbol, a pass over the object's symbols).
struct OwnObjectInfo {
  ElfW(Addr) base = 0;
  std::vector<std::pair<ElfW(Addr), ElfW(Addr)>> segments;
};
const OwnObjectInfo &OwnObject() {
  static const OwnObjectInfo own = [] {
    OwnObjectInfo o;
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *data) {
          auto *out = static_cast<OwnObjectInfo *>(data);
          auto self = reinterpret_cast<ElfW(Addr)>(&OwnObject);
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr) &ph = info->dlpi_phdr[i];
            ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
            if (ph.p_type == PT_LOAD)
              out->segments.push_back({start, start + ph.p_memsz});
          }
          for (auto [start, end] : out->segments)
            if (self >= start && self < end) {
              out->base = info->dlpi_addr;
              return 1;
            }
          out->segments.clear(); // (another object's)
          return 0;
        },
        &o);
    return o;
  }();
  return own;
}
ElfW(Addr) OwnBase() { return OwnObject().base; }

// `path` as an absolute, resolved path when it names a file (dlopen keeps
// the name it was given, which may be relative).
std::string RealPath(const std::string &path) {
  char buf[PATH_MAX];
  return !path.empty() && realpath(path.c_str(), buf) ? std::string(buf) : path;
}

bool IsOwnsanFile(const std::string &path) {
  std::string base = path.substr(path.rfind('/') + 1);
  return base.rfind("libownsan", 0) == 0;
}

} // namespace

// The executable's path, resolved ("the executable" if /proc is missing).
std::string ExecutablePath() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, n) : "the executable";
}

namespace {

// Calls `visit(info, path)` for each loaded object that may define or call
// LLVM-C functions on its own: every one but a libLLVM (by file name or
// soname), ownsan's own, the vDSO and the dynamic loader. `path` is the
// name the loader opened it by (RealPath it to show it); the executable's
// is its real path.
template <typename Visit> void ForEachCandidateObject(Visit visit) {
  struct Walk {
    ElfW(Addr) own_base;
    std::vector<std::string> libllvms;
    Visit *visit;
    bool seen_executable;
  } walk{OwnBase(), LoadedLibLLVMPaths(0), &visit, false};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *w = static_cast<Walk *>(data);
        std::string path = info->dlpi_name ? info->dlpi_name : "";
        if (path.empty()) {
          // The executable comes first; later nameless entries (the vDSO)
          // have no file.
          if (w->seen_executable)
            return 0;
          w->seen_executable = true;
          path = ExecutablePath();
        } else if (info->dlpi_addr == w->own_base || IsOwnsanFile(path) ||
                   LibLLVMMajorFromName(path.c_str()) > 0 ||
                   std::find(w->libllvms.begin(), w->libllvms.end(), path) !=
                       w->libllvms.end() ||
                   path.find("linux-vdso") != std::string::npos ||
                   path.find("/ld-linux") != std::string::npos) {
          return 0;
        }
        (*w->visit)(info, path);
        return 0;
      },
      &walk);
}

} // namespace

namespace {

// `size` bytes at `vaddr` of a loaded object, if they lie in one of its
// readable segments' file-backed part (so reading them cannot fault).
const char *LoadedBytes(const dl_phdr_info *info, ElfW(Addr) vaddr,
                        uint64_t size) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && vaddr >= ph.p_vaddr &&
        size <= ph.p_filesz && vaddr - ph.p_vaddr <= ph.p_filesz - size)
      return reinterpret_cast<const char *>(info->dlpi_addr + vaddr);
  }
  return nullptr;
}

// The ELF header of a loaded object, where the loader mapped it (the
// segment that maps the file's first bytes), or nullptr.
const ElfW(Ehdr) * LoadedElfHeader(const dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && ph.p_offset == 0)
      return reinterpret_cast<const ElfW(Ehdr) *>(
          LoadedBytes(info, ph.p_vaddr, sizeof(ElfW(Ehdr))));
  }
  return nullptr;
}

} // namespace

size_t CountLLVMCDefinitions(const std::string &path,
                             const dl_phdr_info *loaded) {
  FileReader file(path);
  std::vector<char> header, section_bytes, symbol_bytes, name_bytes;
  // The header is read where it is loaded (one system call less per
  // object at every start), from the file otherwise.
  const ElfW(Ehdr) *eh = loaded ? LoadedElfHeader(loaded) : nullptr;
  if (!eh) {
    if (!file.Read(0, sizeof(ElfW(Ehdr)), &header))
      return 0;
    eh = reinterpret_cast<const ElfW(Ehdr) *>(header.data());
  }
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(ElfW(Shdr)) ||
      !file.Read(eh->e_shoff, uint64_t{eh->e_shnum} * sizeof(ElfW(Shdr)),
                 &section_bytes))
    return 0;
  auto *sections = reinterpret_cast<const ElfW(Shdr) *>(section_bytes.data());
  // .symtab has every function; a stripped file has .dynsym only.
  const ElfW(Shdr) *symtab = nullptr;
  for (unsigned i = 0; i < eh->e_shnum; ++i)
    if (sections[i].sh_type == SHT_SYMTAB ||
        (sections[i].sh_type == SHT_DYNSYM && !symtab))
      symtab = &sections[i];
  if (!symtab || symtab->sh_link >= eh->e_shnum ||
      symtab->sh_entsize != sizeof(ElfW(Sym)))
    return 0;
  const ElfW(Shdr) &strtab = sections[symtab->sh_link];
  if (strtab.sh_size == 0)
    return 0;
  // .dynsym is loaded: read where the loader mapped it (already in memory,
  // most of it touched by symbol look-ups), not from the file again.
  const char *symbol_data = nullptr, *names = nullptr;
  if (symtab->sh_type == SHT_DYNSYM && loaded) {
    symbol_data = LoadedBytes(loaded, symtab->sh_addr, symtab->sh_size);
    names = LoadedBytes(loaded, strtab.sh_addr, strtab.sh_size);
  }
  if (!symbol_data || !names) {
    if (!file.Read(symtab->sh_offset, symtab->sh_size, &symbol_bytes) ||
        !file.Read(strtab.sh_offset, strtab.sh_size, &name_bytes))
      return 0;
    symbol_data = symbol_bytes.data();
    names = name_bytes.data();
  }
  if (names[strtab.sh_size - 1] != '\0')
    return 0;
  auto *syms = reinterpret_cast<const ElfW(Sym) *>(symbol_data);
  size_t count = 0;
  for (size_t i = 0; i < symtab->sh_size / sizeof(ElfW(Sym)); ++i) {
    const ElfW(Sym) &s = syms[i];
    if (s.st_shndx == SHN_UNDEF || s.st_name >= strtab.sh_size)
      continue;
    const char *name = names + s.st_name;
    // (The first letter first: a library has thousands of symbols, and
    // this loop runs at every start.)
    if (name[0] == 'o') {
      // An object linked with ownsan's link mode checks its own calls.
      if (strcmp(name, "ownsan_linked_runtime") == 0)
        return 0;
      continue;
    }
    if (name[0] != 'L' || name[1] != 'L')
      continue;
    unsigned type = ELF64_ST_TYPE(s.st_info);
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) &&
        strncmp(name, "LLVM", 4) == 0 && IsWrappedName(name))
      ++count;
  }
  return count;
}

unsigned long long ObjectsLoadedSoFar() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        *static_cast<unsigned long long *>(data) = info->dlpi_adds;
        return 1; // (the count is the same in every entry)
      },
      &adds);
  return adds;
}

std::vector<ObjectDefiningLLVMC>
ObjectsDefiningLLVMC(absl::FunctionRef<bool(const std::string &)> skip) {
  // (Inside the walk: no object can be unloaded while its loaded symbol
  // table is read.)
  std::vector<ObjectDefiningLLVMC> found;
  ForEachCandidateObject(
      [&](const dl_phdr_info *info, const std::string &path) {
        if (skip(path))
          return;
        if (size_t n = CountLLVMCDefinitions(path, info))
          found.push_back({RealPath(path), n});
      });
  return found;
}

namespace {

// One loaded object's bound slots for wrapped LLVM-C functions that point
// into a libLLVM of `major`. Everything is read from the object's own
// mapped dynamic section and relocation tables; a slot is read only if it
// lies in one of the object's loaded segments.
using AddressRanges = std::vector<std::pair<ElfW(Addr), ElfW(Addr)>>;

// The loaded segments of the objects named in `paths`.
AddressRanges SegmentsOf(const std::vector<std::string> &paths) {
  struct Walk {
    const std::vector<std::string> *paths;
    AddressRanges ranges;
  } walk{&paths, {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *w = static_cast<Walk *>(data);
        if (!info->dlpi_name || std::find(w->paths->begin(), w->paths->end(),
                                          info->dlpi_name) == w->paths->end())
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD)
            w->ranges.push_back({info->dlpi_addr + ph.p_vaddr,
                                 info->dlpi_addr + ph.p_vaddr + ph.p_memsz});
        }
        return 0;
      },
      &walk);
  return walk.ranges;
}

// Calls visit(name, target) for each bound GOT/PLT slot of the loaded
// object `info` that imports a symbol (JUMP_SLOT and GLOB_DAT relocations):
// its name, NUL-terminated inside the string table, and the address the
// slot holds. (A lazily bound slot never called still holds the object's
// own PLT stub: not visited.) With `if_needs_libllvm`, only an object that
// links a libLLVM itself is read.
template <typename Visit>
void ForEachImportSlot(const dl_phdr_info *info, bool if_needs_libllvm,
                       Visit visit) {
  const ElfW(Dyn) *dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr +
                                                info->dlpi_phdr[i].p_vaddr);
  if (!dyn)
    return;
  auto mapped = [info](ElfW(Addr) addr, size_t n) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr) &ph = info->dlpi_phdr[i];
      ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
      if (ph.p_type == PT_LOAD && addr >= start && addr - start <= ph.p_memsz &&
          n <= ph.p_memsz - (addr - start))
        return true;
    }
    return false;
  };
  // glibc has already added the load address to these (x86-64).
  ElfW(Addr) symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t strsz = 0, pltrelsz = 0, relasz = 0, relacount = 0;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
    case DT_SYMTAB:
      symtab = d->d_un.d_ptr;
      break;
    case DT_STRTAB:
      strtab = d->d_un.d_ptr;
      break;
    case DT_STRSZ:
      strsz = d->d_un.d_val;
      break;
    case DT_JMPREL:
      jmprel = d->d_un.d_ptr;
      break;
    case DT_PLTRELSZ:
      pltrelsz = d->d_un.d_val;
      break;
    case DT_RELA:
      rela = d->d_un.d_ptr;
      break;
    case DT_RELASZ:
      relasz = d->d_un.d_val;
      break;
    case DT_RELACOUNT:
      relacount = d->d_un.d_val;
      break;
    }
  }
  if (!symtab || !strtab || !strsz || !mapped(strtab, strsz))
    return;
  // The relative relocations come first, DT_RELACOUNT of them, and import
  // nothing: skipped unread (most of a libLLVM's 8 MB of them).
  if (rela && relacount <= relasz / sizeof(ElfW(Rela))) {
    rela += relacount * sizeof(ElfW(Rela));
    relasz -= relacount * sizeof(ElfW(Rela));
  }
  const char *names = reinterpret_cast<const char *>(strtab);
  // Only an object that links a libLLVM itself binds LLVM-C references
  // in its own scope first.
  bool needs_libllvm = !if_needs_libllvm;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL && !needs_libllvm; ++d)
    if (d->d_tag == DT_NEEDED && d->d_un.d_val < strsz &&
        memchr(names + d->d_un.d_val, '\0', strsz - d->d_un.d_val))
      needs_libllvm = LibLLVMMajorFromName(names + d->d_un.d_val) > 0;
  if (!needs_libllvm)
    return;
  for (auto [table, size] : {std::pair{jmprel, pltrelsz}, {rela, relasz}}) {
    if (!table || !mapped(table, size))
      continue;
    auto *rel = reinterpret_cast<const ElfW(Rela) *>(table);
    for (size_t i = 0; i < size / sizeof(ElfW(Rela)); ++i) {
      unsigned type = ELF64_R_TYPE(rel[i].r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
        continue;
      ElfW(Addr) sym_addr =
          symtab + ELF64_R_SYM(rel[i].r_info) * sizeof(ElfW(Sym));
      if (!mapped(sym_addr, sizeof(ElfW(Sym))))
        continue;
      auto *sym = reinterpret_cast<const ElfW(Sym) *>(sym_addr);
      if (sym->st_shndx != SHN_UNDEF || sym->st_name >= strsz ||
          !memchr(names + sym->st_name, '\0', strsz - sym->st_name))
        continue;
      ElfW(Addr) slot = info->dlpi_addr + rel[i].r_offset;
      if (!mapped(slot, sizeof(void *)))
        continue;
      auto target = *reinterpret_cast<const ElfW(Addr) *>(slot);
      if (!mapped(target, 1))
        visit(names + sym->st_name, target);
    }
  }
}

size_t CountBypassingSlots(const dl_phdr_info *info,
                           const AddressRanges &libllvm) {
  size_t count = 0;
  ForEachImportSlot(info, /*if_needs_libllvm=*/true,
                    [&](const char *name, ElfW(Addr) target) {
                      if (name[0] != 'L' || strncmp(name, "LLVM", 4) != 0 ||
                          !IsWrappedName(name))
                        return;
                      for (const auto &[start, end] : libllvm)
                        if (target >= start && target < end) {
                          ++count;
                          break;
                        }
                    });
  return count;
}

} // namespace

std::vector<ObjectDefiningLLVMC> ObjectsBypassingWrappers(int major) {
  std::vector<std::string> mine = LoadedLibLLVMPaths(major);
  if (mine.empty())
    return {};
  AddressRanges libllvm = SegmentsOf(mine);
  std::vector<ObjectDefiningLLVMC> found;
  ForEachCandidateObject(
      [&](const dl_phdr_info *info, const std::string &path) {
        if (size_t n = CountBypassingSlots(info, libllvm))
          found.push_back({RealPath(path), n});
      });
  return found;
}

#if !OWNSAN_LINK_MODE // (link_allocation.cpp has link mode's)

namespace {
bool InOwnObject(const void *p) {
  auto a = reinterpret_cast<ElfW(Addr)>(p);
  for (auto [start, end] : OwnObject().segments)
    if (a >= start && a < end)
      return true;
  return false;
}

// The object defining `sym`, ownsan's own excepted ("" then).
std::string ForeignOwner(const void *sym) {
  // (ownsan's own, the usual case, needs no dladdr.)
  Dl_info info;
  link_map *map = nullptr;
  if (!sym || InOwnObject(sym) ||
      !dladdr1(sym, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP))
    return "";
  // (The executable, whose map has no name, by its resolved path: dladdr
  // names it as it was run, a symlink or a relative path.)
  std::string path = info.dli_fname ? info.dli_fname : "";
  return !map || !map->l_name || !*map->l_name || path.empty() || path[0] != '/'
             ? ExecutablePath()
             : path;
}

constexpr const char *kOperatorNames[] = {"_ZdlPv", "_ZdlPvm", "_Znwm"};
} // namespace

std::string GlobalOwnerOf(const char *name) {
  return ForeignOwner(RealDlsym(RTLD_DEFAULT, name));
}

std::string OperatorDeleteOwner() {
  // The definitions every object of the process binds to (the global
  // scope: the executable first, then the preloads, then the rest).
  for (const char *name : kOperatorNames)
    if (std::string owner = GlobalOwnerOf(name); !owner.empty())
      return owner;
  return "";
}

std::string BoundOwnerOf(const std::string &path,
                         absl::Span<const char *const> names) {
  struct Walk {
    const std::string *path;
    absl::Span<const char *const> names;
    std::string owner;
  } walk{&path, names, ""};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *w = static_cast<Walk *>(data);
        if (!info->dlpi_name || *w->path != info->dlpi_name)
          return 0;
        ForEachImportSlot(info, /*if_needs_libllvm=*/false,
                          [w](const char *name, ElfW(Addr) target) {
                            if (w->owner.empty() &&
                                std::any_of(w->names.begin(), w->names.end(),
                                            [name](const char *wanted) {
                                              return strcmp(name, wanted) == 0;
                                            }))
                              w->owner = ForeignOwner(
                                  reinterpret_cast<const void *>(target));
                          });
        return 1;
      },
      &walk);
  return walk.owner;
}

std::string OperatorDeleteOwnerOf(const std::string &path) {
  return BoundOwnerOf(path, kOperatorNames);
}

#endif

} // namespace ownsan
