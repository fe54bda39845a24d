//===- frame_roles.h - Whose code each frame of a stack is ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stack in a pytest run is mostly pytest's and the interpreter's frames.
// They are folded in text reports (`... 22 frames in pytest`), left out of
// the problem id (so the same bug has the same id under `pytest -n 2`, from
// another checkout, on another machine), and the SUMMARY line names the
// first frame of the user's code, past the binding's wrapper that every
// report goes through. tools/report/ownsan_frames.py says the same for
// `ownsan report`.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_FRAME_ROLES_H
#define OWNSAN_REPORT_FRAME_ROLES_H

#include "report/report_writer.h"

namespace ownsan {

/// "pytest", "unittest" or "python" (the interpreter's own code) for a
/// Python frame of the test runner or of the standard library; nullptr for
/// every other frame.
const char *RunnerGroup(const ResolvedFrame &f);

/// The program's own code (the binding and its user): not a runner's or the
/// interpreter's frame, nor one of ownsan, libLLVM, libc, the C++ runtime.
bool IsOwnFrame(const ResolvedFrame &f);

/// The frame a SUMMARY line names, or nullptr for an empty stack. In a
/// Python stack: the first Python frame of the program's own code outside
/// the innermost one's file (or its top-level package: the binding), else
/// that innermost frame; otherwise the first own frame, else frame #0.
const ResolvedFrame *UserFrame(const ResolvedStack &s);

/// 16 hex digits from the kind, the call and the program's own frames of
/// the use and free stacks (file base names, lines, functions; module base
/// name and offset without debug info).
std::string ProblemId(const ResolvedReport &r);

} // namespace ownsan

#endif // OWNSAN_REPORT_FRAME_ROLES_H
