//===- flags.cpp - Options read from OWNSAN_OPTIONS ----------------------===//

#include "runtime/flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

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
const char *TypeName(int *) { return "int"; }
const char *TypeName(std::string *) { return "string"; }

std::string DefaultText(bool b) { return b ? "true" : "false"; }
std::string DefaultText(int i) { return absl::StrCat(i); }
std::string DefaultText(const std::string &s) { return s.empty() ? "\"\"" : s; }

} // namespace

bool ParseFlags(const std::string &text, Flags *flags, std::string *error) {
  for (absl::string_view item :
       absl::StrSplit(text, absl::ByAnyChar(": \t\n"), absl::SkipEmpty())) {
    size_t eq = item.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      *error = absl::StrCat("malformed option '", item,
                            "' in OWNSAN_OPTIONS (expected key=value)");
      return false;
    }
    std::string key(item.substr(0, eq)), value(item.substr(eq + 1));
    bool known = false, ok = false;
    const char *type = "";
#define OWNSAN_FLAG(Type, Name, Default, Description)                          \
  if (key == #Name) {                                                          \
    known = true;                                                              \
    ok = ParseValue(value, &flags->Name);                                      \
    type = TypeName(&flags->Name);                                             \
  }
#include "runtime/flags.inc"
#undef OWNSAN_FLAG
    if (!known) {
      *error = absl::StrCat("unknown option '", key,
                            "' in OWNSAN_OPTIONS (help=1 lists them)");
      return false;
    }
    if (!ok) {
      *error = absl::StrCat("invalid value '", value, "' for option '", key,
                            "' in OWNSAN_OPTIONS (expected ", type, ")");
      return false;
    }
  }
  if (flags->report_format != "text" && flags->report_format != "json") {
    *error = absl::StrCat("invalid value '", flags->report_format,
                          "' for option 'report_format' in OWNSAN_OPTIONS "
                          "(expected text or json)");
    return false;
  }
  if (flags->max_reports < 0) {
    *error = absl::StrCat("invalid value '", flags->max_reports,
                          "' for option 'max_reports' in OWNSAN_OPTIONS "
                          "(expected 0 or more)");
    return false;
  }
  if (flags->quarantine_size_mb < 0 || flags->quarantine_size_mb > 1 << 20) {
    *error = absl::StrCat("invalid value '", flags->quarantine_size_mb,
                          "' for option 'quarantine_size_mb' in "
                          "OWNSAN_OPTIONS (expected 0-1048576)");
    return false;
  }
  if (flags->malloc_context_size < 0 || flags->malloc_context_size > 128) {
    *error = absl::StrCat("invalid value '", flags->malloc_context_size,
                          "' for option 'malloc_context_size' in "
                          "OWNSAN_OPTIONS (expected 0-128)");
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
#include "runtime/flags.inc"
#undef OWNSAN_FLAG
  return out;
}

} // namespace ownsan
