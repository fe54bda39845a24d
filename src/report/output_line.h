//===- output_line.h - The "==PID==" line every message starts with -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every line ownsan writes follows the sanitizer convention: "==PID==", the
// level, "OwnSan: ", the text. This is the one place that spells it, except
// for the two lines that must not allocate (crash_handler.cpp's line in a
// signal handler, OwnsanOutOfMemory's), which write the same shape by hand.
//
//===----------------------------------------------------------------------===//

#ifndef OWNSAN_REPORT_OUTPUT_LINE_H
#define OWNSAN_REPORT_OUTPUT_LINE_H

#include "absl/strings/string_view.h"

#include <string>

namespace ownsan {

/// What a line is: the word after the "==PID==" prefix.
enum class LineLevel {
  kError,   ///< "==PID==ERROR: OwnSan: "
  kWarning, ///< "==PID==WARNING: OwnSan: "
  kInfo,    ///< "==PID==OwnSan: "
};

/// One line of this process: the prefix, `text` and a newline.
std::string OwnsanLine(LineLevel level, absl::string_view text);
/// The same for process `pid` (a report resolved for another process).
std::string OwnsanLine(long pid, LineLevel level, absl::string_view text);

} // namespace ownsan

#endif // OWNSAN_REPORT_OUTPUT_LINE_H
