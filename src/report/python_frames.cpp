//===- python_frames.cpp - Python frames of the calling thread -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/python_frames.h"

#include "absl/container/flat_hash_map.h"
#include "core/mutex.h"

#include <dlfcn.h>

#include <cstring>
#include <deque>
#include <new>

namespace ownsan {
namespace {

// The stable-ABI subset of the CPython C API used here (3.9+: docs/reports.md
// "Python frames").
struct PyApi {
  int (*Py_IsInitialized)();
  void *(*PyGILState_GetThisThreadState)();
  int (*PyGILState_Ensure)();
  void (*PyGILState_Release)(int);
  void *(*PyEval_GetFrame)();
  void *(*PyFrame_GetBack)(void *);
  void *(*PyFrame_GetCode)(void *);
  int (*PyFrame_GetLineNumber)(void *);
  void *(*PyObject_GetAttrString)(void *, const char *);
  const char *(*PyUnicode_AsUTF8)(void *);
  void (*Py_DecRef)(void *);
  void (*Py_IncRef)(void *);
  int (*Py_IsFinalizing)(); // optional: Py_IsFinalizing (3.13) /
                            // _Py_IsFinalizing
  bool ok = false;
  std::string too_old; ///< the version of a CPython without that subset
};

template <typename F> bool Load(F *f, const char *name) {
  *f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
  return *f != nullptr;
}

const PyApi &Api() {
  static const PyApi api = [] {
    PyApi a{};
    a.ok = Load(&a.Py_IsInitialized, "Py_IsInitialized") &&
           Load(&a.PyGILState_GetThisThreadState,
                "PyGILState_GetThisThreadState") &&
           Load(&a.PyGILState_Ensure, "PyGILState_Ensure") &&
           Load(&a.PyGILState_Release, "PyGILState_Release") &&
           Load(&a.PyEval_GetFrame, "PyEval_GetFrame") &&
           Load(&a.PyFrame_GetBack, "PyFrame_GetBack") &&
           Load(&a.PyFrame_GetCode, "PyFrame_GetCode") &&
           Load(&a.PyFrame_GetLineNumber, "PyFrame_GetLineNumber") &&
           Load(&a.PyObject_GetAttrString, "PyObject_GetAttrString") &&
           Load(&a.PyUnicode_AsUTF8, "PyUnicode_AsUTF8") &&
           Load(&a.Py_DecRef, "Py_DecRef") && Load(&a.Py_IncRef, "Py_IncRef");
    if (!Load(&a.Py_IsFinalizing, "Py_IsFinalizing"))
      Load(&a.Py_IsFinalizing, "_Py_IsFinalizing");
    // A CPython before 3.9 (no PyFrame_GetBack): said once, not silently
    // native frames.
    int (*initialized)() = nullptr;
    const char *(*version)() = nullptr;
    if (!a.ok && Load(&initialized, "Py_IsInitialized") &&
        Load(&version, "Py_GetVersion") && initialized()) {
      const char *v = version();
      a.too_old = v ? std::string(v, strcspn(v, " ")) : "?";
    }
    return a;
  }();
  return api;
}

// Interned frames. Code objects are kept alive (one reference each) so a
// (code, line) key can never be reused by another function.
struct FrameTable {
  Mutex mu;
  absl::flat_hash_map<std::pair<void *, int>, uint32_t> ids ABSL_GUARDED_BY(mu);
  std::deque<PythonFrame> frames ABSL_GUARDED_BY(mu);
};

FrameTable &Table() {
  static auto *t = new FrameTable; // never destroyed: used at exit
  return *t;
}

std::string AttrString(const PyApi &py, void *obj, const char *attr) {
  void *v = py.PyObject_GetAttrString(obj, attr);
  if (!v)
    return "?";
  const char *s = py.PyUnicode_AsUTF8(v);
  std::string out = s ? s : "?";
  py.Py_DecRef(v);
  return out;
}

} // namespace

void CapturePythonFrames(std::vector<uint32_t> *out, int depth) {
  const PyApi &py = Api();
  if (!py.ok || !py.Py_IsInitialized())
    return;
  if (py.Py_IsFinalizing && py.Py_IsFinalizing())
    return;
  // Only threads the interpreter knows have Python frames.
  if (!py.PyGILState_GetThisThreadState())
    return;
  int gil = py.PyGILState_Ensure();
  void *frame = py.PyEval_GetFrame(); // borrowed
  if (frame)
    py.Py_IncRef(frame);
  FrameTable &t = Table();
  while (frame && static_cast<int>(out->size()) < depth) {
    void *code = py.PyFrame_GetCode(frame); // new reference
    int line = py.PyFrame_GetLineNumber(frame);
    uint32_t id = 0;
    bool known;
    {
      MutexLock lock(&t.mu);
      auto it = t.ids.find({code, line});
      known = it != t.ids.end();
      if (known)
        id = it->second;
    }
    if (known) {
      py.Py_DecRef(code);
    } else {
      // Attribute look-ups may run Python code (GC): no lock held here.
      PythonFrame f{AttrString(py, code, "co_filename"), line,
                    AttrString(py, code, "co_name")};
      MutexLock lock(&t.mu);
      auto [it, inserted] = t.ids.try_emplace({code, line}, 0);
      if (inserted) {
        // Keep the code object's reference: the key stays unique.
        t.frames.push_back(std::move(f));
        it->second = static_cast<uint32_t>(t.frames.size() - 1);
      } else {
        py.Py_DecRef(code);
      }
      id = it->second;
    }
    out->push_back(id);
    void *back = py.PyFrame_GetBack(frame); // new reference or NULL
    py.Py_DecRef(frame);
    frame = back;
  }
  if (frame)
    py.Py_DecRef(frame);
  py.PyGILState_Release(gil);
}

const std::string &PythonTooOldForFrames() { return Api().too_old; }

void LockPythonFramesForFork(bool lock) { LockForFork(Table().mu, lock); }

void ResetPythonFramesLockInChild() { ResetInForkChild(Table().mu); }

PythonFrame GetPythonFrame(uint32_t id) {
  FrameTable &t = Table();
  MutexLock lock(&t.mu);
  if (id >= t.frames.size())
    return {};
  return t.frames[id];
}

} // namespace ownsan
