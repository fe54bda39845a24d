//===- output_line.cpp - The "==PID==" line every message starts with -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/output_line.h"

#include "absl/strings/str_cat.h"

#include <unistd.h>

namespace ownsan {

std::string OwnsanLine(long pid, LineLevel level, absl::string_view text) {
  absl::string_view word = level == LineLevel::kError     ? "ERROR: OwnSan: "
                           : level == LineLevel::kWarning ? "WARNING: OwnSan: "
                                                          : "OwnSan: ";
  return absl::StrCat("==", pid, "==", word, text, "\n");
}

std::string OwnsanLine(LineLevel level, absl::string_view text) {
  return OwnsanLine(static_cast<long>(getpid()), level, text);
}

} // namespace ownsan
