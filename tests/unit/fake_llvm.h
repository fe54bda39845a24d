//===- fake_llvm.h - A tiny LLVM for the runtime's unit tests ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The state machine's unit tests link the runtime and the generated
// wrappers of this build, and put this in place of the loaded libLLVM: the
// runtime's Real<...>(kFn_X) resolves X here (ResolveReal). A fake object is
// a malloc'ed FakeObject; destroying one goes through the runtime's
// operator delete hook (OwnsanTakeIntoQuarantine) as LLVM's deletions do, so
// the runtime sees values die exactly as with the real library.
//
// Only what the tests and the runtime call exists: contexts, modules,
// functions, blocks, instructions, builders. Calling anything else ends the
// test with a message naming the function.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_TESTS_UNIT_FAKE_LLVM_H
#define OWNSAN_TESTS_UNIT_FAKE_LLVM_H

#include <llvm-c/Core.h>

#include <string>
#include <vector>

namespace fake_llvm {

struct FakeObject {
  enum Kind { Context, Module, Type, Function, Block, Instruction, Builder };
  Kind kind = Context;
  FakeObject *parent = nullptr; // its owner (a module's context...)
  FakeObject *context = nullptr;
  std::vector<FakeObject *> children;
  std::string name;
  FakeObject *insert_block = nullptr; // builders
};

/// Objects made so far and not destroyed.
int LiveObjects();

} // namespace fake_llvm

#endif // OWNSAN_TESTS_UNIT_FAKE_LLVM_H
