//===- error_kinds.cpp - What the report-kind table generates -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every use of src/report/error_kinds.def but the enum: names, CallHarm, and
// the JSON and Markdown renderings of the whole table.
//
//===----------------------------------------------------------------------===//

#include "report/error_kinds.h"
#include "report/report_writer.h"

#include "report/error_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <string_view>

namespace ownsan {

const char *ErrorKindName(ErrorKind k) {
  switch (k) {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  case ErrorKind::Id:                                                          \
    return Name;
#include "report/error_kinds.def"
  }
  return "error";
}

CallHarm ErrorKindCallHarm(ErrorKind k) {
  switch (k) {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  case ErrorKind::Id:                                                          \
    return CallHarm::Harm;
#include "report/error_kinds.def"
  }
  return CallHarm::Always;
}

namespace {

struct KindRow {
  const char *id, *name, *harm, *sarif_level, *anchor, *meaning, *details,
      *hint;
};

constexpr KindRow kRows[] = {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  {#Id, Name, #Harm, SarifLevel, Anchor, Meaning, Details, Hint},
#include "report/error_kinds.def"
};

// The table's text is ASCII and UTF-8 from this source file: only quotes,
// backslashes and control characters need escaping.
// The kind's CWE and security severity (0 and "": not a security bug).
struct Security {
  int cwe = 0;
  const char *severity = "";
};

Security SecurityOf(const char *id) {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)
#define OWNSAN_ERROR_KIND_SECURITY(Id, Cwe, Severity)                          \
  if (std::string_view(id) == #Id)                                             \
    return {Cwe, Severity};
#include "report/error_kinds.def"
  return {};
}

std::string Json(const char *s) { return JsonEscape(s); }

// A table cell: '|' would end it, a line break would end the row.
std::string Cell(const char *s) {
  std::string out;
  for (const char *p = s; *p; ++p)
    out +=
        *p == '|' ? std::string("\\|") : std::string(1, *p == '\n' ? ' ' : *p);
  return out;
}

} // namespace

std::string ErrorKindsJson(const std::string &tool_version,
                           const std::string &homepage) {
  std::string out = "{\"ownsan_error_kinds\": 1, \"source\": "
                    "\"src/report/error_kinds.def\", ";
  if (!tool_version.empty())
    absl::StrAppend(&out, "\"tool_version\": ", JsonEscape(tool_version), ", ");
  if (!homepage.empty())
    absl::StrAppend(&out, "\"homepage\": ", JsonEscape(homepage), ", ");
  out += "\"kinds\": [";
  bool first = true;
  for (const KindRow &k : kRows) {
    Security sec = SecurityOf(k.id);
    absl::StrAppend(
        &out, first ? "\n" : ",\n", "  {\"name\": ", Json(k.name),
        ", \"id\": ", Json(k.id), ",\n   \"meaning\": ", Json(k.meaning),
        ",\n   \"details\": ", Json(k.details),
        ",\n   \"hint\": ", Json(k.hint),
        ",\n   \"sarif_level\": ", Json(k.sarif_level),
        ", \"doc_anchor\": ", Json(k.anchor), ", \"call_harm\": ", Json(k.harm),
        ",\n   \"cwe\": ", sec.cwe ? absl::StrCat(sec.cwe) : "null",
        ", \"security_severity\": ",
        *sec.severity ? Json(sec.severity) : "null", "}");
    first = false;
  }
  return out + "\n]}\n";
}

std::string ErrorKindsMarkdown() {
  std::string out =
      "<!-- error kinds: generated from src/report/error_kinds.def by "
      "tools/update_reports_doc.sh; do not edit -->\n"
      "| kind | what happened | how to fix the binding |\n"
      "|---|---|---|\n";
  for (const KindRow &k : kRows)
    absl::StrAppend(&out, "| <a id=\"", k.anchor, "\"></a>`", k.name, "` | ",
                    Cell(k.details), " | ", Cell(k.hint), " |\n");
  return out + "<!-- end of error kinds -->\n";
}

} // namespace ownsan
