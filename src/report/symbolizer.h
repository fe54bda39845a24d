//===- symbolizer.h - Program counters to function, file:line ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reports are symbolized when they are printed, never when stacks are
// captured. The work is done by llvm-symbolizer in a child process (as the
// compiler-rt sanitizers do), started once per report batch with the
// preload removed from its environment; without it (or when it does not
// answer in time), frames fall back to dladdr's nearest exported symbol
// and module+offset.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_SYMBOLIZER_H
#define OWNSAN_REPORT_SYMBOLIZER_H

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ownsan {

struct SymbolizedFrame {
  uintptr_t pc = 0;
  std::string module;   ///< path of the object file
  uintptr_t offset = 0; ///< pc relative to the module
  std::string function; ///< "" when unknown
  std::string file;     ///< "" when no debug info
  int line = 0;
  int column = 0;
};

/// Symbolizes return addresses (innermost first). `symbolizer_path` may be
/// empty (dladdr only). A symbolizer that has not answered after
/// `timeout_ms` (0: no limit) is killed (with its process group) and reaped;
/// its frames and those of every later stack of the process keep dladdr's
/// names.
std::vector<SymbolizedFrame> Symbolize(const std::vector<uintptr_t> &pcs,
                                       const std::string &symbolizer_path,
                                       int timeout_ms);

/// The stacks of one report in one symbolizer run (each run starts a
/// process that loads every module again: ~0.15 s for libLLVM). While a
/// batch is open on the thread, Symbolize first only collects the pcs it is
/// asked for (returning empty frames); Run symbolizes them all at once;
/// then Symbolize answers from that run. Usage: open a batch, build the
/// report once (collect), Run, build it again.
class SymbolizerBatch {
public:
  SymbolizerBatch();
  ~SymbolizerBatch();
  SymbolizerBatch(const SymbolizerBatch &) = delete;
  SymbolizerBatch &operator=(const SymbolizerBatch &) = delete;

  void Run(const std::string &symbolizer_path, int timeout_ms);

private:
  friend std::vector<SymbolizedFrame> Symbolize(const std::vector<uintptr_t> &,
                                                const std::string &, int);
  SymbolizerBatch *outer_;
  bool collecting_ = true;
  absl::flat_hash_set<uintptr_t> wanted_;
  absl::flat_hash_map<uintptr_t, SymbolizedFrame> answers_;
};

} // namespace ownsan

#endif // OWNSAN_REPORT_SYMBOLIZER_H
