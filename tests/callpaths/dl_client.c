/*===- dl_client.c - An LLVM-C client that finds LLVM with dlopen/dlsym ---===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: dl_client LIBLLVM dlsym [--fixed]
 *        dl_client LIBLLVM dlvsym VERSION [--fixed]
 *
 * This program is NOT linked against libLLVM (the build gives it no LLVM
 * library; the test checks its DT_NEEDED entries). Like ctypes, cffi's ABI
 * mode or Julia's ccall, it opens LIBLLVM with dlopen(RTLD_NOW|RTLD_LOCAL)
 * and gets every LLVM-C function it calls from that handle, either with
 * dlsym(handle, name) or with dlvsym(handle, name, VERSION), VERSION being
 * the library's symbol version ("LLVM_19.1", "LLVM_14", ...). The llvm-c
 * headers are only used for the function types (__typeof__), never for a
 * direct call.
 *
 * It first checks that look-ups of names that do not exist still fail, then
 * builds
 *
 *   ; module "dlmod"
 *   declare void @dl_answer()
 *
 * disposes the module and (seeded bug) asks for @dl_answer's name
 * afterwards. With --fixed the name is read before the dispose and the
 * program exits 0.
 *
 * Every step is its own noinline function with a distinct name, so the use,
 * free and creation stacks of a report name different functions. Each step
 * prints "<step>: <call>" to stdout before calling LLVM (stdout is
 * line-buffered), so the last stdout line of a run that ownsan stops is the
 * misuse. stdout does not depend on addresses, so it must be identical with
 * and without ownsan. Diagnostics that do are printed to stderr:
 *   "dl_client: subject = 0x..."                  the @dl_answer handle
 *   "dl_client: LLVMAddFunction resolved in PATH" where the pointer points
 *
 * Exit status: 0 done, 2 usage, 3 dlopen failed, 4 a symbol was not found,
 * 5 a look-up that must fail did not.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <llvm-c/Core.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP __attribute__((noinline))

enum {
  EXIT_USAGE = 2,
  EXIT_DLOPEN = 3,
  EXIT_MISSING_SYMBOL = 4,
  EXIT_BAD_LOOKUP = 5
};

/* Every LLVM-C function this program calls. */
#define DL_CLIENT_FUNCTIONS(X)                                                 \
  X(LLVMContextCreate)                                                         \
  X(LLVMContextDispose)                                                        \
  X(LLVMModuleCreateWithNameInContext)                                         \
  X(LLVMDisposeModule)                                                         \
  X(LLVMVoidTypeInContext)                                                     \
  X(LLVMInt32TypeInContext)                                                    \
  X(LLVMGetIntTypeWidth)                                                       \
  X(LLVMFunctionType)                                                          \
  X(LLVMAddFunction)                                                           \
  X(LLVMGetValueName2)

/* One pointer per function, typed from the llvm-c declarations:
 * p_LLVMAddFunction has the type of &LLVMAddFunction. */
#define DECLARE_POINTER(name) static __typeof__(&name) p_##name;
DL_CLIENT_FUNCTIONS(DECLARE_POINTER)
#undef DECLARE_POINTER

/* How functions are looked up: dlsym, or dlvsym with `version`. */
static bool use_dlvsym;
static const char *version;

static void say(const char *step, const char *what) {
  printf("%s: %s\n", step, what);
}

static void *lookup(void *handle, const char *name) {
  return use_dlvsym ? dlvsym(handle, name, version) : dlsym(handle, name);
}

/*===-- Loading -----------------------------------------------------------===*/

STEP void *open_libllvm(const char *path) {
  say(__func__, "dlopen(LIBLLVM, RTLD_NOW | RTLD_LOCAL)");
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "dl_client: dlopen(%s): %s\n", path, dlerror());
    exit(EXIT_DLOPEN);
  }
  return handle;
}

/* Prints whether a look-up that must fail returned NULL and set dlerror(). */
static bool expect_not_found(const char *what, void *found) {
  const char *error = dlerror();
  printf("check_missing_lookups: %s = %s, dlerror() %s\n", what,
         found ? "non-NULL" : "NULL", error ? "set" : "not set");
  return !found && error;
}

STEP void check_missing_lookups(void *handle) {
  bool ok = true;
  dlerror(); /* clear */
  ok &= expect_not_found("dlsym(libLLVM, \"LLVMOwnsanNoSuchFunction\")",
                         dlsym(handle, "LLVMOwnsanNoSuchFunction"));
  ok &= expect_not_found("dlsym(libLLVM, \"ownsan_no_such_symbol\")",
                         dlsym(handle, "ownsan_no_such_symbol"));
  if (use_dlvsym) {
    ok &= expect_not_found(
        "dlvsym(libLLVM, \"LLVMOwnsanNoSuchFunction\", VERSION)",
        dlvsym(handle, "LLVMOwnsanNoSuchFunction", version));
    ok &=
        expect_not_found("dlvsym(libLLVM, \"LLVMContextCreate\", \"LLVM_0.0\")",
                         dlvsym(handle, "LLVMContextCreate", "LLVM_0.0"));
  }
  if (!ok)
    exit(EXIT_BAD_LOOKUP);
}

STEP void resolve_llvm_functions(void *handle) {
  say(__func__, use_dlvsym ? "dlvsym(libLLVM, \"LLVM...\", VERSION) for each"
                           : "dlsym(libLLVM, \"LLVM...\") for each");
#define RESOLVE(name)                                                          \
  p_##name = (__typeof__(&name))lookup(handle, #name);                         \
  if (!p_##name) {                                                             \
    fprintf(stderr, "dl_client: %s of %s failed: %s\n",                        \
            use_dlvsym ? "dlvsym" : "dlsym", #name, dlerror());                \
    exit(EXIT_MISSING_SYMBOL);                                                 \
  }
  DL_CLIENT_FUNCTIONS(RESOLVE)
#undef RESOLVE
  Dl_info info;
  if (dladdr((void *)p_LLVMAddFunction, &info) && info.dli_fname)
    fprintf(stderr, "dl_client: LLVMAddFunction resolved in %s\n",
            info.dli_fname);
}

/* A function found by name works: i32 is 32 bits wide. */
STEP void check_resolved_function_works(void) {
  say(__func__, "LLVMGetIntTypeWidth(i32) in a scratch context");
  LLVMContextRef scratch = p_LLVMContextCreate();
  unsigned width = p_LLVMGetIntTypeWidth(p_LLVMInt32TypeInContext(scratch));
  printf("%s: width %u\n", __func__, width);
  p_LLVMContextDispose(scratch);
}

/*===-- Creating, freeing and using ---------------------------------------===*/

STEP LLVMContextRef create_dl_context(void) {
  say(__func__, "LLVMContextCreate()");
  return p_LLVMContextCreate();
}

STEP LLVMModuleRef create_dl_module(LLVMContextRef ctx) {
  say(__func__, "LLVMModuleCreateWithNameInContext(\"dlmod\", context)");
  return p_LLVMModuleCreateWithNameInContext("dlmod", ctx);
}

STEP LLVMValueRef add_dl_function(LLVMContextRef ctx, LLVMModuleRef mod) {
  say(__func__, "LLVMAddFunction(module \"dlmod\", \"dl_answer\", void ())");
  LLVMTypeRef type = p_LLVMFunctionType(p_LLVMVoidTypeInContext(ctx), NULL, 0,
                                        /*IsVarArg=*/0);
  LLVMValueRef fn = p_LLVMAddFunction(mod, "dl_answer", type);
  fprintf(stderr, "dl_client: subject = %p\n", (void *)fn);
  return fn;
}

STEP void dispose_dl_module(LLVMModuleRef mod) {
  say(__func__, "LLVMDisposeModule(module \"dlmod\")");
  p_LLVMDisposeModule(mod);
}

STEP void dispose_dl_context(LLVMContextRef ctx) {
  say(__func__, "LLVMContextDispose(context)");
  p_LLVMContextDispose(ctx);
}

STEP void ask_function_name(LLVMValueRef fn) {
  say(__func__, "LLVMGetValueName2(@dl_answer)");
  size_t len = 0;
  const char *name = p_LLVMGetValueName2(fn, &len);
  printf("%s: got \"%.*s\"\n", __func__, (int)len, name);
}

/*===----------------------------------------------------------------------===*/

static int usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s LIBLLVM dlsym [--fixed]\n"
          "       %s LIBLLVM dlvsym VERSION [--fixed]\n",
          argv0, argv0);
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  /* Line-buffered, so the steps before an abort() reach a pipe. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 3)
    return usage(argv[0]);
  const char *path = argv[1];
  int next = 3;
  if (strcmp(argv[2], "dlvsym") == 0) {
    if (argc < 4)
      return usage(argv[0]);
    use_dlvsym = true;
    version = argv[3];
    next = 4;
  } else if (strcmp(argv[2], "dlsym") != 0) {
    return usage(argv[0]);
  }
  bool fixed = false;
  if (next < argc) {
    if (strcmp(argv[next], "--fixed") != 0 || next + 1 != argc)
      return usage(argv[0]);
    fixed = true;
  }
  printf("main: mode %s%s\n", use_dlvsym ? "dlvsym" : "dlsym",
         fixed ? " (fixed)" : "");

  void *handle = open_libllvm(path);
  check_missing_lookups(handle);
  resolve_llvm_functions(handle);
  check_resolved_function_works();

  LLVMContextRef ctx = create_dl_context();
  LLVMModuleRef mod = create_dl_module(ctx);
  LLVMValueRef fn = add_dl_function(ctx, mod);
  if (fixed) {
    ask_function_name(fn);
    dispose_dl_module(mod);
  } else {
    dispose_dl_module(mod);
    ask_function_name(fn); /* BUG: @dl_answer died with its module. */
  }
  dispose_dl_context(ctx);
  say(__func__, "done");
  return 0;
}
