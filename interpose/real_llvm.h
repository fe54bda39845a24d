//===- real_llvm.h - The libLLVM the wrappers forward to --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Real entry points are resolved from the libLLVM actually loaded in the
// process (found with dl_iterate_phdr), never with dlsym(RTLD_NEXT): a
// library loaded with dlopen(RTLD_LOCAL) by a Python extension is not in
// the preload's RTLD_NEXT scope. A runtime never forwards into a libLLVM of
// another major version: calls meant for one reach it without the runtime
// (see render_version_script in tools/wrapgen/render_link.py, and dlsym).
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_INTERPOSE_REAL_LLVM_H
#define OWNSAN_INTERPOSE_REAL_LLVM_H

#include <string>
#include <vector>

namespace ownsan {

/// glibc's own dlsym/dlvsym (ours are interposed over them).
void *RealDlsym(void *handle, const char *name);
void *RealDlvsym(void *handle, const char *name, const char *version);

struct LoadedLibLLVM {
  std::string path;
  int major = 0;
  void *handle = nullptr; ///< dlopen(RTLD_NOLOAD) handle
};

/// The libLLVM of this runtime's major version in the process, or nullptr
/// if no libLLVM is loaded; dies with a one-line message if only another
/// version is. `why` names the function that needed it.
const LoadedLibLLVM *SelectedLibLLVM(const char *why);

/// True if `addr` lies inside some loaded libLLVM (any version); sets
/// `major` to its version.
bool AddressInLibLLVM(const void *addr, int *major);

/// Says once per process, on stderr, that a libLLVM of another major
/// (`path`, `major`) is in the process and that its calls are not checked:
/// they reach it unchanged (PLT references bound to its symbol version pass
/// the runtime by; dlsym hands out its own entry points).
void NoteUncheckedLibLLVM(const std::string &path, int major);

/// NoteUncheckedLibLLVM for the first loaded libLLVM of another major, if
/// any.
void NoteUncheckedLibLLVMs();

/// The paths of the loaded libLLVMs of major `major` (0: of any major),
/// told by their sonames, whatever name they were loaded by.
std::vector<std::string> LoadedLibLLVMPaths(int major);

/// The LLVM major in a libLLVM file name ("libLLVM-14.so.1",
/// "libLLVM.so.19.1"), or 0 if the name is not a libLLVM.
int LibLLVMMajorFromName(const char *path);

} // namespace ownsan

#endif // OWNSAN_INTERPOSE_REAL_LLVM_H
