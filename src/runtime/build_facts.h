//===- build_facts.h - What one build of the runtime was made for -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The runtime's sources are the same for every LLVM major and name none
// (so a compiler cache shares their objects among the builds for each
// major: scripts/test.sh makes five). What a build was made for is defined
// once, in the file the build configures from build_facts.cpp.in and
// compiles with the generated wrappers.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_BUILD_FACTS_H
#define OWNSAN_RUNTIME_BUILD_FACTS_H

namespace ownsan {

/// The LLVM major whose C API headers the wrappers were generated from.
extern const int kBuildLLVMMajor;

/// The llvm-symbolizer of that LLVM, used when symbolizer_path is not set
/// ("" when the build found none).
extern const char kBuildDefaultSymbolizer[];

} // namespace ownsan

#endif // OWNSAN_RUNTIME_BUILD_FACTS_H
