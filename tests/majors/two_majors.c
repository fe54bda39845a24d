/*===- two_majors.c - One process, two libLLVM major versions -------------===
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Linked against one libLLVM (its calls go through the PLT, bound to that
 * library's symbol version, e.g. LLVMFoo@LLVM_14) and dlopen()ing another
 * (calls through dlsym pointers), as a Python process does that imports
 * llvmlite (LLVM 14) and a ctypes binding of LLVM 19. Both libraries build
 * the same function and print it: each major prints the pointer type its
 * own way (LLVM 14: `i32*`, 15 and later: `ptr`), so a call forwarded into
 * the wrong library changes the output.
 *
 *   two_majors LIBLLVM [use-after-free-linked | use-after-free-dlopened]
 *
 * The optional seeded bug uses a function after its module was disposed,
 * through the linked (PLT) or the dlopened (dlsym) library.
 *
 *===---------------------------------------------------------------------===*/
#include <llvm-c/Core.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry points used from the dlopened library; the C API's signatures
   are the same in every major this test runs with. */
struct LLVMApi {
  LLVMContextRef (*ContextCreate)(void);
  void (*ContextDispose)(LLVMContextRef);
  LLVMModuleRef (*ModuleCreateWithNameInContext)(const char *, LLVMContextRef);
  void (*DisposeModule)(LLVMModuleRef);
  LLVMTypeRef (*Int32TypeInContext)(LLVMContextRef);
  LLVMTypeRef (*PointerType)(LLVMTypeRef, unsigned);
  LLVMTypeRef (*FunctionType)(LLVMTypeRef, LLVMTypeRef *, unsigned, LLVMBool);
  LLVMValueRef (*AddFunction)(LLVMModuleRef, const char *, LLVMTypeRef);
  LLVMValueRef (*GetParam)(LLVMValueRef, unsigned);
  LLVMBasicBlockRef (*AppendBasicBlockInContext)(LLVMContextRef, LLVMValueRef,
                                                 const char *);
  LLVMBuilderRef (*CreateBuilderInContext)(LLVMContextRef);
  void (*PositionBuilderAtEnd)(LLVMBuilderRef, LLVMBasicBlockRef);
  LLVMValueRef (*BuildLoad2)(LLVMBuilderRef, LLVMTypeRef, LLVMValueRef,
                             const char *);
  LLVMValueRef (*BuildRet)(LLVMBuilderRef, LLVMValueRef);
  void (*DisposeBuilder)(LLVMBuilderRef);
  char *(*PrintModuleToString)(LLVMModuleRef);
  void (*DisposeMessage)(char *);
  const char *(*GetValueName2)(LLVMValueRef, size_t *);
};

/* The library the program is linked against, called through the PLT. */
static const struct LLVMApi kLinked = {
    LLVMContextCreate,
    LLVMContextDispose,
    LLVMModuleCreateWithNameInContext,
    LLVMDisposeModule,
    LLVMInt32TypeInContext,
    LLVMPointerType,
    LLVMFunctionType,
    LLVMAddFunction,
    LLVMGetParam,
    LLVMAppendBasicBlockInContext,
    LLVMCreateBuilderInContext,
    LLVMPositionBuilderAtEnd,
    LLVMBuildLoad2,
    LLVMBuildRet,
    LLVMDisposeBuilder,
    LLVMPrintModuleToString,
    LLVMDisposeMessage,
    LLVMGetValueName2,
};

static void *Lookup(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "two_majors: %s: %s\n", name, dlerror());
    exit(2);
  }
  return p;
}

static void LoadApi(void *lib, struct LLVMApi *api) {
#define LOAD(field) *(void **)&api->field = Lookup(lib, "LLVM" #field)
  LOAD(ContextCreate);
  LOAD(ContextDispose);
  LOAD(ModuleCreateWithNameInContext);
  LOAD(DisposeModule);
  LOAD(Int32TypeInContext);
  LOAD(PointerType);
  LOAD(FunctionType);
  LOAD(AddFunction);
  LOAD(GetParam);
  LOAD(AppendBasicBlockInContext);
  LOAD(CreateBuilderInContext);
  LOAD(PositionBuilderAtEnd);
  LOAD(BuildLoad2);
  LOAD(BuildRet);
  LOAD(DisposeBuilder);
  LOAD(PrintModuleToString);
  LOAD(DisposeMessage);
  LOAD(GetValueName2);
#undef LOAD
}

struct Unit {
  LLVMContextRef context;
  LLVMModuleRef module;
  LLVMValueRef function;
};

/* define i32 @load_<tag>(i32* %p) { %v = load i32, i32* %p; ret i32 %v } */
static struct Unit Build(const struct LLVMApi *api, const char *tag) {
  struct Unit u;
  char name[64];
  u.context = api->ContextCreate();
  snprintf(name, sizeof name, "module_%s", tag);
  u.module = api->ModuleCreateWithNameInContext(name, u.context);
  LLVMTypeRef i32 = api->Int32TypeInContext(u.context);
  LLVMTypeRef ptr = api->PointerType(i32, 0);
  LLVMTypeRef fn_type = api->FunctionType(i32, &ptr, 1, 0);
  snprintf(name, sizeof name, "load_%s", tag);
  u.function = api->AddFunction(u.module, name, fn_type);
  LLVMBasicBlockRef entry =
      api->AppendBasicBlockInContext(u.context, u.function, "entry");
  LLVMBuilderRef builder = api->CreateBuilderInContext(u.context);
  api->PositionBuilderAtEnd(builder, entry);
  LLVMValueRef v =
      api->BuildLoad2(builder, i32, api->GetParam(u.function, 0), "v");
  api->BuildRet(builder, v);
  api->DisposeBuilder(builder);
  return u;
}

static void Print(const struct LLVMApi *api, const struct Unit *u) {
  char *text = api->PrintModuleToString(u->module);
  fputs(text, stdout);
  api->DisposeMessage(text);
  size_t len = 0;
  printf("; function name: %s\n", api->GetValueName2(u->function, &len));
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: two_majors LIBLLVM [use-after-free-linked | "
                    "use-after-free-dlopened]\n");
    return 2;
  }
  const char *bug = argc > 2 ? argv[2] : "";
  /* Both libraries are in the process before the first LLVM-C call. */
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "two_majors: %s\n", dlerror());
    return 2;
  }
  struct LLVMApi dlopened;
  LoadApi(lib, &dlopened);

  /* Interleaved: both libraries' objects are alive at once. */
  struct Unit linked_unit = Build(&kLinked, "linked");
  struct Unit dlopened_unit = Build(&dlopened, "dlopened");
  Print(&kLinked, &linked_unit);
  Print(&dlopened, &dlopened_unit);

  const struct LLVMApi *seeded = NULL;
  struct Unit *seeded_unit = NULL;
  if (!strcmp(bug, "use-after-free-linked"))
    seeded = &kLinked, seeded_unit = &linked_unit;
  else if (!strcmp(bug, "use-after-free-dlopened"))
    seeded = &dlopened, seeded_unit = &dlopened_unit;
  else if (*bug) {
    fprintf(stderr, "two_majors: unknown bug '%s'\n", bug);
    return 2;
  }
  if (seeded) {
    seeded->DisposeModule(seeded_unit->module);
    size_t len = 0;
    /* The seeded bug: the function died with its module. */
    printf("%s\n", seeded->GetValueName2(seeded_unit->function, &len));
    return 0;
  }
  kLinked.DisposeModule(linked_unit.module);
  kLinked.ContextDispose(linked_unit.context);
  dlopened.DisposeModule(dlopened_unit.module);
  dlopened.ContextDispose(dlopened_unit.context);
  return 0;
}
