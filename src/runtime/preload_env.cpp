//===- preload_env.cpp - Keeping the runtime out of child processes ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "runtime/preload_env.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <string>

namespace ownsan {

void RemoveRuntimeFromPreload() {
  const char *preload = getenv("LD_PRELOAD");
  Dl_info self;
  char self_path[PATH_MAX];
  if (!preload ||
      !dladdr(reinterpret_cast<void *>(&RemoveRuntimeFromPreload), &self) ||
      !self.dli_fname || !realpath(self.dli_fname, self_path))
    return;
  std::string self_name = self_path;
  self_name = self_name.substr(self_name.rfind('/') + 1);
  // The allocator `ownsan run` added for the runtime's quarantine goes too.
  const char *heap = getenv("OWNSAN_RUN_HEAP_ALLOCATOR");
  std::string heap_path = heap ? heap : "";
  unsetenv("OWNSAN_RUN_HEAP_ALLOCATOR");
  std::string kept;
  // ld.so separates LD_PRELOAD entries with colons or spaces; a name
  // without a slash is looked up in the library path.
  std::string list = preload;
  for (size_t start = 0, end; start <= list.size(); start = end + 1) {
    end = list.find_first_of(": ", start);
    if (end == std::string::npos)
      end = list.size();
    std::string entry = list.substr(start, end - start);
    if (entry.empty())
      continue;
    char resolved[PATH_MAX];
    bool is_self = entry.find('/') == std::string::npos
                       ? entry == self_name
                       : realpath(entry.c_str(), resolved) &&
                             std::string(resolved) == self_path;
    if (is_self)
      continue;
    if (!heap_path.empty() && entry == heap_path) {
      heap_path.clear(); // (the one entry `ownsan run` added)
      continue;
    }
    if (!kept.empty())
      kept += ':';
    kept += entry;
  }
  if (kept.empty())
    unsetenv("LD_PRELOAD");
  else
    setenv("LD_PRELOAD", kept.c_str(), 1);
}

void RestoreProgramTunables() {
  const char *saved = getenv("OWNSAN_RUN_GLIBC_TUNABLES");
  if (!saved)
    return;
  if (saved[0] == '=')
    setenv("GLIBC_TUNABLES", saved + 1, 1);
  else
    unsetenv("GLIBC_TUNABLES");
  unsetenv("OWNSAN_RUN_GLIBC_TUNABLES");
}

} // namespace ownsan
