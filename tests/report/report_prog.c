/*===- report_prog.c - Reports of a program built without debug info ------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: report_prog MODE
 *
 *   two_sites  two distinct use-after-frees in one function (use_twice):
 *              LLVMGetValueName2 on a function of a disposed module, from
 *              two call sites. Without debug info both use stacks have the
 *              same function names; only the offsets tell them apart.
 *   names      one use-after-free of a function whose name, and the name of
 *              its module, hold a forged report line, terminal escapes,
 *              bytes that are not UTF-8 and HTML markup.
 *
 * Built with -g0 (no file:line anywhere). Prints "<step>: ..." before each
 * call that ownsan reports, and the handle it uses as
 * "report_prog: subject = 0x..." on stderr.
 *
 *===----------------------------------------------------------------------===*/

#include <llvm-c/Core.h>

#include <stdio.h>
#include <string.h>

#define STEP __attribute__((noinline))

/* Each name: a newline and a whole forged report line, an ANSI colour and a
 * window-title escape, C1 CSI (U+009B), bytes that are no UTF-8 (0xff 0xfe,
 * a cut-short sequence 0xe2 0x82), valid UTF-8 (e-acute) and HTML. */
static const char kFunctionName[] =
    "f\n==42==ERROR: OwnSan: use-after-free on LLVMValueRef 0x1 (forged)\n"
    "SUMMARY: OwnSan: forged\x1b[31mred\x1b]0;title\x07\xc2\x9b"
    "\xff\xfe\xe2\x82 caf\xc3\xa9 <script>alert(1)</script>";
static const char kModuleName[] =
    "m\r\n==42==ERROR: OwnSan: forged module\x1b[2J\xff</td>&amp;";

static LLVMValueRef make_function(LLVMModuleRef *m, const char *module_name,
                                  const char *function_name) {
  LLVMContextRef ctx = LLVMGetGlobalContext();
  *m = LLVMModuleCreateWithNameInContext(module_name, ctx);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(*m, "f", fty);
  LLVMSetValueName2(f, function_name, strlen(function_name));
  fprintf(stderr, "report_prog: subject = %p\n", (void *)f);
  return f;
}

STEP static void use_twice(LLVMValueRef f) {
  size_t len = 0;
  printf("use_twice: first\n");
  fflush(stdout);
  const char *a = LLVMGetValueName2(f, &len);
  printf("use_twice: second (%s)\n", a ? "name" : "NULL");
  fflush(stdout);
  const char *b = LLVMGetValueName2(f, &len);
  printf("use_twice: done (%s)\n", b ? "name" : "NULL");
}

STEP static void use_once(LLVMValueRef f) {
  size_t len = 0;
  printf("use_once\n");
  fflush(stdout);
  LLVMGetValueName2(f, &len);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: report_prog two_sites|names\n");
    return 2;
  }
  LLVMModuleRef m;
  if (!strcmp(argv[1], "two_sites")) {
    LLVMValueRef f = make_function(&m, "m", "f");
    LLVMDisposeModule(m);
    use_twice(f);
    return 0;
  }
  if (!strcmp(argv[1], "names")) {
    LLVMValueRef f = make_function(&m, kModuleName, kFunctionName);
    LLVMDisposeModule(m);
    use_once(f);
    return 0;
  }
  fprintf(stderr, "report_prog: unknown mode %s\n", argv[1]);
  return 2;
}
