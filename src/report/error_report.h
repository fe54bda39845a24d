//===- error_report.h - One detected problem, as a value --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A report is gathered first (the facts: which object, which call, which
// stacks) and rendered second, so the text and (later) JSON writers share
// one source. Records referenced here are owned by the OwnershipGraph; the
// runtime keeps freed ones from eviction while a report reads them (see
// Runtime::HistoryPin); stacks are depot ids.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_REPORT_ERROR_REPORT_H
#define OWNSAN_REPORT_ERROR_REPORT_H

#include "core/object_record.h"

#include <string>

namespace ownsan {

/// What the call a report is about would do if made anyway (a suppressed
/// report, or continue mode): what decides whether the call is skipped.
enum class CallHarm {
  Never,        ///< every object is alive: the call is the program's own
  Always,       ///< LLVM would free twice, give two owners, write freed memory
  IfItFreesArg, ///< harmful when the call frees the argument (a dispose of
                ///< what is gone); a read the quarantine covers is not
};

/// The kinds of report, in the order of src/report/error_kinds.def (the
/// table of every fact about a kind: name, meaning, hint, SARIF level, doc
/// anchor, CallHarm).
enum class ErrorKind {
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  Id,
#include "report/error_kinds.def"
};

/// The kind's name in reports ("use-after-free").
const char *ErrorKindName(ErrorKind k);
/// What a call reported as this kind would do if made anyway.
CallHarm ErrorKindCallHarm(ErrorKind k);

struct ErrorReport {
  ErrorKind kind;
  const ObjectRecord *object = nullptr; ///< the object the handle names
  const void *handle = nullptr;
  FnIndex fn = kNoFn; ///< the LLVM-C function it was passed to
  unsigned arg = 0;   ///< 0-based argument index
  StackId use_stack = 0;
  uint32_t thread = 0;
  std::string note; ///< one extra explanation line, may be empty
  /// UseAfterFree on a reused address: the live object that has it now.
  /// DanglingInsertionPoint: the freed block or instruction.
  const ObjectRecord *related = nullptr;
  /// UseAfterFree on an address the quarantine holds: the live object
  /// glibc would have put there without ownsan (native_reuse.cpp).
  const ObjectRecord *native_successor = nullptr;
  /// ContextRace: the other thread inside a call on the same context.
  bool has_other = false;
  uint32_t other_thread = 0;
  StackId other_stack = 0; ///< 0 when it was not recorded
  FnIndex other_fn = kNoFn;
  /// WrongHandleKind: what the function expects ("a function").
  const char *expected = nullptr;
  /// `object` stands in for a freed object whose record was evicted
  /// (history_size_mb): only its address and kind are known.
  bool history_evicted = false;
};

} // namespace ownsan

#endif // OWNSAN_REPORT_ERROR_REPORT_H
