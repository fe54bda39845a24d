//===- flags.cpp - Options read from OWNSAN_OPTIONS ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "runtime/flags.h"

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#include <climits>
#include <type_traits>
#include <vector>

namespace ownsan {
namespace {

bool ParseValue(const std::string &v, bool *out) {
  if (v == "1" || v == "true") {
    *out = true;
    return true;
  }
  if (v == "0" || v == "false") {
    *out = false;
    return true;
  }
  return false;
}
bool ParseValue(const std::string &v, int *out) {
  return absl::SimpleAtoi(v, out);
}
bool ParseValue(const std::string &v, std::string *out) {
  *out = v;
  return true;
}

const char *TypeName(bool *) { return "bool"; }
const char *TypeName(std::string *) { return "string"; }

// "0-128", or "0 or more" for a range without a useful upper bound.
std::string RangeText(int min, int max) {
  return max == INT_MAX ? absl::StrCat(min, " or more")
                        : absl::StrCat(min, "-", max);
}

std::string DefaultText(bool b) { return b ? "true" : "false"; }
std::string DefaultText(int i) { return absl::StrCat(i); }
std::string DefaultText(const std::string &s) { return s.empty() ? "\"\"" : s; }

// The separators of compiler-rt's flag parser (FlagParser::is_space), so
// an ASAN_OPTIONS habit works here too.
bool IsSeparator(char c) {
  return c == ' ' || c == ',' || c == ':' || c == '\n' || c == '\t' ||
         c == '\r';
}

} // namespace

bool ParseFlags(const std::string &text, Flags *flags, std::string *error) {
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && IsSeparator(text[pos]))
      ++pos;
    if (pos == text.size())
      break;
    size_t start = pos;
    while (pos < text.size() && text[pos] != '=' && !IsSeparator(text[pos]))
      ++pos;
    if (pos == text.size() || text[pos] != '=' || pos == start) {
      while (pos < text.size() && !IsSeparator(text[pos]))
        ++pos;
      *error = absl::StrCat("malformed option '",
                            absl::string_view(text).substr(start, pos - start),
                            "' in OWNSAN_OPTIONS (expected key=value)");
      return false;
    }
    std::string key = text.substr(start, pos - start), value;
    ++pos; // '='
    if (pos < text.size() && (text[pos] == '\'' || text[pos] == '"')) {
      // A quoted value may hold separators (a path with a colon).
      size_t close = text.find(text[pos], pos + 1);
      if (close == std::string::npos) {
        *error = absl::StrCat("unterminated quoted value for option '", key,
                              "' in OWNSAN_OPTIONS");
        return false;
      }
      value = text.substr(pos + 1, close - pos - 1);
      pos = close + 1;
    } else {
      size_t value_start = pos;
      while (pos < text.size() && !IsSeparator(text[pos]))
        ++pos;
      value = text.substr(value_start, pos - value_start);
    }
    bool known = false, ok = false;
    const char *type = "";
    std::string expected;
#define OWNSAN_FLAG(Type, Name, Default, Description)                          \
  static_assert(!std::is_same<Type, int>::value,                               \
                "declare " #Name " with OWNSAN_INT_FLAG, with its range");     \
  if (key == #Name) {                                                          \
    known = true;                                                              \
    ok = ParseValue(value, &flags->Name);                                      \
    type = TypeName(&flags->Name);                                             \
  }
#define OWNSAN_INT_FLAG(Name, Default, Min, Max, Description)                  \
  if (key == #Name) {                                                          \
    known = true;                                                              \
    int parsed = 0;                                                            \
    ok = ParseValue(value, &parsed) && parsed >= (Min) && parsed <= (Max);     \
    if (ok)                                                                    \
      flags->Name = parsed;                                                    \
    expected = absl::StrCat("int ", RangeText(Min, Max));                      \
  }
#include "runtime/flags.inc"
#undef OWNSAN_INT_FLAG
#undef OWNSAN_FLAG
    if (!known) {
      *error = absl::StrCat("unknown option '", key,
                            "' in OWNSAN_OPTIONS (help=1 lists them)");
      return false;
    }
    if (!ok) {
      *error =
          absl::StrCat("invalid value '", absl::CEscape(value),
                       "' for option '", key, "' in OWNSAN_OPTIONS (expected ",
                       expected.empty() ? type : expected, ")");
      return false;
    }
  }
  if (flags->report_format != "text" && flags->report_format != "json") {
    *error =
        absl::StrCat("invalid value '", absl::CEscape(flags->report_format),
                     "' for option 'report_format' in OWNSAN_OPTIONS "
                     "(expected text or json)");
    return false;
  }
  return true;
}

std::string FlagsMarkdown() {
  std::string out =
      "| option | type | default | meaning |\n|---|---|---|---|\n";
  Flags defaults;
#define OWNSAN_FLAG(Type, Name, Default, Description)                          \
  absl::StrAppend(&out, "| `", #Name, "` | ", TypeName(&defaults.Name),        \
                  " | `", DefaultText(defaults.Name), "` | ", Description,     \
                  " |\n");
#define OWNSAN_INT_FLAG(Name, Default, Min, Max, Description)                  \
  absl::StrAppend(&out, "| `", #Name, "` | int, ", RangeText(Min, Max),        \
                  " | `", DefaultText(defaults.Name), "` | ", Description,     \
                  " |\n");
#include "runtime/flags.inc"
#undef OWNSAN_INT_FLAG
#undef OWNSAN_FLAG
  return out;
}

} // namespace ownsan
