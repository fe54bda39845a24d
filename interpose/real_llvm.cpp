//===- real_llvm.cpp - The libLLVM the wrappers forward to ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "interpose/real_llvm.h"
#include "report/output_line.h"
#include "runtime/build_facts.h"

#include "runtime/runtime.h"
#include "wrapper_api.h"

#include "absl/strings/str_cat.h"
#include "core/mutex.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <vector>

namespace ownsan {

int LibLLVMMajorFromName(const char *path) {
  // (No std::string: every object is asked, by several walks a run.)
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *rest;
  if (strncmp(base, "libLLVM-", 8) == 0)
    rest = base + 8; // libLLVM-14.so.1, libLLVM-14.0.6.so
  else if (strncmp(base, "libLLVM.so.", 11) == 0)
    rest = base + 11; // libLLVM.so.19.1
  else
    return 0;
  if (!isdigit(static_cast<unsigned char>(*rest)))
    return 0;
  return atoi(rest);
}

namespace {

// The DT_SONAME of a loaded object ("libLLVM.so.19.1"), or nullptr. The
// file name it was opened by may be any symlink (libLLVM.so, libLLVM.so.1).
const char *Soname(const ElfW(Dyn) * dyn, ElfW(Addr) base) {
  if (!dyn)
    return nullptr;
  const char *strtab = nullptr;
  ElfW(Xword) soname = 0;
  bool has_soname = false;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_STRTAB) {
      ElfW(Addr) a = dyn->d_un.d_ptr;
      strtab = reinterpret_cast<const char *>(a < base ? a + base : a);
    } else if (dyn->d_tag == DT_SONAME) {
      soname = dyn->d_un.d_val;
      has_soname = true;
    }
  }
  return strtab && has_soname ? strtab + soname : nullptr;
}

// The LLVM major of a loaded object: from its soname, else its file name.
int LoadedMajor(const ElfW(Dyn) * dyn, ElfW(Addr) base, const char *path) {
  if (const char *soname = Soname(dyn, base); soname && *soname)
    return LibLLVMMajorFromName(soname);
  return path ? LibLLVMMajorFromName(path) : 0;
}

// The LLVM major of an object dl_iterate_phdr shows (0: not a libLLVM).
int LoadedMajorOf(const dl_phdr_info *info) {
  const ElfW(Dyn) *dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr +
                                                info->dlpi_phdr[i].p_vaddr);
  return LoadedMajor(dyn, info->dlpi_addr, info->dlpi_name);
}

std::vector<LoadedLibLLVM> LoadedLibLLVMs() {
  std::vector<LoadedLibLLVM> found;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (!info->dlpi_name || !*info->dlpi_name)
          return 0;
        int major = LoadedMajorOf(info);
        if (major > 0)
          static_cast<std::vector<LoadedLibLLVM> *>(data)->push_back(
              {info->dlpi_name, major, nullptr});
        return 0;
      },
      &found);
  return found;
}

} // namespace

#if !OWNSAN_LINK_MODE // (link mode has no libLLVM to select)
namespace {
// Chosen once. A mutex the sanitizers can see (core/mutex.h) rather than
// absl::call_once, whose synchronization is invisible to TSan here.
Mutex g_select_mu(absl::kConstInit);
std::atomic<LoadedLibLLVM *> g_selected{nullptr};
} // namespace

const LoadedLibLLVM *SelectedLibLLVM(const char *why) {
  if (LoadedLibLLVM *lib = g_selected.load(std::memory_order_acquire))
    return lib;
  MutexLock lock(&g_select_mu);
  if (LoadedLibLLVM *lib = g_selected.load(std::memory_order_acquire))
    return lib;
  std::vector<LoadedLibLLVM> libs = LoadedLibLLVMs();
  for (LoadedLibLLVM &lib : libs) {
    if (lib.major != kBuildLLVMMajor)
      continue;
    lib.handle = dlopen(lib.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!lib.handle)
      continue;
    Runtime::Get().NoteLibLLVMAllocator(lib.path); // (it may stand down)
    Runtime::Get().OnLibLLVMFound(lib.path, lib.major);
    g_selected.store(new LoadedLibLLVM(lib), std::memory_order_release);
    NoteUncheckedLibLLVMs();
    return g_selected.load(std::memory_order_acquire);
  }
  if (!libs.empty())
    Runtime::Fatal(absl::StrCat(
        "this runtime was built for LLVM ", kBuildLLVMMajor,
        " but the program called ", why, " with ", libs[0].path, " (LLVM ",
        libs[0].major, ") loaded; use the LLVM ", libs[0].major,
        " runtime: ownsan run --llvm ", libs[0].major));
  return nullptr;
}

namespace {

// `name` as defined by a loaded object other than ownsan and the libLLVMs:
// LLVM linked into it statically, its symbols left visible. Its own calls
// bind to the preloaded wrappers (an unversioned reference takes the first
// definition in the global scope), which send them back here.
void *EmbeddedDefinition(const char *name) {
  struct Walk {
    const char *name;
    ElfW(Addr) own_base;
    void *found;
  } walk{name, 0, nullptr};
  Dl_info self;
  if (dladdr(reinterpret_cast<void *>(&EmbeddedDefinition), &self))
    walk.own_base = reinterpret_cast<ElfW(Addr)>(self.dli_fbase);
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *w = static_cast<Walk *>(data);
        if (info->dlpi_addr == w->own_base || !info->dlpi_name)
          return 0;
        if (LoadedMajorOf(info) > 0)
          return 0;
        void *h = dlopen(*info->dlpi_name ? info->dlpi_name : nullptr,
                         RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
          return 0;
        void *sym = RealDlsym(h, w->name);
        dlclose(h);
        Dl_info where;
        // (dlsym on a handle also searches the object's dependencies.)
        if (sym && dladdr(sym, &where) &&
            reinterpret_cast<ElfW(Addr)>(where.dli_fbase) == info->dlpi_addr) {
          w->found = sym;
          return 1;
        }
        return 0;
      },
      &walk);
  return walk.found;
}

} // namespace

#endif

std::vector<std::string> LoadedLibLLVMPaths(int major) {
  std::vector<std::string> paths;
  for (const LoadedLibLLVM &lib : LoadedLibLLVMs())
    if (major == 0 || lib.major == major)
      paths.push_back(lib.path);
  return paths;
}

void NoteUncheckedLibLLVM(const std::string &path, int major) {
  static std::atomic<bool> noted{false};
  if (noted.exchange(true))
    return;
  std::string line =
      OwnsanLine(LineLevel::kInfo,
                 absl::StrCat("note: calls into ", path, " (LLVM ", major,
                              ") are not checked; this runtime is for LLVM ",
                              kBuildLLVMMajor, " (ownsan run --llvm ", major,
                              " checks them)"));
  (void)!write(2, line.data(), line.size());
}

void NoteUncheckedLibLLVMs() {
  for (const LoadedLibLLVM &lib : LoadedLibLLVMs())
    if (lib.major != kBuildLLVMMajor) {
      NoteUncheckedLibLLVM(lib.path, lib.major);
      return;
    }
}

bool AddressInLibLLVM(const void *addr, int *major) {
  Dl_info info;
  link_map *map = nullptr;
  if (!dladdr1(addr, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) ||
      !map)
    return false;
  *major = LoadedMajor(map->l_ld, map->l_addr, info.dli_fname);
  return *major > 0;
}

#if !OWNSAN_LINK_MODE // (link mode calls __real_LLVMFoo directly)
void *ResolveReal(FnId fn) {
  const char *name = WrappedFnName(fn);
  const LoadedLibLLVM *lib = SelectedLibLLVM(name);
  if (!lib) {
    // No libLLVM: the call came from an object with LLVM linked in whose
    // symbols the wrappers interpose. Forwarded to its own definition,
    // unchecked; the runtime stands down, since nothing it could check
    // is in the process. Not cached: a libLLVM loaded later is the one
    // the wrappers must forward to then.
    if (void *p = EmbeddedDefinition(name)) {
      Runtime::Get().StandDown();
      return p;
    }
    Runtime::Fatal(absl::StrCat(
        "the program called ", name,
        " but no libLLVM shared library is loaded and no loaded object "
        "defines it"));
  }
  void *p = RealDlsym(lib->handle, name);
  if (!p)
    Runtime::Fatal(absl::StrCat(name, " is declared in the LLVM ",
                                kBuildLLVMMajor, " headers but ", lib->path,
                                " does not export it"));
  g_real_fns[fn].store(p, std::memory_order_release);
  return p;
}
#endif

} // namespace ownsan
