//===- throw_through.cpp - A C++ exception out of a wrapped call ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The `throw` mode of reentrancy.c: a diagnostic handler written in C++
// throws out of LLVMParseBitcodeInContext2, through libLLVM's frames and
// ownsan's wrapper, to a catch in the program, N times; every fifth time
// from a handler called inside a parse the first handler started (out of
// two wrapped calls); before it throws, the handler catches an exception of
// its own and makes a call. LLVM is built without exceptions: the frames
// it leaves keep what they owned (leaks, nothing else), as a jump's do.
//
//===----------------------------------------------------------------------===//

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include <cstdio>
#include <cstdlib>

namespace {
struct Escape {
  int depth;
};

LLVMContextRef g_outer, g_inner;
LLVMMemoryBufferRef g_junk;
int g_iteration;

[[noreturn]] void Fail(const char *what) {
  std::fprintf(stderr, "reentrancy: %s\n", what);
  std::exit(1);
}

__attribute__((noinline)) void ParseJunk(LLVMContextRef ctx) {
  LLVMModuleRef m = nullptr;
  LLVMParseBitcodeInContext2(ctx, g_junk, &m);
  Fail("LLVMParseBitcodeInContext2 returned: the handler did not throw");
}

void ThrowingHandler(LLVMDiagnosticInfoRef di, void *user) {
  // An exception caught inside the handler leaves no wrapped call: the
  // parse that called it stays open, and a call after it is nested in it.
  try {
    throw Escape{0};
  } catch (const Escape &) {
  }
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
    Fail("LLVMGetDiagInfoSeverity");
  // (Every fifth time, first a parse on the other context, whose handler
  // throws out of both calls.)
  if (user == g_outer && g_iteration % 5 == 4)
    ParseJunk(g_inner);
  throw Escape{user == g_outer ? 1 : 2};
}
} // namespace

// Sets the handlers, and the bytes to parse.
extern "C" void throw_through_setup(LLVMContextRef outer,
                                    LLVMContextRef inner) {
  g_outer = outer;
  g_inner = inner;
  static const char junk[] = "definitely not bitcode";
  g_junk =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(junk, sizeof junk - 1, "junk");
  LLVMContextSetDiagnosticHandler(outer, ThrowingHandler, outer);
  LLVMContextSetDiagnosticHandler(inner, ThrowingHandler, inner);
}

// Parses N times, each left by the handler's exception; makes no other
// LLVM-C call. Returns how many parses the exception left.
extern "C" int throw_through_parse(int n) {
  int escapes = 0;
  for (g_iteration = 0; g_iteration < n; ++g_iteration) {
    try {
      ParseJunk(g_outer);
    } catch (const Escape &) {
      ++escapes;
    }
  }
  return escapes;
}

extern "C" void throw_through_teardown(void) {
  LLVMDisposeMemoryBuffer(g_junk);
}
