//===- main.cpp - ownsan_error_kinds: the report-kind table, printed ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   ownsan_error_kinds --json       the kind list `ownsan report` reads
//                                   (the build writes it to
//                                   share/ownsan/error_kinds.json)
//   ownsan_error_kinds --markdown   the kinds table of docs/reports.md
//                                   (tools/update_reports_doc.sh)
//
// Both come from src/report/error_kinds.def (see there).
//
//===----------------------------------------------------------------------===//

#include "report/error_kinds.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  std::string text;
  if (argc == 2 && std::strcmp(argv[1], "--json") == 0)
    text = ownsan::ErrorKindsJson(OWNSAN_VERSION, OWNSAN_HOMEPAGE_URL);
  else if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0)
    text = ownsan::ErrorKindsMarkdown();
  else {
    std::fprintf(stderr, "usage: ownsan_error_kinds --json | --markdown\n");
    return 2;
  }
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() &&
                 std::fflush(stdout) == 0
             ? 0
             : 1;
}
