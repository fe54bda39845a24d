//===- python_frames.h - Python frames of the calling thread ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Bindings written in Python (ctypes, cffi, llvmlite) call LLVM-C from the
// interpreter; their native stacks show only interpreter internals. When the
// process hosts CPython, each captured stack also records the calling
// thread's Python frames. The interpreter is reached only through its
// public C API looked up with dlsym, so nothing is linked against libpython
// and a process without Python pays nothing.
//
// Cost: one GIL acquire (the caller usually released it around the foreign
// call) and a few C-API calls per frame, paid only when a stack is captured
// (object creation and free events), not on every LLVM-C call. The
// `python_frames=0` option turns it off.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_PYTHON_FRAMES_H
#define OWNSAN_REPORT_PYTHON_FRAMES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ownsan {

struct PythonFrame {
  std::string file;
  int line = 0;
  std::string function;
};

/// Appends the calling thread's Python frames (innermost first, at most
/// `depth`) as ids; does nothing when no interpreter is running here.
void CapturePythonFrames(std::vector<uint32_t> *out, int depth);

/// The version of the CPython this process hosts ("3.8.18") when it is too
/// old for Python frames (they need 3.9's PyFrame_GetBack/GetCode), else
/// empty. Decided once, with the first capture.
const std::string &PythonTooOldForFrames();

/// The frame for an id returned by CapturePythonFrames.
PythonFrame GetPythonFrame(uint32_t id);

/// fork() support for the frame table's lock.
void LockPythonFramesForFork(bool lock);
void ResetPythonFramesLockInChild();

} // namespace ownsan

#endif // OWNSAN_REPORT_PYTHON_FRAMES_H
