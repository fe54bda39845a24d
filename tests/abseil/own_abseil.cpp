// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A program with its own Abseil (Debian's shared libraries) that calls
// LLVM-C: libownsan.so carries its own copy of Abseil inside, which must
// neither replace the program's symbols nor be replaced by them
// (tests/abseil/check_abseil_inside.py).
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

#include <llvm-c/Core.h>

#include <cstdio>
#include <string>

int main() {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, int> counts;
  LLVMContextRef ctx = LLVMContextCreate();
  for (int i = 0; i < 3; ++i) {
    std::string name = absl::StrCat("m", i);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name.c_str(), ctx);
    size_t len = 0;
    const char *id = LLVMGetModuleIdentifier(m, &len);
    absl::MutexLock lock(&mu);
    counts[std::string(id, len)] += 1;
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
  std::printf("%zu modules, m1 seen %d time(s)\n", counts.size(), counts["m1"]);
  return 0;
}
