//===- dlsym_interposer.cpp - dlsym/dlvsym hand back the wrappers --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ctypes, cffi's ABI mode, Julia's ccall and Ruby FFI find LLVM-C functions
// with dlsym(handle, "LLVMFoo") on the libLLVM handle, which bypasses
// LD_PRELOAD. ownsan defines dlsym and dlvsym: when the symbol asked for is
// an LLVM-C function that a loaded libLLVM of the runtime's major defines
// and ownsan wraps, the caller gets the wrapper; every other look-up
// (another major's libLLVM included) is answered by glibc.
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

#include "interpose/loaded_objects.h"
#include "interpose/no_sanitize.h"
#include "interpose/real_llvm.h"
#include "runtime/build_facts.h"
#include "wrapper_api.h"

#include <atomic>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>

extern "C" {
// (symbols.c: each wrapper's address by FnId, as its distance from the
// table, which the static linker fills in: no relocation at start-up.)
__attribute__((
    visibility("hidden"))) extern const int32_t ownsan_wrapper_offsets[];
}

namespace ownsan {
namespace {

// No libc string functions and no sanitizer instrumentation here: dlsym is
// called from a sanitizer's own start-up (ASan, TSan), before its
// interceptors of strcmp & co. and its shadow memory work.
OWNSAN_NO_SANITIZE bool HasPrefix(const char *s, const char *prefix) {
  while (*prefix)
    if (*s++ != *prefix++)
      return false;
  return true;
}

OWNSAN_NO_SANITIZE const char *BaseName(const char *path) {
  const char *base = path;
  for (const char *p = path; *p; ++p)
    if (*p == '/')
      base = p + 1;
  return base;
}

using DlsymFn = void *(*)(void *, const char *) noexcept;
using DlvsymFn = void *(*)(void *, const char *, const char *) noexcept;

// ld.so relocates the dynamic section's addresses in place on x86-64;
// be safe either way.
OWNSAN_NO_SANITIZE ElfW(Addr) Relocated(ElfW(Addr) a, ElfW(Addr) base) {
  return a < base ? a + base : a;
}

// A loaded object's dynamic symbols.
struct SymbolTable {
  const ElfW(Sym) * symbols;
  const char *names;
  const ElfW(Half) * versions; ///< nullptr: unversioned
  ElfW(Addr) base;
};

// Symbol `i`'s address if it is the default-version function `name`.
OWNSAN_NO_SANITIZE void *DefaultDefinition(const SymbolTable &t, size_t i,
                                           const char *name) {
  const ElfW(Sym) &s = t.symbols[i];
  if (s.st_value == 0 || ELF64_ST_TYPE(s.st_info) != STT_FUNC ||
      CompareWithoutLibc(t.names + s.st_name, name) != 0 ||
      (t.versions && (t.versions[i] & 0x8000))) // (hidden: not the default)
    return nullptr;
  return reinterpret_cast<void *>(t.base + s.st_value);
}

// The default-version definition of `name` in the object whose dynamic
// section is `dyn`, loaded at `base`; nullptr if absent.
OWNSAN_NO_SANITIZE void *FindInObject(const ElfW(Dyn) * dyn, ElfW(Addr) base,
                                      const char *name) {
  const ElfW(Sym) *symtab = nullptr;
  const char *strtab = nullptr;
  const uint32_t *hash = nullptr, *gnu_hash = nullptr;
  const ElfW(Half) *versym = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    ElfW(Addr) a = Relocated(dyn->d_un.d_ptr, base);
    switch (dyn->d_tag) {
    case DT_SYMTAB:
      symtab = reinterpret_cast<const ElfW(Sym) *>(a);
      break;
    case DT_STRTAB:
      strtab = reinterpret_cast<const char *>(a);
      break;
    case DT_HASH:
      hash = reinterpret_cast<const uint32_t *>(a);
      break;
    case DT_GNU_HASH:
      gnu_hash = reinterpret_cast<const uint32_t *>(a);
      break;
    case DT_VERSYM:
      versym = reinterpret_cast<const ElfW(Half) *>(a);
      break;
    }
  }
  if (!symtab || !strtab || (!hash && !gnu_hash))
    return nullptr;
  // (No lambda: it would not inherit OWNSAN_NO_SANITIZE.)
  SymbolTable table{symtab, strtab, versym, base};
  if (gnu_hash) {
    // The name's chain of the GNU hash table: a few symbols, where a walk
    // of libc's 3,000 took 28,000 instructions at every start.
    uint32_t h = 5381;
    for (const char *c = name; *c; ++c)
      h = h * 33 + static_cast<unsigned char>(*c);
    uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1];
    if (nbuckets == 0)
      return nullptr;
    const uint32_t *buckets = reinterpret_cast<const uint32_t *>(
        reinterpret_cast<const ElfW(Addr) *>(gnu_hash + 4) + gnu_hash[2]);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
      return nullptr;
    for (;; ++i) {
      uint32_t entry = chain[i - symoffset];
      if ((entry | 1) == (h | 1))
        if (void *p = DefaultDefinition(table, i, name))
          return p;
      if (entry & 1)
        return nullptr;
    }
  }
  for (size_t i = 0; i < hash[1]; ++i)
    if (void *p = DefaultDefinition(table, i, name))
      return p;
  return nullptr;
}

// Finds the default-version definition of `name` in libc.so.6. The loaded
// objects are read from the dynamic linker's own list (_r_debug), not with
// dl_iterate_phdr, which ThreadSanitizer intercepts and which must not be
// called before the sanitizer has started (its start-up calls dlsym).
OWNSAN_NO_SANITIZE void *FindInLibc(const char *name) {
  for (const link_map *m = _r_debug.r_map; m; m = m->l_next)
    if (m->l_name && HasPrefix(BaseName(m->l_name), "libc.so.") && m->l_ld)
      return FindInObject(m->l_ld, m->l_addr, name);
  return nullptr;
}

// Looked up once; a racing second look-up stores the same value. (No
// function-local statics: their guards are intercepted by sanitizers.)
DlsymFn g_real_dlsym = nullptr;   // __atomic builtins only: no calls into
DlvsymFn g_real_dlvsym = nullptr; // (instrumented) std::atomic members

OWNSAN_NO_SANITIZE DlsymFn RealDlsymFn() {
  DlsymFn fn = __atomic_load_n(&g_real_dlsym, __ATOMIC_RELAXED);
  if (!fn) {
    fn = reinterpret_cast<DlsymFn>(FindInLibc("dlsym"));
    __atomic_store_n(&g_real_dlsym, fn, __ATOMIC_RELAXED);
  }
  return fn;
}

OWNSAN_NO_SANITIZE DlvsymFn RealDlvsymFn() {
  DlvsymFn fn = __atomic_load_n(&g_real_dlvsym, __ATOMIC_RELAXED);
  if (!fn) {
    fn = reinterpret_cast<DlvsymFn>(FindInLibc("dlvsym"));
    __atomic_store_n(&g_real_dlvsym, fn, __ATOMIC_RELAXED);
  }
  return fn;
}

// The wrapper of the LLVM-C function `name`, or nullptr.
OWNSAN_NO_SANITIZE void *FindWrapper(const char *name) {
  unsigned fn = FnIdOfName(name);
  if (fn >= kFnCount)
    return nullptr;
  return const_cast<char *>(
             reinterpret_cast<const char *>(ownsan_wrapper_offsets)) +
         ownsan_wrapper_offsets[fn];
}

// `found` is what glibc answered for an LLVM* name (and `version`, for
// dlvsym).
void *Redirect(const char *name, const char *version, void *found) {
  if (!found)
    return nullptr; // keep "not found" as it is
  void *wrapper = FindWrapper(name);
  if (!wrapper)
    return found;
  if (found == wrapper) {
    // A look-up in the global scope found the preload itself; what the
    // program gets without it is the next definition.
    found = version ? RealDlvsym(RTLD_NEXT, name, version)
                    : RealDlsym(RTLD_NEXT, name);
    if (!found)
      return nullptr;
  }
  int major = 0;
  if (!AddressInLibLLVM(found, &major))
    return found; // some other library's function of that name
  if (major != kBuildLLVMMajor) {
    // Another major's entry point: the caller gets it as it is, unchecked.
    Dl_info info;
    if (dladdr(found, &info) && info.dli_fname)
      NoteUncheckedLibLLVM(info.dli_fname, major);
    return found;
  }
  return wrapper; // this runtime's libLLVM: hand out the wrapper
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
extern "C" OWNSAN_NO_SANITIZE void *ownsan_real_dlsym_fn(void) {
  return reinterpret_cast<void *>(ownsan::RealDlsymFn());
}
extern "C" OWNSAN_NO_SANITIZE void *ownsan_real_dlvsym_fn(void) {
  return reinterpret_cast<void *>(ownsan::RealDlvsymFn());
}
extern "C" void *ownsan_redirect_llvm_symbol(const char *name,
                                             const char *version, void *found) {
  return ownsan::Redirect(name, version, found);
}
