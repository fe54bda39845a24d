//===- error_kinds.h - The report-kind table, rendered ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What src/report/error_kinds.def generates besides the ErrorKind enum
// (error_report.h): the JSON kind list that `ownsan report` reads and the
// kinds table of docs/reports.md. Both are built by `ownsan_error_kinds`
// (tools/error_kinds/main.cpp) at build time / by
// tools/update_reports_doc.sh.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_ERROR_KINDS_H
#define OWNSAN_REPORT_ERROR_KINDS_H

#include <string>

namespace ownsan {

/// The kind list as one JSON document (share/ownsan/error_kinds.json):
///   {"ownsan_error_kinds": 1, "source": "src/report/error_kinds.def",
///    "tool_version", "homepage" (when given),
///    "kinds": [{"name", "id", "meaning", "details", "hint", "sarif_level",
///               "doc_anchor", "call_harm", "cwe", "security_severity"},
///              ...]}
/// in the table's order; details and hint are Markdown; cwe and
/// security_severity are null for a kind that is not a memory-safety bug.
std::string ErrorKindsJson(const std::string &tool_version = "",
                           const std::string &homepage = "");

/// The "## Error kinds" table of docs/reports.md, between its generated-
/// block markers (one row per kind: the kind with its anchor, Details, Hint).
std::string ErrorKindsMarkdown();

} // namespace ownsan

#endif // OWNSAN_REPORT_ERROR_KINDS_H
