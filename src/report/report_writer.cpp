//===- report_writer.cpp - Renders an ErrorReport as text ----------------===//

#include "report/report_writer.h"

#include "report/python_frames.h"
#include "report/symbolizer.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include <vector>

namespace ownsan {

const char *ErrorKindName(ErrorKind k) {
  switch (k) {
#define OWNSAN_ERROR_CASE(Id, Text)                                            \
  case ErrorKind::Id:                                                          \
    return Text;
    OWNSAN_FOR_EACH_ERROR_KIND(OWNSAN_ERROR_CASE)
#undef OWNSAN_ERROR_CASE
  }
  return "error";
}

namespace {

// How a child is attached to its parent in a label.
const char *Connector(ObjectKind child) {
  switch (child) {
  case ObjectKind::BasicBlock:
  case ObjectKind::Argument:
    return " of ";
  default:
    return " in ";
  }
}

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

struct RenderedStack {
  std::string text;
  std::string first_location; ///< for SUMMARY
};

RenderedStack RenderStack(StackId id, const ReportContext &ctx) {
  RenderedStack out;
  const StackTrace &st = ctx.depot->Get(id);
  int n = 0;
  for (uint32_t f : st.py_frames) {
    PythonFrame pf = GetPythonFrame(f);
    absl::StrAppend(&out.text, "    #", n++, " ", pf.file, ":", pf.line, " in ",
                    pf.function, " (python)\n");
    if (out.first_location.empty())
      out.first_location =
          absl::StrCat(pf.file, ":", pf.line, " in ", pf.function);
  }
  std::vector<SymbolizedFrame> frames = Symbolize(st.pcs, ctx.symbolizer_path);
  for (const SymbolizedFrame &f : frames) {
    if (!st.py_frames.empty() && IsInterpreterModule(f.module))
      continue;
    // A frame-pointer walk through code built without frame pointers can
    // yield words that are no code address at all; they name nothing.
    if (f.module.empty())
      continue;
    std::string fn = f.function.empty() ? "<unknown>" : f.function;
    std::string where;
    if (!f.file.empty())
      where = absl::StrCat(f.file, ":", f.line,
                           f.column ? absl::StrCat(":", f.column) : "");
    else
      where = absl::StrCat("(", f.module, "+0x", absl::Hex(f.offset), ")");
    absl::StrAppend(&out.text, "    #", n++, " 0x", absl::Hex(f.pc), " in ", fn,
                    " ", where, "\n");
    if (out.first_location.empty())
      out.first_location = absl::StrCat(where, " in ", fn);
  }
  if (n == 0)
    out.text = "    <no stack recorded>\n";
  return out;
}

std::string ThreadName(uint32_t t) { return absl::StrCat("T", t); }

} // namespace

// "  freed by LLVMFoo(<target>) on thread T0, because ...:" and its stack;
// `what` replaces "freed" (e.g. "its insertion point ... was freed").
static std::string FreeSection(const ObjectRecord *obj,
                               const ReportContext &ctx,
                               const std::string &what) {
  const FreeEvent *ev = obj->freed;
  if (!ev)
    return "";
  const char *by = ev->fn != kNoFn ? ctx.fn_name(ev->fn) : nullptr;
  std::string line = absl::StrCat("  ", what);
  if (ev->target && by) {
    absl::StrAppend(&line, " by ", by, "(",
                    FullLabel(ev->target, ctx), ") on thread ",
                    ThreadName(ev->thread));
    if (ev->target != obj)
      absl::StrAppend(&line, IsAncestor(ev->target, obj)
                                 ? absl::StrCat(", because it belonged to "
                                                "that ",
                                                KindNoun(ev->target->kind))
                                 : std::string(", as a side effect of that "
                                               "call"));
  } else if (by) {
    absl::StrAppend(&line, " during ", by,
                    ev->detail.empty() ? ""
                                       : absl::StrCat("(\"", ev->detail, "\")"),
                    " on thread ", ThreadName(ev->thread), ", by LLVM itself");
  } else {
    absl::StrAppend(&line, " outside any LLVM-C call on thread ",
                    ThreadName(ev->thread));
  }
  return absl::StrCat(line, ":\n", RenderStack(ev->stack, ctx).text);
}

std::string FullLabel(const ObjectRecord *r, const ReportContext &ctx) {
  std::string s = ctx.short_label(r);
  const ObjectRecord *child = r;
  for (const ObjectRecord *p = r->parent; p; child = p, p = p->parent) {
    // Labels stop at the module: the context adds nothing readable.
    if (p->kind == ObjectKind::Context || child->kind == ObjectKind::Module)
      break;
    absl::StrAppend(&s, Connector(child->kind), ctx.short_label(p));
  }
  return s;
}

std::string RenderTextReport(const ErrorReport &rep, const ReportContext &ctx) {
  const ObjectRecord *obj = rep.object;
  const char *kind = ErrorKindName(rep.kind);
  const char *fn = ctx.fn_name(rep.fn);
  std::string out =
      absl::StrCat("==", ctx.pid, "==ERROR: OwnSan: ", kind, " on ",
                   KindHandleType(obj->kind), " 0x",
                   absl::Hex(reinterpret_cast<uintptr_t>(rep.handle)), " (",
                   FullLabel(obj, ctx), ")\n");
  if (!rep.note.empty())
    absl::StrAppend(&out, "  ", rep.note, "\n");

  RenderedStack use = RenderStack(rep.use_stack, ctx);
  absl::StrAppend(&out, "  passed as argument ", rep.arg + 1, " of ", fn,
                  " on thread ", ThreadName(rep.thread), ":\n", use.text);

  if (rep.kind == ErrorKind::DanglingInsertionPoint && rep.related) {
    // Case: the builder is fine; what it points into died.
    absl::StrAppend(&out, FreeSection(rep.related, ctx,
                                      absl::StrCat("its insertion point ",
                                                   FullLabel(rep.related, ctx),
                                                   " was freed")));
  } else {
    absl::StrAppend(&out, FreeSection(obj, ctx, "freed"));
  }
  if (rep.kind == ErrorKind::UseAfterFree && !rep.related &&
      !obj->address_reused)
    absl::StrAppend(&out, "  identity: 0x",
                    absl::Hex(reinterpret_cast<uintptr_t>(obj->addr)), "#",
                    obj->generation,
                    " (address#generation); no object has been created at "
                    "this address since it was freed\n");
  if (rep.kind == ErrorKind::UseAfterFree && rep.related) {
    // Case: the address was handed to a new object of another kind, so
    // this handle can only be the stale copy.
    const ObjectRecord *now = rep.related;
    absl::StrAppend(
        &out, "  identity: 0x",
        absl::Hex(reinterpret_cast<uintptr_t>(obj->addr)), "#", obj->generation,
        " (address#generation), freed; the address now belongs to ",
        FullLabel(now, ctx), " (0x",
        absl::Hex(reinterpret_cast<uintptr_t>(now->addr)), "#", now->generation,
        ")");
    if (now->created_by != kNoFn)
      absl::StrAppend(&out, ", created by ", ctx.fn_name(now->created_by),
                      " on thread ", ThreadName(now->create_thread), ":\n",
                      RenderStack(now->create_stack, ctx).text);
    else
      absl::StrAppend(&out, "\n");
  }

  if (obj->created_by != kNoFn)
    absl::StrAppend(&out, "  created by ", ctx.fn_name(obj->created_by),
                    " on thread ", ThreadName(obj->create_thread), ":\n",
                    RenderStack(obj->create_stack, ctx).text);
  else
    absl::StrAppend(&out,
                    "  created outside the LLVM-C API (first seen as "
                    "an argument of ",
                    fn, ")\n");

  // Chain from the outermost owner down to the object.
  std::vector<const ObjectRecord *> chain;
  for (const ObjectRecord *p = obj; p; p = p->parent)
    chain.push_back(p);
  std::string chain_text;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    absl::StrAppend(&chain_text, chain_text.empty() ? "" : " -> ",
                    ctx.short_label(*it));
  absl::StrAppend(&out, "  ownership chain",
                  obj->state == ObjectState::Freed ? " when freed" : "", ": ",
                  chain_text, "\n");

  absl::StrAppend(&out, "SUMMARY: OwnSan: ", kind, " in ", fn,
                  use.first_location.empty() ? "" : " ", use.first_location,
                  "\n");
  return out;
}

} // namespace ownsan
