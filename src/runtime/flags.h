//===- flags.h - Options read from OWNSAN_OPTIONS ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef OWNSAN_RUNTIME_FLAGS_H
#define OWNSAN_RUNTIME_FLAGS_H

#include <climits>
#include <string>

namespace ownsan {

struct Flags {
#define OWNSAN_FLAG(Type, Name, Default, Description) Type Name = Default;
#include "runtime/flags.inc"
#undef OWNSAN_FLAG
};

/// Parses `text` ("key=value:key=value", separated as ASAN_OPTIONS: ':',
/// ',' or whitespace; a value may be quoted with ' or ") over `flags`. On error
/// returns false and sets `error` to one line naming the bad key or value.
bool ParseFlags(const std::string &text, Flags *flags, std::string *error);

/// The option table as markdown (for `help=1` and docs/flags.md).
std::string FlagsMarkdown();

} // namespace ownsan

#endif // OWNSAN_RUNTIME_FLAGS_H
