//===- report_writer.cpp - Resolves and renders an ErrorReport -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/report_writer.h"
#include "report/output_line.h"

#include "report/frame_roles.h"
#include "report/python_frames.h"
#include "report/symbolizer.h"

#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <cstdlib>
#include <vector>

namespace ownsan {

namespace {

bool IsAncestor(const ObjectRecord *maybe_ancestor, const ObjectRecord *r) {
  for (const ObjectRecord *p = r->parent; p; p = p->parent)
    if (p == maybe_ancestor)
      return true;
  return false;
}

// Native frames of the Python interpreter and of ctypes/libffi say nothing
// the Python frames do not; they are dropped when Python frames exist.
bool IsInterpreterModule(const std::string &module) {
  size_t slash = module.rfind('/');
  std::string base = module.substr(slash == std::string::npos ? 0 : slash + 1);
  return absl::StartsWith(base, "python") ||
         absl::StartsWith(base, "libpython") ||
         absl::StartsWith(base, "libffi") || absl::StartsWith(base, "_ctypes");
}

std::string Hex(uintptr_t v) { return absl::StrCat("0x", absl::Hex(v)); }
std::string Hex(const void *p) { return Hex(reinterpret_cast<uintptr_t>(p)); }
std::string ThreadName(uint32_t t) { return absl::StrCat("T", t); }

} // namespace

ResolvedStack ResolveStack(StackId id, const ReportContext &ctx) {
  ResolvedStack out;
  const StackTrace &st = ctx.depot->Get(id);
  for (uint32_t f : st.py_frames) {
    PythonFrame pf = GetPythonFrame(f);
    ResolvedFrame rf;
    rf.python = true;
    rf.function = PrintableText(pf.function);
    rf.file = PrintableText(pf.file);
    rf.line = pf.line;
    out.push_back(std::move(rf));
  }
  for (const SymbolizedFrame &f :
       Symbolize(st.pcs, ctx.symbolizer_path, ctx.symbolizer_timeout_ms)) {
    if (!st.py_frames.empty() && IsInterpreterModule(f.module))
      continue;
    // A frame-pointer walk through code built without frame pointers can
    // yield words that are no code address at all; they name nothing.
    if (f.module.empty())
      continue;
    ResolvedFrame rf;
    rf.function = PrintableText(f.function);
    rf.file = PrintableText(f.file);
    rf.line = f.line;
    rf.column = f.column;
    rf.module = PrintableText(f.module);
    rf.pc = f.pc;
    rf.offset = f.offset;
    out.push_back(std::move(rf));
  }
  return out;
}

namespace {

std::string FrameLocation(const ResolvedFrame &f) {
  if (f.python)
    return absl::StrCat(f.file, ":", f.line, " in ", f.function);
  std::string fn = f.function.empty() ? "<unknown>" : f.function;
  if (!f.file.empty())
    return absl::StrCat(f.file, ":", f.line,
                        f.column ? absl::StrCat(":", f.column) : "", " in ",
                        fn);
  return absl::StrCat("(", f.module, "+0x", absl::Hex(f.offset), ") in ", fn);
}

} // namespace

namespace {

// The free event of `obj`; `what` replaces "freed" ("its insertion point
// ... was freed").
ResolvedEvent ResolveFree(const ObjectRecord *obj, const ReportContext &ctx,
                          const std::string &what) {
  ResolvedEvent e;
  const FreeEvent *ev = obj->freed;
  if (!ev)
    return e;
  e.present = true;
  e.thread = ev->thread;
  const char *by = ev->fn != kNoFn ? ctx.fn_name(ev->fn) : nullptr;
  e.function = by ? by : "";
  std::string line = ev->consumed && what == "freed" ? "consumed" : what;
  if (ev->target && by) {
    e.target = FullLabel(ev->target, ctx);
    absl::StrAppend(&line, " by ", by, "(", e.target, ") on thread ",
                    ThreadName(ev->thread));
    if (ev->target != obj) {
      e.cause = IsAncestor(ev->target, obj)
                    ? absl::StrCat("because it belonged to that ",
                                   ev->target->kind == ObjectKind::Opaque
                                       ? (ev->target->name.empty()
                                              ? OpaqueNoun(ev->target)
                                              : std::string(ev->target->name))
                                       : KindNoun(ev->target->kind))
                    : "as a side effect of that call";
      absl::StrAppend(&line, ", ", e.cause);
    }
  } else if (by) {
    e.during = absl::StrCat(
        by, !*ev->detail
                ? ""
                : absl::StrCat("(\"", PrintableText(ev->detail), "\")"));
    absl::StrAppend(&line, " during ", e.during, " on thread ",
                    ThreadName(ev->thread), ", by ", ctx.library_noun,
                    " itself");
  } else {
    absl::StrAppend(&line, " outside any ", ctx.api_name, " call on thread ",
                    ThreadName(ev->thread));
  }
  e.heading = line;
  e.stack = ResolveStack(ev->stack, ctx);
  return e;
}

ResolvedEvent ResolveCreate(const ObjectRecord *obj, const ReportContext &ctx) {
  ResolvedEvent e;
  if (obj->created_by == kNoFn)
    return e;
  e.present = true;
  e.function = ctx.fn_name(obj->created_by);
  e.thread = obj->create_thread;
  e.heading = absl::StrCat("created by ", e.function, " on thread ",
                           ThreadName(e.thread));
  e.stack = ResolveStack(obj->create_stack, ctx);
  return e;
}

} // namespace

std::string TestName() {
  // pytest keeps PYTEST_CURRENT_TEST up to date in the environment.
  for (const char *var : {"OWNSAN_TEST_NAME", "PYTEST_CURRENT_TEST"})
    if (const char *v = getenv(var); v && *v)
      return v;
  return "";
}

void AppendJsonStack(std::string *out, const ResolvedStack &s) {
  *out += "[";
  int n = 0;
  for (const ResolvedFrame &f : s) {
    if (n)
      *out += ",";
    absl::StrAppend(out, "{\"index\":", n++, ",\"language\":\"",
                    f.python ? "python" : "native", "\",\"function\":");
    absl::StrAppend(
        out, f.function.empty() ? "null" : JsonEscape(f.function),
        ",\"file\":", f.file.empty() ? "null" : JsonEscape(f.file),
        ",\"line\":", f.line ? absl::StrCat(f.line) : "null",
        ",\"column\":", f.column ? absl::StrCat(f.column) : "null",
        ",\"module\":", f.module.empty() ? "null" : JsonEscape(f.module),
        ",\"pc\":", f.pc ? JsonEscape(Hex(f.pc)) : "null", "}");
  }
  *out += "]";
}

namespace {

std::string JsonOrNull(const std::string &s) {
  return s.empty() ? "null" : JsonEscape(s);
}

void AppendJsonEvent(std::string *out, const ResolvedEvent &e, bool is_free) {
  if (!e.present) {
    *out += "null";
    return;
  }
  absl::StrAppend(out, "{\"function\":", JsonOrNull(e.function));
  if (is_free)
    absl::StrAppend(out, ",\"target\":", JsonOrNull(e.target),
                    ",\"cause\":", JsonOrNull(e.cause),
                    ",\"during\":", JsonOrNull(e.during));
  absl::StrAppend(out, ",\"thread\":", e.thread, ",\"stack\":");
  AppendJsonStack(out, e.stack);
  *out += "}";
}

} // namespace

namespace {

// The length of the valid UTF-8 sequence at s[i] and its code point in
// *cp; 0 for a byte that starts none (stray continuation bytes, overlong
// forms, surrogates, beyond U+10FFFF, cut short).
size_t Utf8SequenceAt(absl::string_view s, size_t i, uint32_t *cp) {
  unsigned char c = s[i];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  uint32_t min;
  if ((c & 0xe0) == 0xc0) {
    n = 2, *cp = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, *cp = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, *cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xc0) != 0x80)
      return 0;
    *cp = (*cp << 6) | (cc & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
    return 0;
  return n;
}

} // namespace

std::string PrintableText(absl::string_view s) {
  bool plain = true;
  for (unsigned char c : s)
    plain &= c >= 0x20 && c < 0x7f && c != '\\';
  if (plain)
    return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = Utf8SequenceAt(s, i, &cp);
    if (n == 0) {
      absl::StrAppend(
          &out, "\\x",
          absl::Hex(static_cast<unsigned char>(s[i]), absl::kZeroPad2));
      ++i;
      continue;
    }
    if (cp == '\\')
      out += "\\\\";
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\t')
      out += "\\t";
    else if (cp == '\r')
      out += "\\r";
    else if (cp < 0x20 || cp == 0x7f)
      absl::StrAppend(&out, "\\x", absl::Hex(cp, absl::kZeroPad2));
    else if (cp >= 0x80 && cp <= 0x9f) // C1 controls (0x9b: CSI)
      absl::StrAppend(&out, "\\u", absl::Hex(cp, absl::kZeroPad4));
    else
      out.append(s.data() + i, n);
    i += n;
  }
  return out;
}

std::string JsonEscape(const std::string &s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      uint32_t cp = 0;
      size_t n = Utf8SequenceAt(s, i, &cp);
      if (n == 0) {
        out += "\xef\xbf\xbd"; // U+FFFD REPLACEMENT CHARACTER
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c == 0x7f)
        absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
      else
        out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string FullLabel(const ObjectRecord *r, const ReportContext &ctx) {
  std::string s = ctx.short_label(r);
  const ObjectRecord *child = r;
  for (const ObjectRecord *p = r->parent; p; child = p, p = p->parent) {
    // Labels stop at the module: the context adds nothing readable.
    if (p->kind == ObjectKind::Context || child->kind == ObjectKind::Module)
      break;
    absl::StrAppend(&s, KindConnector(child->kind), ctx.short_label(p));
  }
  return s;
}

namespace {

ResolvedReport ResolveOnce(const ErrorReport &rep, const ReportContext &ctx) {
  ResolvedReport r;
  r.api_name = ctx.api_name;
  const ObjectRecord *obj = rep.object;
  r.pid = ctx.pid;
  r.fold = ctx.fold_frames;
  r.kind = rep.kind;
  r.kind_name = ErrorKindName(rep.kind);
  r.handle = Hex(rep.handle);
  r.handle_type = obj->kind == ObjectKind::Opaque && obj->rare().type_name
                      ? obj->rare().type_name
                      : KindHandleType(obj->kind);
  r.object_kind = KindNoun(obj->kind);
  r.object_label = FullLabel(obj, ctx);
  r.history_evicted = rep.history_evicted;
  if (rep.history_evicted)
    r.object_label = absl::StrCat(r.object_kind, ", history evicted");
  r.identity = absl::StrCat(Hex(obj->addr), "#", obj->generation());
  r.note = rep.note;
  if (rep.expected)
    r.expected = rep.expected;
  r.function = ctx.fn_name(rep.fn);
  r.argument = rep.arg + 1;
  r.thread = rep.thread;
  r.test = PrintableText(TestName());
  r.use = ResolveStack(rep.use_stack, ctx);

  if (rep.kind == ErrorKind::DanglingInsertionPoint && rep.related) {
    // Case: the builder is fine; what it points into died (JSON "related":
    // the HTML page draws that block).
    r.related_kind = KindNoun(rep.related->kind);
    r.related_label = FullLabel(rep.related, ctx);
    r.related_identity =
        absl::StrCat(Hex(rep.related->addr), "#", rep.related->generation());
    r.free =
        ResolveFree(rep.related, ctx,
                    absl::StrCat("its insertion point ",
                                 FullLabel(rep.related, ctx), " was freed"));
  } else {
    r.free = ResolveFree(obj, ctx, "freed");
  }
  if (rep.kind == ErrorKind::UseAfterFree && !rep.related &&
      !obj->address_reused && !rep.history_evicted)
    r.identity_line = absl::StrCat(
        "identity: ", r.identity,
        " (address#generation); no object has been created at this address "
        "since it was freed");
  if (rep.kind == ErrorKind::UseAfterFree && rep.related) {
    // Case: the address was handed to a new object of another kind, so
    // this handle can only be the stale copy.
    const ObjectRecord *now = rep.related;
    r.related_kind = KindNoun(now->kind);
    r.related_label = FullLabel(now, ctx);
    r.related_identity = absl::StrCat(Hex(now->addr), "#", now->generation());
    r.identity_line = absl::StrCat(
        "identity: ", r.identity,
        " (address#generation), freed; the address now belongs to ",
        r.related_label, " (", r.related_identity, ")");
    r.related_create = ResolveCreate(now, ctx);
  }
  if (const ObjectRecord *next = rep.native_successor;
      next && !r.identity_line.empty()) {
    r.native_label = FullLabel(next, ctx);
    r.native_identity = absl::StrCat(Hex(next->addr), "#", next->generation());
    r.native_create = ResolveCreate(next, ctx);
  }
  r.create = ResolveCreate(obj, ctx);
  if (FnIndex first = obj->rare().first_seen_in;
      !r.create.present && first != kNoFn)
    r.first_seen_in = ctx.fn_name(first);
  if (rep.has_other) {
    r.other.present = true;
    r.other.thread = rep.other_thread;
    r.other.function = rep.other_fn != kNoFn ? ctx.fn_name(rep.other_fn) : "";
    r.other.heading = absl::StrCat(
        "at the same time thread ", ThreadName(rep.other_thread), " is inside ",
        r.other.function.empty() ? absl::StrCat("an ", ctx.api_name, " call")
                                 : r.other.function,
        " on the same context, which it entered at");
    r.other.stack = ResolveStack(rep.other_stack, ctx);
  }

  std::vector<const ObjectRecord *> chain;
  for (const ObjectRecord *p = obj; p; p = p->parent)
    chain.push_back(p);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    r.chain.emplace_back(KindNoun((*it)->kind), ctx.short_label(*it));
  r.chain_when_freed = obj->state == ObjectState::Freed;

  const ResolvedFrame *user = UserFrame(r.use);
  std::string first = user ? FrameLocation(*user) : "";
  r.summary = absl::StrCat(r.kind_name, " in ", r.function,
                           first.empty() ? "" : " ", first);
  r.problem_id = ProblemId(r);
  return r;
}

} // namespace

ResolvedReport Resolve(const ErrorReport &rep, const ReportContext &ctx) {
  // Every stack of the report in one symbolizer run: a first pass collects
  // their pcs.
  SymbolizerBatch batch;
  (void)ResolveOnce(rep, ctx);
  batch.Run(ctx.symbolizer_path, ctx.symbolizer_timeout_ms);
  return ResolveOnce(rep, ctx);
}

namespace {
// Ends a line that names another object: `, created by F on thread T:` and
// its stack when its creation is known, else just the newline.
void AppendCreatedBy(std::string *out, const ResolvedEvent &create, bool fold) {
  if (!create.present) {
    *out += "\n";
    return;
  }
  absl::StrAppend(out, ", created by ", create.function, " on thread ",
                  ThreadName(create.thread), ":\n",
                  StackText(create.stack, fold));
}
} // namespace

std::string RenderText(const ResolvedReport &r) {
  std::string out =
      OwnsanLine(r.pid, LineLevel::kError,
                 absl::StrCat(r.kind_name, " on ", r.handle_type, " ", r.handle,
                              " (", r.object_label, ")"));
  if (!r.note.empty())
    absl::StrAppend(&out, "  ", r.note, "\n");
  absl::StrAppend(&out, "  passed as argument ", r.argument, " of ", r.function,
                  " on thread ", ThreadName(r.thread), ":\n",
                  StackText(r.use, r.fold));
  if (r.other.present)
    absl::StrAppend(&out, "  ", r.other.heading, ":\n",
                    r.other.stack.empty()
                        ? "    <not recorded: the context had been used by "
                          "one thread only until then>\n"
                        : StackText(r.other.stack, r.fold));
  if (r.free.present)
    absl::StrAppend(&out, "  ", r.free.heading, ":\n",
                    StackText(r.free.stack, r.fold));
  if (!r.identity_line.empty()) {
    absl::StrAppend(&out, "  ", r.identity_line);
    AppendCreatedBy(&out, r.related_create, r.fold);
  }
  if (!r.native_label.empty()) {
    // (What makes a binding's stale handle give wrong answers natively.)
    absl::StrAppend(&out,
                    "  without ownsan the address would now hold a newer "
                    "object: glibc gives a freed block to the next request "
                    "of its size, which was for ",
                    r.native_label, " (now at ", r.native_identity,
                    "; the quarantine kept this address from it)");
    AppendCreatedBy(&out, r.native_create, r.fold);
  }
  if (r.create.present)
    absl::StrAppend(&out, "  ", r.create.heading, ":\n",
                    StackText(r.create.stack, r.fold));
  else if (r.history_evicted)
    ; // (the note says why nothing more is known)
  else if (!r.first_seen_in.empty())
    absl::StrAppend(&out, "  created outside the ", r.api_name,
                    " API (first seen in a call to ", r.first_seen_in, ")\n");
  else
    absl::StrAppend(&out, "  created outside the ", r.api_name, " API\n");
  std::string chain;
  for (const auto &link : r.chain)
    absl::StrAppend(&chain, chain.empty() ? "" : " -> ", link.second);
  if (!r.history_evicted)
    absl::StrAppend(&out, "  ownership chain",
                    r.chain_when_freed ? " when freed" : "", ": ", chain, "\n");
  if (!r.test.empty())
    absl::StrAppend(&out, "  while running test ", r.test, "\n");
  absl::StrAppend(&out, "SUMMARY: OwnSan: ", r.summary, "\n");
  return out;
}

std::string RenderJson(const ResolvedReport &r) {
  std::string out = absl::StrCat(
      "{\"ownsan_report\":1,\"pid\":", r.pid,
      ",\"kind\":", JsonEscape(r.kind_name),
      ",\"problem_id\":", JsonEscape(r.problem_id),
      ",\"handle\":", JsonEscape(r.handle),
      ",\"handle_type\":", JsonEscape(r.handle_type),
      ",\"object\":{\"kind\":", JsonEscape(r.object_kind),
      ",\"label\":", JsonEscape(r.object_label),
      ",\"identity\":", JsonEscape(r.identity), "}",
      ",\"call\":{\"function\":", JsonEscape(r.function),
      ",\"argument\":", r.argument, "}", ",\"thread\":", r.thread,
      ",\"test\":", JsonOrNull(r.test), ",\"note\":", JsonOrNull(r.note),
      ",\"expected\":", JsonOrNull(r.expected),
      ",\"use\":{\"thread\":", r.thread, ",\"stack\":");
  AppendJsonStack(&out, r.use);
  out += "},\"free\":";
  AppendJsonEvent(&out, r.free, true);
  out += ",\"other\":";
  AppendJsonEvent(&out, r.other, false);
  out += ",\"create\":";
  AppendJsonEvent(&out, r.create, false);
  absl::StrAppend(&out, ",\"first_seen_in\":", JsonOrNull(r.first_seen_in));
  out += ",\"chain\":[";
  for (size_t i = 0; i < r.chain.size(); ++i)
    absl::StrAppend(&out, i ? "," : "",
                    "{\"kind\":", JsonEscape(r.chain[i].first),
                    ",\"label\":", JsonEscape(r.chain[i].second), "}");
  out += "],\"related\":";
  if (r.related_label.empty())
    out += "null";
  else
    absl::StrAppend(&out, "{\"kind\":", JsonEscape(r.related_kind),
                    ",\"label\":", JsonEscape(r.related_label),
                    ",\"identity\":", JsonEscape(r.related_identity), "}");
  out += ",\"native_successor\":";
  if (r.native_label.empty())
    out += "null";
  else
    absl::StrAppend(&out, "{\"label\":", JsonEscape(r.native_label),
                    ",\"identity\":", JsonEscape(r.native_identity), "}");
  absl::StrAppend(&out, ",\"summary\":", JsonEscape(r.summary),
                  ",\"text\":", JsonEscape(RenderText(r)), "}");
  return out;
}

std::string RenderTextReport(const ErrorReport &rep, const ReportContext &ctx) {
  return RenderText(Resolve(rep, ctx));
}

} // namespace ownsan
