//===- report_writer.h - Resolves and renders an ErrorReport ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two steps. Resolve() turns an ErrorReport (records and stack ids) into a
// ResolvedReport of plain strings and symbolized frames; that is done once
// per report and shared by the text and JSON writers, the suppression
// matcher and the problem id. The text report reads:
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
#include "absl/strings/string_view.h"

#include <string>
#include <vector>

namespace ownsan {

struct ReportContext {
  int pid = 0;
  const StackDepot *depot = nullptr;
  std::string symbolizer_path; ///< empty: no symbolization
  /// Name of a wrapped function.
  absl::FunctionRef<const char *(FnIndex)> fn_name;
  /// One object's own short label: `module "m"`, `function @foo`, ...
  absl::FunctionRef<std::string(const ObjectRecord *)> short_label;
  /// A symbolizer that takes longer is killed (the runtime passes
  /// symbolizer_timeout_ms); 0: no limit.
  int symbolizer_timeout_ms = 0;
  /// Text reports fold the runner's frames (fold_frames).
  bool fold_frames = false;
  /// How reports name the checked library and its C API (the profile's:
  /// "LLVM", "LLVM-C").
  const char *library_noun = "LLVM";
  const char *api_name = "LLVM-C";
};

struct ResolvedFrame {
  bool python = false;
  std::string function; ///< "" when unknown
  std::string file;     ///< "" when unknown
  int line = 0;
  int column = 0;
  std::string module; ///< native frames: the object file
  uintptr_t pc = 0;
  uintptr_t offset = 0; ///< pc relative to the module
};
using ResolvedStack = std::vector<ResolvedFrame>;

struct ResolvedEvent {
  bool present = false;
  std::string heading; ///< "freed by LLVMFoo(...) on thread T0, because ..."
  std::string function;
  std::string target; ///< label of what the call freed, if any
  std::string cause;  ///< "because it belonged to that module", ...
  std::string during; ///< LLVMRunPasses("dce") when LLVM freed it itself
  uint32_t thread = 0;
  ResolvedStack stack;
};

struct ResolvedReport {
  int pid = 0;
  const char *api_name = "LLVM-C"; ///< ReportContext::api_name
  bool fold = false; ///< fold the runner's frames in text (frame_roles.h)
  ErrorKind kind{};
  std::string kind_name;
  std::string handle;      ///< "0x..."
  std::string handle_type; ///< "LLVMValueRef"
  std::string object_kind, object_label, identity;
  std::string note;
  std::string expected;  ///< wrong-handle-kind: "a function"; else ""
  std::string function;  ///< the LLVM-C function the handle was passed to
  unsigned argument = 0; ///< 1-based
  uint32_t thread = 0;
  std::string test; ///< from PYTEST_CURRENT_TEST / OWNSAN_TEST_NAME
  ResolvedStack use;
  ResolvedEvent free;
  ResolvedEvent create;
  /// Adopted objects (create absent): the call ownsan first saw it in.
  std::string first_seen_in;
  std::string identity_line; ///< "identity: 0x...#1 ..." or ""
  ResolvedEvent related_create;
  ResolvedEvent other; ///< context-race: the other thread's call
  std::string related_kind, related_label, related_identity;
  /// ErrorReport::native_successor: its label and identity, "" if none.
  std::string native_label, native_identity;
  ResolvedEvent native_create;
  std::vector<std::pair<std::string, std::string>> chain; ///< kind, label
  bool chain_when_freed = false;
  /// Only the kind of the freed object is known (history_size_mb).
  bool history_evicted = false;
  std::string summary;    ///< after "SUMMARY: OwnSan: "
  std::string problem_id; ///< 16 hex digits, stable across processes
};

/// The test running now: OWNSAN_TEST_NAME, else PYTEST_CURRENT_TEST; "".
std::string TestName();

ResolvedReport Resolve(const ErrorReport &report, const ReportContext &ctx);

/// One stack, symbolized (Python frames first), and as report text.
ResolvedStack ResolveStack(StackId id, const ReportContext &ctx);
/// With `fold`, each run of two or more frames of the test runner or the
/// interpreter is one line, `    ... 22 frames in pytest` (frame_roles.h).
std::string StackText(const ResolvedStack &s, bool fold = false);
/// A JSON array of frames (docs/reports.md).
void AppendJsonStack(std::string *out, const ResolvedStack &s);

std::string RenderText(const ResolvedReport &r);
/// One line of JSON (no trailing newline), see docs/reports.md.
std::string RenderJson(const ResolvedReport &r);
/// A JSON string literal of `s`; always valid UTF-8: a byte that is not
/// part of a valid UTF-8 sequence becomes U+FFFD.
std::string JsonEscape(const std::string &s);
/// `s` (a name or path from the program) safe to print as part of a report
/// line: valid UTF-8 is kept, but control characters (C0, DEL, C1) become
/// `\n`, `\t`, `\r`, `\xNN` or `\uNNNN`, other bytes that are not valid
/// UTF-8 `\xNN`, and a backslash `\\`. So no name can start a line of its
/// own (a forged `==PID==ERROR:`) or send a terminal escape sequence.
std::string PrintableText(absl::string_view s);

/// The full label: `instruction %sum in block %entry of function @foo in
/// module "m"` (walks the parent chain up to the module).
std::string FullLabel(const ObjectRecord *r, const ReportContext &ctx);

/// Resolve + RenderText (tests and simple callers).
std::string RenderTextReport(const ErrorReport &report,
                             const ReportContext &ctx);

} // namespace ownsan

#endif // OWNSAN_REPORT_REPORT_WRITER_H
