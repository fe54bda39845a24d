//===- error_kinds_test.cpp - The report-kind table ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// src/report/error_kinds.def and what it generates: the names, the JSON kind
// list of `ownsan report`, and the table in docs/reports.md.
//
//===----------------------------------------------------------------------===//

#include "report/error_kinds.h"
#include "report/error_report.h"

#include "gtest/gtest.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace ownsan {
namespace {

struct Row {
  ErrorKind kind;
  std::string name, level, anchor, meaning, details, hint;
};

const Row kRows[] = {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  {ErrorKind::Id, Name, SarifLevel, Anchor, Meaning, Details, Hint},
#include "report/error_kinds.def"
};

TEST(ErrorKinds, EveryEntryIsComplete) {
  std::set<std::string> names, anchors;
  for (const Row &r : kRows) {
    EXPECT_EQ(ErrorKindName(r.kind), r.name);
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate name " << r.name;
    EXPECT_TRUE(anchors.insert(r.anchor).second)
        << "duplicate anchor " << r.anchor;
    EXPECT_TRUE(r.level == "error" || r.level == "warning" || r.level == "note")
        << r.name << ": SARIF level " << r.level;
    EXPECT_FALSE(r.meaning.empty()) << r.name;
    EXPECT_EQ(r.meaning.find('\n'), std::string::npos)
        << r.name << ": the meaning is one line";
    EXPECT_FALSE(r.details.empty()) << r.name;
    EXPECT_FALSE(r.hint.empty()) << r.name;
  }
}

TEST(ErrorKinds, JsonListsEveryKind) {
  std::string json = ErrorKindsJson();
  EXPECT_EQ(json.rfind("{\"ownsan_error_kinds\": 1,", 0), 0u) << json;
  size_t entries = 0;
  for (size_t at = json.find("{\"name\": "); at != std::string::npos;
       at = json.find("{\"name\": ", at + 1))
    ++entries;
  EXPECT_EQ(entries, std::size(kRows));
  for (const Row &r : kRows)
    EXPECT_NE(json.find("{\"name\": \"" + r.name + "\""), std::string::npos)
        << r.name;
}

TEST(ErrorKinds, DocsTableMatchesTheCode) {
  std::ifstream in(OWNSAN_SOURCE_DIR "/docs/reports.md");
  ASSERT_TRUE(in) << "docs/reports.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find(ErrorKindsMarkdown()), std::string::npos)
      << "the error-kinds table of docs/reports.md is out of date; "
         "regenerate it with tools/update_reports_doc.sh BUILD_DIR. "
         "Expected table:\n"
      << ErrorKindsMarkdown();
}

} // namespace
} // namespace ownsan
