//===- suppressions.cpp - Sanitizer-style suppression files --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "report/suppressions.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ownsan {

bool IsSuppressionType(const std::string &type) {
  // (leak: LeakSanitizer's, for report_leaks=1.)
  if (type == "fun" || type == "src" || type == "lib" || type == "leak")
    return true;
#define OWNSAN_ERROR_KIND(Id, Name, Harm, SarifLevel, Anchor, Meaning,         \
                          Details, Hint)                                       \
  if (type == ErrorKindName(ErrorKind::Id))                                    \
    return true;
#include "report/error_kinds.def"
#undef OWNSAN_ERROR_KIND
  return false;
}

namespace {

// The sanitizers' TemplateMatch: a substring, unless anchored with `^` (the
// start) or `$` (the end).
std::string Glob(absl::string_view pattern) {
  bool at_start = absl::ConsumePrefix(&pattern, "^");
  bool at_end = absl::ConsumeSuffix(&pattern, "$");
  return absl::StrCat(at_start ? "" : "*", pattern, at_end ? "" : "*");
}

} // namespace

bool Suppressions::Parse(const std::string &text, const std::string &source,
                         std::string *error) {
  std::vector<Suppression> rules;
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#')
      continue;
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) {
      *error = absl::StrCat(source, ":", line_no,
                            ": expected TYPE:PATTERN, got '", line, "'");
      return false;
    }
    std::string type(absl::StripAsciiWhitespace(line.substr(0, colon)));
    std::string pattern(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (!IsSuppressionType(type)) {
      *error = absl::StrCat(
          source, ":", line_no, ": unknown suppression type '", type,
          "' (expected fun, src, lib, leak or an error kind)");
      return false;
    }
    if (pattern.empty()) {
      *error = absl::StrCat(source, ":", line_no, ": empty pattern after '",
                            type, ":'");
      return false;
    }
    rules.push_back({type, pattern, Glob(pattern), line_no, 0});
  }
  rules_ = std::move(rules);
  return true;
}

bool Suppressions::Load(const std::string &path, std::string *error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = absl::StrCat("cannot read suppressions file '", path,
                          "': ", strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *error = absl::StrCat("cannot read suppressions file '", path,
                          "': not a regular file");
    return false;
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *error = absl::StrCat("cannot read suppressions file '", path,
                            "': ", strerror(errno));
      close(fd);
      return false;
    }
    text.append(buf, n);
  }
  close(fd);
  return Parse(text, path, error);
}

namespace {

bool Matches(const std::string &glob, const std::string &name) {
  return !name.empty() && fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

bool StackMatches(const Suppression &s, const ResolvedStack &stack) {
  // (A kind's rule names a function, a file or a module.)
  bool any = s.type != "fun" && s.type != "src" && s.type != "lib";
  for (const ResolvedFrame &f : stack) {
    if ((any || s.type == "fun") && Matches(s.glob, f.function))
      return true;
    if ((any || s.type == "src") && Matches(s.glob, f.file))
      return true;
    if ((any || s.type == "lib") && Matches(s.glob, f.module))
      return true;
  }
  return false;
}

} // namespace

const Suppression *Suppressions::Match(const ResolvedReport &r) {
  for (Suppression &s : rules_) {
    bool by_kind = s.type != "fun" && s.type != "src" && s.type != "lib";
    // (Leaks answer to leak: rules only, as in LeakSanitizer.)
    if ((by_kind || r.kind_name == "leak") && s.type != r.kind_name)
      continue;
    bool hit = ((s.type == "fun" || by_kind) && Matches(s.glob, r.function)) ||
               StackMatches(s, r.use) || StackMatches(s, r.free.stack) ||
               StackMatches(s, r.create.stack);
    if (hit) {
      ++s.hits;
      return &s;
    }
  }
  return nullptr;
}

} // namespace ownsan
