//===- frame_roles.cpp - Whose code each frame of a stack is --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/frame_roles.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace ownsan {

namespace {

std::string BaseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string DirName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

bool IsPytestName(absl::string_view name) {
  return name == "_pytest" || name == "pytest" || name == "pluggy" ||
         name == "xdist" || name == "execnet" || name == "py" ||
         name == "py.py" || name == "pytest-3" || name == "py.test" ||
         absl::StartsWith(name, "pytest_") || absl::StartsWith(name, "_pytest");
}

// The standard library: /.../lib/python3[.N]/X where X is not
// site-packages or dist-packages. Sets *rest to X's path.
bool InStdlib(const std::string &file, absl::string_view *rest) {
  for (size_t at = file.find("/lib/python3"); at != std::string::npos;
       at = file.find("/lib/python3", at + 1)) {
    size_t slash = file.find('/', at + 1 + 4);
    if (slash == std::string::npos)
      return false;
    absl::string_view tail = absl::string_view(file).substr(slash + 1);
    if (absl::StartsWith(tail, "site-packages/") ||
        absl::StartsWith(tail, "dist-packages/")) {
      *rest = tail.substr(tail.find('/') + 1);
      return false;
    }
    *rest = tail;
    return true;
  }
  return false;
}

const char *kNotOwnModules[] = {
    "libownsan", "libLLVM",  "libc.so",    "libc-",    "ld-linux",
    "libstdc++", "libgcc_s", "libpthread", "libdl.",   "libdl-",
    "libffi",    "_ctypes",  "python",     "libpython"};

} // namespace

const char *RunnerGroup(const ResolvedFrame &f) {
  if (!f.python)
    return nullptr;
  if (f.file.empty() || f.file[0] == '<') // <frozen runpy>, <string>
    return "python";
  absl::string_view rest;
  bool stdlib = InStdlib(f.file, &rest);
  if (rest.empty()) { // not under lib/python3: a script such as pytest-3
    if (absl::EndsWith(f.file, "/ownsan/unittest.py")) // python/ownsan
      return "unittest";
    return IsPytestName(BaseName(f.file)) ? "pytest" : nullptr;
  }
  absl::string_view top = rest.substr(0, rest.find('/'));
  if (stdlib)
    return top == "unittest" ? "unittest" : "python";
  return IsPytestName(top) ? "pytest" : nullptr;
}

bool IsOwnFrame(const ResolvedFrame &f) {
  if (f.python)
    return !RunnerGroup(f);
  if (f.module.empty())
    return false;
  std::string base = BaseName(f.module);
  for (const char *prefix : kNotOwnModules)
    if (absl::StartsWith(base, prefix))
      return false;
  return true;
}

namespace {

// The binding a Python file belongs to: its top-level package's directory
// (with a trailing '/'), or the file itself outside a package.
std::string BindingUnit(const std::string &file) {
  std::string dir = DirName(file), top;
  while (!dir.empty() && access((dir + "/__init__.py").c_str(), F_OK) == 0) {
    top = dir;
    dir = DirName(dir);
  }
  return top.empty() ? file : top + "/";
}

bool InUnit(const std::string &file, const std::string &unit) {
  return unit.back() == '/' ? absl::StartsWith(file, unit) : file == unit;
}

} // namespace

const ResolvedFrame *UserFrame(const ResolvedStack &s) {
  const ResolvedFrame *first = nullptr;
  std::string unit;
  for (const ResolvedFrame &f : s) {
    if (!IsOwnFrame(f))
      continue;
    if (!first) {
      first = &f;
      if (!f.python || f.file.empty())
        return first; // native code: its first own frame
      unit = BindingUnit(f.file);
      continue;
    }
    if (f.python && !InUnit(f.file, unit))
      return &f;
  }
  if (first)
    return first;
  return s.empty() ? nullptr : &s.front();
}

std::string ProblemId(const ResolvedReport &r) {
  // Only the program's own frames: the runner's and the interpreter's
  // differ under xdist and between pytest versions, libLLVM's and libc's
  // between machines; directories differ between checkouts. Without debug
  // info, the offset tells two call sites in one function apart.
  std::string key = absl::StrCat(r.kind_name, "|", r.function, "|");
  auto add_stack = [&key](const ResolvedStack &s) {
    for (const ResolvedFrame &f : s) {
      if (!IsOwnFrame(f))
        continue;
      if (!f.file.empty())
        absl::StrAppend(&key, BaseName(f.file), ":", f.line, ":", f.function,
                        ";");
      else
        absl::StrAppend(&key, BaseName(f.module), ":0x", absl::Hex(f.offset),
                        ":", f.function, ";");
    }
    key += "|";
  };
  add_stack(r.use);
  add_stack(r.free.stack);
  // FNV-1a: stable across runs and builds (absl::Hash is seeded).
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

std::string StackText(const ResolvedStack &s, bool fold) {
  if (s.empty())
    return "    <no stack recorded>\n";
  std::string out;
  for (size_t n = 0; n < s.size(); ++n) {
    const ResolvedFrame &f = s[n];
    size_t end = n;
    std::vector<std::string> groups;
    while (fold && end < s.size() && RunnerGroup(s[end])) {
      std::string g = RunnerGroup(s[end]);
      if (std::find(groups.begin(), groups.end(), g) == groups.end())
        groups.push_back(g);
      ++end;
    }
    if (end - n >= 2) {
      absl::StrAppend(&out, "    ... ", end - n, " frames in ",
                      absl::StrJoin(groups, ", "), "\n");
      n = end - 1;
      continue;
    }
    if (f.python) {
      absl::StrAppend(&out, "    #", n, " ", f.file, ":", f.line, " in ",
                      f.function, " (python)\n");
      continue;
    }
    std::string fn = f.function.empty() ? "<unknown>" : f.function;
    std::string where =
        !f.file.empty()
            ? absl::StrCat(f.file, ":", f.line,
                           f.column ? absl::StrCat(":", f.column) : "")
            : absl::StrCat("(", f.module, "+0x", absl::Hex(f.offset), ")");
    absl::StrAppend(&out, "    #", n, " 0x", absl::Hex(f.pc), " in ", fn, " ",
                    where, "\n");
  }
  return out;
}

} // namespace ownsan
