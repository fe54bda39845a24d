//===- report_writer.h - Renders an ErrorReport as text ---------*- C++ -*-===//
//
// The sanitizer-style text report:
//
//   ==PID==ERROR: OwnSan: <kind> on <handle type> 0x... (<label>)
//     passed as argument N of LLVMFoo on thread T0:
//       #0 ...                          <- use stack
//     freed by LLVMBar(<label>) on thread T0, because it belonged to that X:
//       #0 ...                          <- free stack
//     created by LLVMBaz on thread T0:
//       #0 ...                          <- creation stack
//     ownership chain when freed: context 0x... -> module "m" -> ...
//   SUMMARY: OwnSan: <kind> in LLVMFoo <first frame>
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_REPORT_WRITER_H
#define OWNSAN_REPORT_REPORT_WRITER_H

#include "report/error_report.h"
#include "report/stack_depot.h"

#include "absl/functional/function_ref.h"

#include <string>

namespace ownsan {

struct ReportContext {
  int pid = 0;
  const StackDepot *depot = nullptr;
  std::string symbolizer_path; ///< empty: no symbolization
  /// Name of a wrapped function.
  absl::FunctionRef<const char *(FnIndex)> fn_name;
  /// One object's own short label: `module "m"`, `function @foo`, ...
  absl::FunctionRef<std::string(const ObjectRecord *)> short_label;
};

/// The full label: `instruction %sum in block %entry of function @foo in
/// module "m"` (walks the parent chain up to the module).
std::string FullLabel(const ObjectRecord *r, const ReportContext &ctx);

std::string RenderTextReport(const ErrorReport &report,
                             const ReportContext &ctx);

} // namespace ownsan

#endif // OWNSAN_REPORT_REPORT_WRITER_H
