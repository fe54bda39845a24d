//===- symbolizer.h - Program counters to function, file:line ---*- C++ -*-===//
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

} // namespace ownsan

#endif // OWNSAN_REPORT_SYMBOLIZER_H
