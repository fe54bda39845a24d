//===- suppressions.h - Sanitizer-style suppression files -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A suppression file has one rule per line, `type:pattern`, in the style of
// the sanitizers' files; blank lines and `#` comments are ignored:
//
//   fun:PATTERN   a function in any stack of the report (native or Python),
//                 or the LLVM-C function the handle was passed to
//   src:PATTERN   a source file in any stack
//   lib:PATTERN   a module (shared object or executable) in any stack
//   KIND:PATTERN  a report of that kind (`double-free`, error_kinds.def)
//                 with any of those names (as TSan's `race:`); `leak:` a
//                 leak group (report_leaks=1), as LeakSanitizer's
//
// A pattern matches a name as the sanitizers' do (TemplateMatch): anywhere
// in it, unless it starts with `^` or ends with `$`; `*` (and fnmatch's `?`,
// `[...]`) are wildcards. A report matching any rule is counted against that
// rule and not printed; the rules that matched are listed at exit.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_SUPPRESSIONS_H
#define OWNSAN_REPORT_SUPPRESSIONS_H

#include "report/report_writer.h"

#include <string>
#include <vector>

namespace ownsan {

struct Suppression {
  std::string type; ///< "fun", "src", "lib" or a kind name
  std::string pattern;
  std::string glob; ///< the pattern as an fnmatch glob over the whole name
  int line = 0;
  size_t hits = 0;
};

/// fun, src, lib, leak or an error kind's name.
bool IsSuppressionType(const std::string &type);

class Suppressions {
public:
  /// Parses `text`; on error returns false with a one-line `error` that
  /// names `source` and the line.
  bool Parse(const std::string &text, const std::string &source,
             std::string *error);
  /// Reads and parses a file.
  bool Load(const std::string &path, std::string *error);

  /// The first rule matching the report (its hit count is incremented), or
  /// nullptr.
  const Suppression *Match(const ResolvedReport &r);

  const std::vector<Suppression> &rules() const { return rules_; }

private:
  std::vector<Suppression> rules_;
};

} // namespace ownsan

#endif // OWNSAN_REPORT_SUPPRESSIONS_H
