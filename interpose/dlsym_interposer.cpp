//===- dlsym_interposer.cpp - dlsym/dlvsym hand back the wrappers --------===//
//
// ctypes, cffi's ABI mode, Julia's ccall and Ruby FFI find LLVM-C functions
// with dlsym(handle, "LLVMFoo") on the libLLVM handle, which bypasses
// LD_PRELOAD. ownsan defines dlsym and dlvsym: when the symbol asked for is
// an LLVM-C function that a loaded libLLVM defines and ownsan wraps, the
// caller gets the wrapper; every other look-up is answered by glibc.
//
// glibc's own dlsym is found by reading libc's dynamic symbol table, since
// asking dlsym/dlvsym for it would call ourselves (and the glibc-private
// __libc_dlsym is gone since glibc 2.34). glibc answers dlsym(RTLD_NEXT)
// relative to its caller's return address, so non-LLVM look-ups leave
// through a tail call: glibc then sees the original caller, and RTLD_NEXT
// keeps its meaning for every other library (AddressSanitizer's
// interceptors use it).
//
//===----------------------------------------------------------------------===//

#include "interpose/real_llvm.h"
#include "wrapper_api.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>

extern "C" {
struct ownsan_symbol {
  const char *name;
  void *wrapper;
  unsigned short fn;
};
extern const struct ownsan_symbol ownsan_symbols[];
extern const unsigned ownsan_symbol_count;
}

namespace ownsan {
namespace {

// No libc string functions here: under AddressSanitizer, dlsym is called
// from ASan's own start-up, before its interceptors of strcmp & co. work.
int Compare(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return static_cast<unsigned char>(*a) - static_cast<unsigned char>(*b);
}

bool HasPrefix(const char *s, const char *prefix) {
  while (*prefix)
    if (*s++ != *prefix++)
      return false;
  return true;
}

const char *BaseName(const char *path) {
  const char *base = path;
  for (const char *p = path; *p; ++p)
    if (*p == '/')
      base = p + 1;
  return base;
}

using DlsymFn = void *(*)(void *, const char *) noexcept;
using DlvsymFn = void *(*)(void *, const char *, const char *) noexcept;

// Number of symbols in a DT_GNU_HASH table (it does not store it).
size_t GnuHashSymbolCount(const uint32_t *gnu_hash) {
  uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1];
  uint32_t bloom_size = gnu_hash[2];
  const uint32_t *buckets = reinterpret_cast<const uint32_t *>(
      reinterpret_cast<const ElfW(Addr) *>(gnu_hash + 4) + bloom_size);
  const uint32_t *chain = buckets + nbuckets;
  uint32_t last = 0;
  for (uint32_t i = 0; i < nbuckets; ++i)
    if (buckets[i] > last)
      last = buckets[i];
  if (last < symoffset)
    return symoffset;
  while (!(chain[last - symoffset] & 1))
    ++last;
  return last + 1;
}

struct LibcLookup {
  const char *name;
  void *result;
};

// Finds the default-version definition of `name` in libc.so.6.
void *FindInLibc(const char *name) {
  LibcLookup lookup{name, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *l = static_cast<LibcLookup *>(data);
        if (!info->dlpi_name || !HasPrefix(BaseName(info->dlpi_name),
                                           "libc.so."))
          return 0;
        const ElfW(Dyn) *dyn = nullptr;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = reinterpret_cast<const ElfW(Dyn) *>(
                info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        if (!dyn)
          return 0;
        const ElfW(Sym) *symtab = nullptr;
        const char *strtab = nullptr;
        const uint32_t *hash = nullptr, *gnu_hash = nullptr;
        const ElfW(Half) *versym = nullptr;
        // ld.so relocates these entries in place on x86-64; be safe either
        // way.
        auto ptr = [&](ElfW(Addr) a) {
          return a < info->dlpi_addr ? a + info->dlpi_addr : a;
        };
        for (; dyn->d_tag != DT_NULL; ++dyn) {
          switch (dyn->d_tag) {
          case DT_SYMTAB:
            symtab = reinterpret_cast<const ElfW(Sym) *>(ptr(dyn->d_un.d_ptr));
            break;
          case DT_STRTAB:
            strtab = reinterpret_cast<const char *>(ptr(dyn->d_un.d_ptr));
            break;
          case DT_HASH:
            hash = reinterpret_cast<const uint32_t *>(ptr(dyn->d_un.d_ptr));
            break;
          case DT_GNU_HASH:
            gnu_hash = reinterpret_cast<const uint32_t *>(ptr(dyn->d_un.d_ptr));
            break;
          case DT_VERSYM:
            versym = reinterpret_cast<const ElfW(Half) *>(ptr(dyn->d_un.d_ptr));
            break;
          }
        }
        if (!symtab || !strtab || (!hash && !gnu_hash))
          return 0;
        size_t count = hash ? hash[1] : GnuHashSymbolCount(gnu_hash);
        for (size_t i = 0; i < count; ++i) {
          const ElfW(Sym) &s = symtab[i];
          if (s.st_value == 0 || ELF64_ST_TYPE(s.st_info) != STT_FUNC)
            continue;
          if (Compare(strtab + s.st_name, l->name) != 0)
            continue;
          if (versym && (versym[i] & 0x8000)) // hidden: not the default
            continue;
          l->result = reinterpret_cast<void *>(info->dlpi_addr + s.st_value);
          return 1;
        }
        return 0;
      },
      &lookup);
  return lookup.result;
}

DlsymFn RealDlsymFn() {
  static DlsymFn fn = reinterpret_cast<DlsymFn>(FindInLibc("dlsym"));
  return fn;
}

DlvsymFn RealDlvsymFn() {
  static DlvsymFn fn = reinterpret_cast<DlvsymFn>(FindInLibc("dlvsym"));
  return fn;
}

bool IsLLVMName(const char *name) {
  return name && name[0] == 'L' && name[1] == 'L' && name[2] == 'V' &&
         name[3] == 'M';
}

const ownsan_symbol *FindWrapped(const char *name) {
  size_t lo = 0, hi = ownsan_symbol_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = Compare(ownsan_symbols[mid].name, name);
    if (c == 0)
      return &ownsan_symbols[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return nullptr;
}

// `found` is what glibc answered for an LLVM* name.
void *Redirect(const char *name, void *found) {
  if (!found)
    return nullptr; // keep "not found" as it is
  const ownsan_symbol *sym = FindWrapped(name);
  if (!sym || found == sym->wrapper)
    return found;
  int major = 0;
  if (!AddressInLibLLVM(found, &major))
    return found; // some other library's function of that name
  // A libLLVM's entry point: hand out the wrapper. (If that libLLVM has
  // another major version, the wrapper's first call says so and stops.)
  return sym->wrapper;
}

} // namespace

void *RealDlsym(void *handle, const char *name) {
  DlsymFn real = RealDlsymFn();
  return real ? real(handle, name) : nullptr;
}

void *RealDlvsym(void *handle, const char *name, const char *version) {
  DlvsymFn real = RealDlvsymFn();
  return real ? real(handle, name, version) : nullptr;
}

} // namespace ownsan

// The entry points themselves are in dlsym_entry.c (C, for the guaranteed
// tail call); these are their helpers.
extern "C" void *ownsan_real_dlsym_fn(void) {
  return reinterpret_cast<void *>(ownsan::RealDlsymFn());
}
extern "C" void *ownsan_real_dlvsym_fn(void) {
  return reinterpret_cast<void *>(ownsan::RealDlvsymFn());
}
extern "C" void *ownsan_redirect_llvm_symbol(const char *name, void *found) {
  return ownsan::Redirect(name, found);
}
