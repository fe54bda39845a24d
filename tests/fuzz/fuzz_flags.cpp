//===- fuzz_flags.cpp - libFuzzer target for ownsan::ParseFlags ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The input is an OWNSAN_OPTIONS value. ParseFlags must never crash, leak
// or hang, and its answer must be coherent:
//   * false: the error is one non-empty line that names OWNSAN_OPTIONS;
//   * true: the parsed flags satisfy the documented ranges (report_format
//     text|json, max_reports >= 0, quarantine_size_mb 0-1048576,
//     malloc_context_size 0-128), and parsing "TEXT:TEXT" (every setting
//     given twice) yields the same flags.
// A violated property aborts, so libFuzzer reports it like a crash.
//
// Built by tests/CMakeLists.txt (block "fuzz") when OWNSAN_FUZZ is ON; run
// as ctest fuzz.flags. See tests/fuzz/run_fuzz.py for longer runs.
//
//===----------------------------------------------------------------------===//

#include "runtime/flags.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void Fail(const char *what, const std::string &text,
                       const std::string &detail) {
  fprintf(stderr, "fuzz_flags: property violated: %s\n  input: '%s'\n  %s\n",
          what, text.c_str(), detail.c_str());
  abort();
}

bool SameFlags(const ownsan::Flags &a, const ownsan::Flags &b) {
#define OWNSAN_FLAG(Type, Name, Default, Description)                          \
  if (a.Name != b.Name)                                                        \
    return false;
#include "runtime/flags.inc"
#undef OWNSAN_FLAG
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  ownsan::Flags flags;
  std::string error;
  bool ok = ownsan::ParseFlags(text, &flags, &error);
  if (!ok) {
    if (error.empty())
      Fail("an error without a message", text, "");
    if (error.find('\n') != std::string::npos)
      Fail("the error message is not one line", text, error);
    if (error.find("OWNSAN_OPTIONS") == std::string::npos)
      Fail("the error does not name OWNSAN_OPTIONS", text, error);
    return 0;
  }
  if (flags.report_format != "text" && flags.report_format != "json")
    Fail("accepted report_format", text, flags.report_format);
#define OWNSAN_FLAG(Type, Name, Default, Description)
#define OWNSAN_INT_FLAG(Name, Default, Min, Max, Description)                  \
  if (flags.Name < (Min) || flags.Name > (Max))                                \
    Fail("accepted " #Name " out of its range", text,                          \
         std::to_string(flags.Name));
#include "runtime/flags.inc"
#undef OWNSAN_INT_FLAG
#undef OWNSAN_FLAG
  ownsan::Flags twice;
  std::string error2;
  if (!ownsan::ParseFlags(text + ":" + text, &twice, &error2))
    Fail("TEXT accepted but TEXT:TEXT rejected", text, error2);
  if (!SameFlags(flags, twice))
    Fail("TEXT:TEXT gives other flags than TEXT", text, "");
  return 0;
}
