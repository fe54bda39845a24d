// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loads a shared object that embeds LLVM (the llvmlite-wheel layout: an
// extension module with LLVM linked in statically, dlopen'ed into a process
// with no LLVM of its own) and runs its `main` with the remaining arguments:
//   loader LIB ARGS...
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: loader LIB ARGS...\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "loader: %s\n", dlerror());
    return 2;
  }
  int (*lib_main)(int, char **) = (int (*)(int, char **))dlsym(lib, "main");
  if (!lib_main) {
    fprintf(stderr, "loader: %s has no main\n", argv[1]);
    return 2;
  }
  // (argv[1], the library, stands for the program name.)
  return lib_main(argc - 1, argv + 1);
}
