//===- fuzz_suppressions.cpp - libFuzzer target for Suppressions::Parse --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The input is a suppression file. Parse must never crash, leak or hang;
// on error the message is one non-empty line starting "SOURCE:LINE: " with
// a line number inside the file; on success every rule has a known type,
// a non-empty pattern without surrounding blanks and a line number that
// grows from rule to rule. The rules are then matched against a report
// whose names come from the same input (bounded in length, so fnmatch's
// cost stays bounded): Match must not crash and must return a rule of this
// file, whose hit count went up by one. A violated property aborts.
//
// Built by tests/CMakeLists.txt (block "fuzz") when OWNSAN_FUZZ is ON; run
// as ctest fuzz.suppressions. See tests/fuzz/run_fuzz.py for longer runs.
//
//===----------------------------------------------------------------------===//

#include "report/suppressions.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void Fail(const char *what, const std::string &text,
                       const std::string &detail) {
  fprintf(stderr,
          "fuzz_suppressions: property violated: %s\n  input: '%s'\n  %s\n",
          what, text.c_str(), detail.c_str());
  abort();
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
}

// A name for the synthetic report: a slice of the input, at most 48 bytes.
std::string Slice(const std::string &text, size_t at) {
  if (text.empty())
    return "LLVMGetValueName2";
  size_t start = at % text.size();
  return text.substr(start, std::min<size_t>(48, text.size() - start));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  const std::string source = "fuzz.supp";
  ownsan::Suppressions s;
  std::string error;
  if (!s.Parse(text, source, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos)
      Fail("the error is not one non-empty line", text, error);
    if (error.rfind(source + ":", 0) != 0)
      Fail("the error does not start with the file name", text, error);
    long line = strtol(error.c_str() + source.size() + 1, nullptr, 10);
    long lines =
        1 + static_cast<long>(std::count(text.begin(), text.end(), '\n'));
    if (line < 1 || line > lines)
      Fail("the error names a line outside the file", text, error);
    if (!s.rules().empty())
      Fail("rules kept after an error", text, error);
    return 0;
  }
  int last = 0;
  for (const ownsan::Suppression &r : s.rules()) {
    if (!ownsan::IsSuppressionType(r.type))
      Fail("a rule of unknown type", text, r.type);
    if (r.pattern.empty() || IsBlank(r.pattern.front()) ||
        IsBlank(r.pattern.back()))
      Fail("an empty or unstripped pattern", text, r.pattern);
    if (r.line <= last)
      Fail("rule line numbers do not grow", text, std::to_string(r.line));
    if (r.hits != 0)
      Fail("a new rule with hits", text, "");
    last = r.line;
  }
  ownsan::ResolvedReport rep;
  rep.function = Slice(text, 0);
  ownsan::ResolvedFrame f;
  f.function = Slice(text, 7);
  f.file = Slice(text, 13);
  f.module = Slice(text, 29);
  rep.use.push_back(f);
  rep.free.stack.push_back(f);
  rep.create.stack.push_back(f);
  size_t before = 0;
  for (const ownsan::Suppression &r : s.rules())
    before += r.hits;
  const ownsan::Suppression *hit = s.Match(rep);
  size_t after = 0;
  for (const ownsan::Suppression &r : s.rules())
    after += r.hits;
  if (hit) {
    bool ours = false;
    for (const ownsan::Suppression &r : s.rules())
      ours |= &r == hit;
    if (!ours || after != before + 1 || hit->hits != 1)
      Fail("Match returned a foreign rule or miscounted", text, "");
  } else if (after != before) {
    Fail("no match but hits counted", text, "");
  }
  return 0;
}
