//===- loaded_objects.h - What the preload cannot see -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The process's loaded objects, read for the two things that make ownsan
// blind under LD_PRELOAD: LLVM-C entry points defined outside a libLLVM
// shared library (LLVM linked in statically: calls to them never pass a
// dynamic symbol), and an operator new/delete other than ownsan's (LLVM's
// deletions never reach the quarantine). src/runtime/blind_spots.cpp says
// what they mean.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_INTERPOSE_LOADED_OBJECTS_H
#define OWNSAN_INTERPOSE_LOADED_OBJECTS_H

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"

#include <cstddef>
#include <string>
#include <vector>

struct dl_phdr_info;

namespace ownsan {

struct ObjectDefiningLLVMC {
  std::string path;     ///< the file (the executable's real path)
  size_t functions = 0; ///< wrapped LLVM-C functions it defines
};

/// Loaded objects, other than a libLLVM shared library and ownsan's own,
/// the vDSO and the dynamic loader, that define LLVM-C functions ownsan
/// wraps (the executable named by its real path). Each object is read once
/// per process: `skip` is called first with each object's path and returns
/// true for one already read.
std::vector<ObjectDefiningLLVMC>
ObjectsDefiningLLVMC(absl::FunctionRef<bool(const std::string &)> skip);

/// Counts the defined functions whose names the wrappers wrap in one ELF
/// file's symbol table (.symtab, or .dynsym if it was stripped). If `loaded`
/// is the file's loaded object, its ELF header and .dynsym are read where
/// the loader mapped them. 0 for a file that cannot be read or is not ELF.
size_t CountLLVMCDefinitions(const std::string &path,
                             const dl_phdr_info *loaded = nullptr);

/// Loaded objects (as ObjectsDefiningLLVMC) whose resolved PLT/GOT slots
/// for wrapped LLVM-C functions point straight into a libLLVM of major
/// `major` instead of ownsan's wrappers: their calls bypass the preload
/// (loaded with RTLD_DEEPBIND, or bound some other way past the global
/// scope). `functions` counts those slots. Only slots already bound are
/// seen (all of them with BIND_NOW; lazily bound ones once called).
std::vector<ObjectDefiningLLVMC> ObjectsBypassingWrappers(int major);

/// How many objects the process has loaded so far (dlopen included;
/// glibc's dlpi_adds): unchanged means no object is new.
unsigned long long ObjectsLoadedSoFar();

/// The executable's path, resolved ("the executable" if /proc is missing).
std::string ExecutablePath();

/// The object that defines the global operator new/delete the process
/// uses, if it is not ownsan's ("" when ownsan's own are in force). In link
/// mode: the object of the real operators behind the wrapped ones, if they
/// are not libstdc++'s (link_allocation.cpp).
std::string OperatorDeleteOwner();
/// The object that defines `name` in the global scope, if not ownsan.
std::string GlobalOwnerOf(const char *name);
/// The object that defines what the loaded object `path` (a libLLVM) has
/// bound its first reference to one of `names` to, if not ownsan ("" when
/// ownsan, or none is bound yet). One dlopen'ed with RTLD_DEEPBIND binds
/// its own dependencies' (libstdc++'s operator new, libc's free) before the
/// global scope's. Preload only.
std::string BoundOwnerOf(const std::string &path,
                         absl::Span<const char *const> names);
/// BoundOwnerOf(path, operator new and delete).
std::string OperatorDeleteOwnerOf(const std::string &path);

/// Link mode: lets the operator new/delete hooks observe, if the real
/// operators are libstdc++'s (link_allocation.cpp).
void ObserveLinkedAllocator();

} // namespace ownsan

#endif // OWNSAN_INTERPOSE_LOADED_OBJECTS_H
