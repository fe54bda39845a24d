//===- generated_wrappers_test.cpp ---------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Checks the artifacts of *this* build against the libraries they describe:
// the files tools/gen_wrappers.py wrote into build/gen (coverage.txt,
// classification.txt, symbols.c, fn_ids.h), the runtime built from them
// (libownsan.so), the libLLVM it wraps, the ownership spec and the version
// script. tests/unit/test_gen_wrappers.py tests the generator on made-up
// inputs; this test looks at what it actually produced.
//
// Paths and the LLVM major come from compile definitions (see
// tests/unit/CMakeLists.txt). Symbols are read with `nm -D --defined-only`.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#ifndef OWNSAN_GEN_DIR
#error "OWNSAN_GEN_DIR (the generator's output directory) must be defined"
#endif

namespace {

const std::string kGenDir = OWNSAN_GEN_DIR;
const std::string kRuntime = OWNSAN_RUNTIME;
const std::string kLibLLVM = OWNSAN_LIBLLVM;
const std::string kSpec = OWNSAN_SPEC;
const std::string kVersionScript = OWNSAN_VERSION_SCRIPT;
constexpr int kLLVMMajor = OWNSAN_LLVM_MAJOR;

using NameSet = std::set<std::string>;

//===-- Helpers -----------------------------------------------------------===//

// Reads a whole file; false if it cannot be opened.
bool ReadFile(const std::string &path, std::string *text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::vector<std::string> Words(const std::string &line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

bool StartsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string Quote(const std::string &path) {
  std::string q = "'";
  for (char c : path)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command; false (and *output = the error) if it fails.
bool RunCommand(const std::string &cmd, std::string *output) {
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) {
    *output = "popen failed: " + std::string(std::strerror(errno));
    return false;
  }
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int status = pclose(p);
  *output = out;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *output =
        "`" + cmd + "` failed (status " + std::to_string(status) + "): " + out;
    return false;
  }
  return true;
}

struct DynamicSymbol {
  char type;           // nm's letter: T, W, i, D, B, A, ...
  std::string name;    // without the @VERSION / @@VERSION suffix
  std::string version; // VERSION, or "" for an unversioned symbol
};

// The defined dynamic symbols of a shared library (`nm -D --defined-only`).
std::vector<DynamicSymbol> DefinedDynamicSymbols(const std::string &lib) {
  std::string out;
  if (!RunCommand("nm -D --defined-only " + Quote(lib) + " 2>&1", &out)) {
    ADD_FAILURE() << out;
    return {};
  }
  std::vector<DynamicSymbol> syms;
  for (const std::string &line : Lines(out)) {
    std::vector<std::string> w = Words(line);
    if (w.size() < 2 || w[w.size() - 2].size() != 1)
      continue;
    std::string name = w.back();
    size_t at = name.find('@');
    std::string version =
        at == std::string::npos ? "" : name.substr(name.find_last_of('@') + 1);
    name = name.substr(0, at);
    // A version node's own definition (`A LLVM_19.1`) is no export.
    if (w[w.size() - 2] == "A" && version.empty())
      continue;
    syms.push_back({w[w.size() - 2][0], name, version});
  }
  if (syms.empty())
    ADD_FAILURE() << "nm -D found no defined dynamic symbols in " << lib;
  return syms;
}

// The LLVM* functions a library exports (code symbols: T, W, i).
NameSet ExportedLLVMFunctions(const std::string &lib) {
  NameSet names;
  for (const DynamicSymbol &s : DefinedDynamicSymbols(lib))
    if ((s.type == 'T' || s.type == 'W' || s.type == 'i') &&
        StartsWith(s.name, "LLVM"))
      names.insert(s.name);
  return names;
}

// Success if `problems` is empty; else one failure that lists the first few
// (a broken build can have a thousand of the same problem).
::testing::AssertionResult
NoProblems(const std::vector<std::string> &problems) {
  if (problems.empty())
    return ::testing::AssertionSuccess();
  constexpr size_t kShown = 20;
  ::testing::AssertionResult r = ::testing::AssertionFailure();
  r << problems.size() << " problem(s):";
  for (size_t i = 0; i < problems.size() && i < kShown; ++i)
    r << "\n  " << problems[i];
  if (problems.size() > kShown)
    r << "\n  ... and " << problems.size() - kShown << " more";
  return r;
}

std::string Join(const std::vector<std::string> &items, const char *sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? sep : "") + items[i];
  return s;
}

//===-- coverage.txt ------------------------------------------------------===//

struct Coverage {
  std::map<std::string, long> counts; // llvm_major, exported, declared, wrapped
  std::map<std::string, std::vector<std::string>> lists; // by line keyword
  // "(N)" of each "# ..." line that introduces a list, by the list keyword.
  std::map<std::string, long> header_counts;
};

bool ParseCoverage(Coverage *cov, std::string *error) {
  std::string text;
  std::string path = kGenDir + "/coverage.txt";
  if (!ReadFile(path, &text)) {
    *error = "cannot read " + path;
    return false;
  }
  static const std::pair<const char *, const char *> kHeaders[] = {
      {"# exported by libLLVM but not declared", "exported_not_declared"},
      {"# declared in the llvm-c headers but not exported",
       "declared_not_exported"},
      {"# spec entries for this version whose function is not wrapped",
       "spec_not_wrapped"},
  };
  static const std::regex kCountInParens(R"(\((\d+)\))");
  for (const std::string &line : Lines(text)) {
    if (line.empty())
      continue;
    if (line[0] == '#') {
      for (const auto &[start, key] : kHeaders) {
        std::smatch m;
        if (StartsWith(line, start) &&
            std::regex_search(line, m, kCountInParens))
          cov->header_counts[key] = std::stol(m[1]);
      }
      continue;
    }
    std::vector<std::string> w = Words(line);
    if (w.size() != 2) {
      *error = "unexpected line in " + path + ": " + line;
      return false;
    }
    if (w[0] == "llvm_major" || w[0] == "exported" || w[0] == "declared" ||
        w[0] == "wrapped") {
      if (w[1].find_first_not_of("0123456789") != std::string::npos) {
        *error = "not a count in " + path + ": " + line;
        return false;
      }
      cov->counts[w[0]] = std::stol(w[1]);
    } else {
      cov->lists[w[0]].push_back(w[1]);
    }
  }
  for (const char *key : {"llvm_major", "exported", "declared", "wrapped"})
    if (!cov->counts.count(key)) {
      *error = path + " has no '" + key + " N' line";
      return false;
    }
  return true;
}

TEST(GeneratedCoverage, EveryExportedFunctionIsWrappedOrListedAsUndeclared) {
  Coverage cov;
  std::string error;
  ASSERT_TRUE(ParseCoverage(&cov, &error)) << error;
  NameSet exported = ExportedLLVMFunctions(kLibLLVM);
  NameSet wrappers = ExportedLLVMFunctions(kRuntime);
  ASSERT_FALSE(exported.empty()) << kLibLLVM;
  ASSERT_FALSE(wrappers.empty()) << kRuntime;
  const std::vector<std::string> &listed = cov.lists["exported_not_declared"];
  NameSet undeclared(listed.begin(), listed.end());
  EXPECT_EQ(undeclared.size(), listed.size())
      << "a name is listed twice as exported_not_declared";

  std::vector<std::string> problems;
  for (const std::string &name : exported) {
    bool wrapped = wrappers.count(name) != 0;
    bool is_listed = undeclared.count(name) != 0;
    if (!wrapped && !is_listed)
      problems.push_back(name +
                         " is exported by libLLVM but neither wrapped "
                         "nor listed in coverage.txt as exported_not_declared");
    if (wrapped && is_listed)
      problems.push_back(name + " is wrapped but coverage.txt lists it as "
                                "exported_not_declared");
  }
  for (const std::string &name : wrappers)
    if (!exported.count(name))
      problems.push_back("libownsan.so exports " + name +
                         ", which libLLVM "
                         "does not (a wrapper with nothing to forward to)");
  for (const std::string &name : undeclared)
    if (!exported.count(name))
      problems.push_back("coverage.txt lists " + name +
                         " as "
                         "exported_not_declared, but libLLVM does not export "
                         "it");
  for (const std::string &name : cov.lists["declared_not_exported"]) {
    if (exported.count(name))
      problems.push_back("coverage.txt lists " + name +
                         " as "
                         "declared_not_exported, but libLLVM exports it");
    if (wrappers.count(name))
      problems.push_back(name + " is declared_not_exported but wrapped");
  }
  EXPECT_TRUE(NoProblems(problems))
      << "libLLVM: " << kLibLLVM << "\nruntime: " << kRuntime;
}

TEST(GeneratedCoverage, CountsMatchTheLibraries) {
  Coverage cov;
  std::string error;
  ASSERT_TRUE(ParseCoverage(&cov, &error)) << error;
  NameSet exported = ExportedLLVMFunctions(kLibLLVM);
  NameSet wrappers = ExportedLLVMFunctions(kRuntime);
  long undeclared =
      static_cast<long>(cov.lists["exported_not_declared"].size());
  long not_exported =
      static_cast<long>(cov.lists["declared_not_exported"].size());

  EXPECT_EQ(cov.counts["llvm_major"], kLLVMMajor);
  EXPECT_EQ(cov.counts["exported"], static_cast<long>(exported.size()))
      << "LLVM* functions exported by " << kLibLLVM;
  EXPECT_EQ(cov.counts["wrapped"], static_cast<long>(wrappers.size()))
      << "LLVM* functions exported by " << kRuntime;
  EXPECT_EQ(cov.counts["exported"], cov.counts["wrapped"] + undeclared)
      << "exported = wrapped + exported_not_declared";
  EXPECT_EQ(cov.counts["declared"], cov.counts["wrapped"] + not_exported)
      << "declared = wrapped + declared_not_exported";

  // The "(N)" of each list's header is its length.
  for (const char *key :
       {"exported_not_declared", "declared_not_exported", "spec_not_wrapped"}) {
    ASSERT_TRUE(cov.header_counts.count(key))
        << "coverage.txt: no '# ... (N)' header for " << key;
    EXPECT_EQ(cov.header_counts[key], static_cast<long>(cov.lists[key].size()))
        << key;
  }
  // Every list keyword is one of the known ones.
  for (const auto &[key, names] : cov.lists)
    EXPECT_TRUE(cov.header_counts.count(key))
        << "coverage.txt: unknown line keyword " << key << " (" << names[0]
        << ")";
}

//===-- libownsan.so's exports --------------------------------------------===//

// operator new/new[]/delete/delete[] in every variant (Itanium mangling).
bool IsOperatorNewOrDelete(const std::string &name) {
  for (const char *prefix : {"_Znw", "_Zna", "_Zdl", "_Zda"})
    if (StartsWith(name, prefix))
      return true;
  return false;
}

// longjmp and its siblings, and the C++ catch (interpose/jump_entry.c).
bool IsJumpInterposer(const std::string &name) {
  return name == "longjmp" || name == "_longjmp" || name == "siglongjmp" ||
         name == "__longjmp_chk" || name == "__cxa_begin_catch";
}

// sigaction and the signal() family (interpose/signal_entry.cpp).
bool IsSignalInterposer(const std::string &name) {
  return name == "sigaction" || name == "signal" || name == "bsd_signal" ||
         name == "sysv_signal" || name == "__sysv_signal";
}

// The functions of include/ownsan/ownsan.h.
bool IsPublicApi(const std::string &name) {
  return name == "ownsan_handle_state" || name == "ownsan_describe_handle" ||
         name == "ownsan_set_error_callback";
}

TEST(RuntimeExports, OnlyLLVMFunctionsDlsymAndOperatorNewDelete) {
  std::vector<DynamicSymbol> syms = DefinedDynamicSymbols(kRuntime);
  ASSERT_FALSE(syms.empty());
  NameSet names;
  std::vector<std::string> problems;
  for (const DynamicSymbol &s : syms) {
    names.insert(s.name);
    bool allowed = StartsWith(s.name, "LLVM") || s.name == "dlsym" ||
                   s.name == "dlvsym" || IsJumpInterposer(s.name) ||
                   IsSignalInterposer(s.name) || IsPublicApi(s.name) ||
                   IsOperatorNewOrDelete(s.name);
    if (!allowed)
      problems.push_back("exports " + s.name + " (nm type " +
                         std::string(1, s.type) + ")");
    else if (s.type != 'T')
      problems.push_back("exports " + s.name + " as nm type " +
                         std::string(1, s.type) + ", not a function (T)");
  }
  // The interposers themselves must be there.
  for (const char *required :
       {"dlsym", "dlvsym", "longjmp", "siglongjmp", "__cxa_begin_catch",
        "sigaction", "signal", "_Znwm", "_Znam"})
    if (!names.count(required))
      problems.push_back("does not export " + std::string(required));
  EXPECT_TRUE(NoProblems(problems))
      << kRuntime
      << " may export only LLVM*, dlsym, dlvsym, longjmp & co. and "
         "__cxa_begin_catch, "
      << "sigaction & co., the "
      << "include/ownsan/ownsan.h API and operator new/delete (see "
      << kVersionScript << ")";
}

// The generated version script: its version node ("" if anonymous) and
// its global: and local: patterns ("LLVM*" or exact names).
struct VersionScript {
  std::string node;
  std::vector<std::string> global, local;
};

bool ParseVersionScript(VersionScript *script, std::string *error) {
  std::string text;
  if (!ReadFile(kVersionScript, &text)) {
    *error = "cannot read " + kVersionScript;
    return false;
  }
  // Drop /* ... */ comments.
  for (size_t a; (a = text.find("/*")) != std::string::npos;) {
    size_t b = text.find("*/", a + 2);
    text.erase(a, b == std::string::npos ? std::string::npos : b + 2 - a);
  }
  enum { kNone, kGlobal, kLocal } section = kNone;
  for (std::string word : Words(text)) {
    if (word == "global:") {
      section = kGlobal;
    } else if (word == "local:") {
      section = kLocal;
    } else if (word == "{" || word == "};" || word == "}") {
      continue;
    } else if (section == kNone) {
      script->node = word;
    } else if (!word.empty() && word.back() == ';') {
      word.pop_back();
      (section == kGlobal ? script->global : script->local).push_back(word);
    }
  }
  if (script->global.empty()) {
    *error = kVersionScript + ": no global: names";
    return false;
  }
  return true;
}

bool MatchesPattern(const std::string &name, const std::string &pattern) {
  if (!pattern.empty() && pattern.back() == '*')
    return StartsWith(name, pattern.substr(0, pattern.size() - 1));
  return name == pattern;
}

// The wrappers carry the wrapped libLLVM's symbol version, so a program's
// reference to another major's version (LLVMFoo@LLVM_14) passes them by;
// the other interposers stay unversioned, so they catch references of any
// version (dlsym@GLIBC_2.34, _Znwm@GLIBCXX_3.4).
TEST(RuntimeExports, MatchTheVersionScript) {
  VersionScript script;
  std::string error;
  ASSERT_TRUE(ParseVersionScript(&script, &error)) << error;
  std::vector<std::string> problems;
  if (script.global != std::vector<std::string>{"LLVM*"})
    problems.push_back("the script's global: is not just LLVM*");
  // The script's local: patterns hide no interposer.
  for (const std::string &p : script.local)
    for (const char *kept : {"dlsym", "dlvsym", "ownsan_handle_state", "_Znwm",
                             "_Znam", "_ZdlPv", "_ZdaPv"})
      if (p == "*" || MatchesPattern(kept, p))
        problems.push_back("local: " + p + " hides " + kept);

  std::string llvm_version;
  for (const DynamicSymbol &s : DefinedDynamicSymbols(kLibLLVM))
    if (s.name == "LLVMContextCreate")
      llvm_version = s.version;
  if (llvm_version != script.node)
    problems.push_back("the script's version node is '" + script.node +
                       "' but " + kLibLLVM + " exports LLVMContextCreate@@" +
                       llvm_version);
  for (const DynamicSymbol &s : DefinedDynamicSymbols(kRuntime)) {
    if (StartsWith(s.name, "LLVM")) {
      if (s.version != llvm_version)
        problems.push_back(s.name + " has version '" + s.version + "', not '" +
                           llvm_version + "'");
    } else if (!s.version.empty()) {
      problems.push_back(s.name + " has version '" + s.version +
                         "': it must stay unversioned to interpose every "
                         "version's references");
    }
  }
  EXPECT_TRUE(NoProblems(problems))
      << "script: " << kVersionScript << "\nlibrary: " << kRuntime;
}

//===-- classification.txt ------------------------------------------------===//

// name -> field -> value, e.g. "effects" -> "[free(0)]". A line is
// "Name key=value key=[a b c] ..."; values may hold spaces inside [...].
using Classification =
    std::map<std::string, std::map<std::string, std::string>>;

bool ParseClassification(Classification *cls, std::string *error) {
  std::string text;
  std::string path = kGenDir + "/classification.txt";
  if (!ReadFile(path, &text)) {
    *error = "cannot read " + path;
    return false;
  }
  for (const std::string &line : Lines(text)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> tokens;
    std::string cur;
    int depth = 0;
    for (char c : line) {
      if (c == ' ' && depth == 0) {
        if (!cur.empty())
          tokens.push_back(cur);
        cur.clear();
        continue;
      }
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      cur += c;
    }
    if (!cur.empty())
      tokens.push_back(cur);
    if (depth != 0 || tokens.size() < 2) {
      *error = "malformed line in " + path + ": " + line;
      return false;
    }
    auto &fields = (*cls)[tokens[0]];
    if (!fields.empty()) {
      *error = path + " has two lines for " + tokens[0];
      return false;
    }
    for (size_t i = 1; i < tokens.size(); ++i) {
      size_t eq = tokens[i].find('=');
      if (eq == std::string::npos) {
        *error = "field without '=' in " + path + ": " + line;
        return false;
      }
      fields[tokens[i].substr(0, eq)] = tokens[i].substr(eq + 1);
    }
  }
  if (cls->empty()) {
    *error = path + " lists no functions";
    return false;
  }
  return true;
}

TEST(GeneratedClassification, KeyFunctionsFollowTheSpec) {
  Classification cls;
  std::string error;
  ASSERT_TRUE(ParseClassification(&cls, &error)) << error;
  auto field = [&](const char *fn, const char *key) -> std::string {
    auto it = cls.find(fn);
    if (it == cls.end())
      return "<" + std::string(fn) + " not in classification.txt>";
    auto f = it->second.find(key);
    return f == it->second.end() ? "<no " + std::string(key) + "= field>"
                                 : f->second;
  };

  EXPECT_EQ(field("LLVMDisposeModule", "effects"), "[free(0)]");
  EXPECT_EQ(field("LLVMDisposeModule", "args"), "[0:Module]");
  if (kLLVMMajor >= 15) {
    EXPECT_EQ(field("LLVMDeleteInstruction", "effects"), "[free_detached(0)]");
  } else {
    // Not declared before 15 (spec: since=15), so not wrapped at all.
    EXPECT_EQ(cls.count("LLVMDeleteInstruction"), 0u)
        << "LLVMDeleteInstruction is classified in LLVM " << kLLVMMajor;
  }
  EXPECT_EQ(field("LLVMInstructionRemoveFromParent", "effects"), "[detach(0)]");
  // LLVMBuildCall2(Builder, Ty, Fn, Args, NumArgs, Name): Args is an input
  // array of NumArgs values, each checked.
  EXPECT_EQ(field("LLVMBuildCall2", "arrays"), "[3:Value[4]]");
  EXPECT_EQ(field("LLVMBuildCall2", "ret"), "Value");
  // LLVMGetParams(Fn, Params) fills LLVMCountParams(Fn) handles.
  EXPECT_EQ(field("LLVMGetParams", "effects"),
            "[out_array(1,count=LLVMCountParams(0))]");
}

struct SpecEntry {
  std::string function;
  std::vector<std::string> effects;
  int since = 0, until = 1 << 30;
  int line = 0;
};

bool ParseSpec(std::vector<SpecEntry> *entries, std::string *error) {
  std::string text;
  if (!ReadFile(kSpec, &text)) {
    *error = "cannot read " + kSpec;
    return false;
  }
  int line_no = 0;
  for (std::string line : Lines(text)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    std::vector<std::string> w = Words(line);
    if (w.empty())
      continue;
    SpecEntry e;
    e.function = w[0];
    e.line = line_no;
    for (size_t i = 1; i < w.size(); ++i) {
      if (StartsWith(w[i], "since="))
        e.since = std::atoi(w[i].c_str() + 6);
      else if (StartsWith(w[i], "until="))
        e.until = std::atoi(w[i].c_str() + 6);
      else
        e.effects.push_back(w[i]);
    }
    if (e.effects.empty()) {
      *error = kSpec + ":" + std::to_string(line_no) + ": no effect";
      return false;
    }
    entries->push_back(e);
  }
  if (entries->empty()) {
    *error = kSpec + " has no entries";
    return false;
  }
  return true;
}

TEST(GeneratedClassification, AgreesWithEverySpecEntryOfThisVersion) {
  Classification cls;
  std::vector<SpecEntry> spec;
  Coverage cov;
  std::string error;
  ASSERT_TRUE(ParseClassification(&cls, &error)) << error;
  ASSERT_TRUE(ParseSpec(&spec, &error)) << error;
  ASSERT_TRUE(ParseCoverage(&cov, &error)) << error;
  const std::vector<std::string> &not_wrapped = cov.lists["spec_not_wrapped"];

  std::map<std::string, std::string> expected; // function -> "[e1 e2]"
  for (const SpecEntry &e : spec) {
    if (kLLVMMajor < e.since || kLLVMMajor > e.until)
      continue;
    std::string where = kSpec + ":" + std::to_string(e.line);
    EXPECT_FALSE(expected.count(e.function))
        << where << ": second entry for " << e.function;
    expected[e.function] = "[" + Join(e.effects, " ") + "]";
  }
  ASSERT_FALSE(expected.empty());
  std::vector<std::string> problems;
  for (const auto &[fn, effects] : expected) {
    bool listed = std::find(not_wrapped.begin(), not_wrapped.end(), fn) !=
                  not_wrapped.end();
    auto it = cls.find(fn);
    if (listed) {
      if (it != cls.end())
        problems.push_back(fn + " is spec_not_wrapped but classified");
    } else if (it == cls.end()) {
      problems.push_back(fn +
                         ": the spec entry applies, but the function is "
                         "not in classification.txt (nor spec_not_wrapped in "
                         "coverage.txt)");
    } else if (it->second["effects"] != effects) {
      problems.push_back(fn + ": effects=" + it->second["effects"] +
                         ", the spec says " + effects);
    }
  }
  // No function has effects the spec does not give it for this version.
  for (auto &[fn, fields] : cls)
    if (fields["effects"] != "[]" && !expected.count(fn))
      problems.push_back(fn + " has effects=" + fields["effects"] +
                         " but no spec entry applies");
  EXPECT_TRUE(NoProblems(problems))
      << "classification.txt vs " << kSpec << " for LLVM " << kLLVMMajor;
}

//===-- symbols.c and kFnNames -------------------------------------------===//

// Row i: FnId i, its name (the i-th of wrappers.cpp's kFnNames) and the
// wrapper symbols.c gives it (the i-th of ownsan_wrapper_offsets).
struct SymbolRow {
  std::string name, wrapper;
  long fn;
  int line; ///< of symbols.c
};

bool ParseSymbolTable(std::vector<SymbolRow> *rows, std::string *error) {
  std::string symbols, wrappers_cpp;
  std::string path = kGenDir + "/symbols.c";
  if (!ReadFile(path, &symbols) ||
      !ReadFile(kGenDir + "/wrappers.cpp", &wrappers_cpp)) {
    *error = "cannot read " + path + " or wrappers.cpp";
    return false;
  }
  // wrappers.cpp: const char kFnNames[] = "A\0" "B\0" ... ;
  std::vector<std::string> names;
  static const std::regex kName(R"re(\s*"(\w+)\\0"(;?)\s*)re");
  bool in_names = false, names_done = false;
  for (const std::string &line : Lines(wrappers_cpp)) {
    std::smatch m;
    if (line.find("const char kFnNames[] =") != std::string::npos) {
      in_names = true;
    } else if (in_names) {
      if (!std::regex_match(line, m, kName)) {
        *error = "wrappers.cpp: not a kFnNames row: " + line;
        return false;
      }
      names.push_back(m[1]);
      if (m[2] == ";") {
        in_names = false;
        names_done = true;
      }
    }
  }
  if (!names_done) {
    *error = "wrappers.cpp: no complete 'kFnNames[] = ...;'";
    return false;
  }
  // symbols.c: ownsan_wrapper_offsets, in its assembler, one row a wrapper:
  //   "  .long ownsan_wrapper_LLVMFoo - ownsan_wrapper_offsets\n"
  static const std::regex kRow(
      R"re(\s*"  \.long (\w+) - ownsan_wrapper_offsets\\n"\s*)re");
  bool in_table = false, seen_table = false;
  int line_no = 0;
  for (const std::string &line : Lines(symbols)) {
    ++line_no;
    std::smatch m;
    if (line.find("\"ownsan_wrapper_offsets:\\n\"") != std::string::npos) {
      in_table = seen_table = true;
    } else if (in_table &&
               line.find(".size ownsan_wrapper_offsets") != std::string::npos) {
      in_table = false;
    } else if (in_table) {
      if (!std::regex_match(line, m, kRow)) {
        *error =
            path + ":" + std::to_string(line_no) + ": not a table row: " + line;
        return false;
      }
      size_t i = rows->size();
      if (i >= names.size()) {
        *error = path + ": more wrappers than kFnNames has names";
        return false;
      }
      rows->push_back({names[i], m[1], static_cast<long>(i), line_no});
    }
  }
  if (!seen_table || in_table) {
    *error = path + ": no complete 'ownsan_wrapper_offsets: ... .size' table";
    return false;
  }
  if (rows->size() != names.size()) {
    *error = path + ": fewer wrappers than kFnNames has names";
    return false;
  }
  return true;
}

TEST(GeneratedSymbolTable, IsSortedByStrcmp) {
  std::vector<SymbolRow> rows;
  std::string error;
  ASSERT_TRUE(ParseSymbolTable(&rows, &error)) << error;
  ASSERT_FALSE(rows.empty());
  // The dlsym interposer and link mode binary-search kFnNames by FnId with
  // strcmp: strictly increasing, no duplicates.
  int unsorted = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (std::strcmp(rows[i - 1].name.c_str(), rows[i].name.c_str()) >= 0 &&
        ++unsorted <= 5)
      ADD_FAILURE() << "symbols.c:" << rows[i].line << ": \"" << rows[i].name
                    << "\" comes after \"" << rows[i - 1].name
                    << "\"; the table must be in strictly increasing strcmp "
                    << "order";
  }
  EXPECT_EQ(unsorted, 0) << "rows out of order";
}

TEST(GeneratedSymbolTable, ListsExactlyTheWrappersWithTheirIds) {
  std::vector<SymbolRow> rows;
  std::string error;
  ASSERT_TRUE(ParseSymbolTable(&rows, &error)) << error;

  // fn_ids.h: "kFn_<Name> = <id>,".
  std::string ids_text;
  ASSERT_TRUE(ReadFile(kGenDir + "/fn_ids.h", &ids_text));
  std::map<std::string, long> ids;
  static const std::regex kId(R"(\s*kFn_(\w+) = (\d+),\s*)");
  for (const std::string &line : Lines(ids_text)) {
    std::smatch m;
    if (std::regex_match(line, m, kId))
      ids[m[1]] = std::stol(m[2]);
  }
  EXPECT_EQ(ids.size(), rows.size()) << "fn_ids.h vs symbols.c";

  NameSet wrappers = ExportedLLVMFunctions(kRuntime);
  NameSet in_table;
  std::vector<std::string> problems;
  for (const SymbolRow &r : rows) {
    std::string where = "symbols.c:" + std::to_string(r.line) + ": ";
    in_table.insert(r.name);
    // (The wrapper's hidden alias: see RelocatesWithoutSymbolLookups.)
    if ("ownsan_wrapper_" + r.name != r.wrapper)
      problems.push_back(where + "FnId " + std::to_string(r.fn) + " (\"" +
                         r.name + "\") has the wrapper " + r.wrapper);
    auto it = ids.find(r.name);
    if (it == ids.end())
      problems.push_back(where + r.name + " has no kFn_ id in fn_ids.h");
    else if (it->second != r.fn)
      problems.push_back(where + r.name + " has id " + std::to_string(r.fn) +
                         ", fn_ids.h says " + std::to_string(it->second));
    if (!wrappers.count(r.name))
      problems.push_back(where + r.name + " is not exported by the runtime");
  }
  for (const std::string &name : wrappers)
    if (!in_table.count(name))
      problems.push_back("the runtime exports " + name +
                         ", which symbols.c "
                         "does not list (dlsym would bypass its wrapper)");
  EXPECT_TRUE(NoProblems(problems)) << "runtime: " << kRuntime;
}

// Nothing names an exported wrapper in a relocation: a pointer to one would
// be a symbol look-up at every process start, one per wrapper (about 1,300
// of them: 0.8 M instructions of the preload's start-up). The wrapper table
// reaches them through hidden aliases.
TEST(GeneratedSymbolTable, RelocatesWithoutSymbolLookups) {
  std::string out;
  ASSERT_TRUE(RunCommand("readelf -rW " + Quote(kRuntime) + " 2>&1", &out))
      << out;
  std::vector<std::string> symbolic;
  size_t relocations = 0;
  for (const std::string &line : Lines(out)) {
    std::vector<std::string> w = Words(line);
    // offset, info, type, then the addend (relative) or the symbol's value
    // and name [+ addend]
    if (w.size() < 4 || !StartsWith(w[2], "R_X86_64_"))
      continue;
    ++relocations;
    if (w.size() >= 5 &&
        (w[2] == "R_X86_64_64" || w[2] == "R_X86_64_GLOB_DAT") &&
        StartsWith(w[4], "LLVM"))
      symbolic.push_back(w[2] + " " + w[4]);
  }
  EXPECT_GT(relocations, 100u) << "readelf -r listed too little:\n" << out;
  EXPECT_TRUE(NoProblems(symbolic))
      << "relocations against the runtime's exported LLVM-C names in "
      << kRuntime;
  // The aliases are the runtime's own: not exported.
  for (const DynamicSymbol &sym : DefinedDynamicSymbols(kRuntime))
    EXPECT_FALSE(StartsWith(sym.name, "ownsan_wrapper_")) << sym.name;
}

// The per-function tables hold offsets, not pointers: the dynamic loader
// writes no relocation into them, so their pages are not copied and
// faulted in at every process start (sixteen pages of pointers were; the
// wrapper table's pointers, one relocation per wrapper, four more).
TEST(GeneratedSymbolTable, FunctionTablesNeedNoRelocation) {
  std::string nm, relocs;
  ASSERT_TRUE(
      RunCommand("nm -S --defined-only " + Quote(kRuntime) + " 2>&1", &nm))
      << nm;
  ASSERT_TRUE(RunCommand("readelf -rW " + Quote(kRuntime) + " 2>&1", &relocs))
      << relocs;
  std::map<std::string, std::pair<uint64_t, uint64_t>> tables; // [lo, hi)
  for (const std::string &line : Lines(nm)) {
    std::vector<std::string> w = Words(line); // address size type name
    if (w.size() == 4 &&
        (w[3] == "_ZN6ownsan7kFnInfoE" || w[3] == "_ZN6ownsan8kFnNamesE" ||
         w[3] == "ownsan_wrapper_offsets")) {
      uint64_t lo = std::stoull(w[0], nullptr, 16);
      tables[w[3]] = {lo, lo + std::stoull(w[1], nullptr, 16)};
    }
  }
  ASSERT_TRUE(tables.count("_ZN6ownsan7kFnInfoE"))
      << "kFnInfo not found by nm in " << kRuntime;
  EXPECT_TRUE(tables.count("_ZN6ownsan8kFnNamesE"))
      << "kFnNames not found by nm in " << kRuntime;
  EXPECT_TRUE(tables.count("ownsan_wrapper_offsets"))
      << "ownsan_wrapper_offsets not found by nm in " << kRuntime;
  size_t inside = 0, relocations = 0;
  for (const std::string &line : Lines(relocs)) {
    std::vector<std::string> w = Words(line);
    if (w.size() < 3 || !StartsWith(w[2], "R_X86_64_"))
      continue;
    ++relocations;
    uint64_t at = std::stoull(w[0], nullptr, 16);
    for (const auto &[name, range] : tables)
      if (at >= range.first && at < range.second && ++inside <= 5)
        ADD_FAILURE() << "a relocation at 0x" << w[0] << " in " << name;
  }
  EXPECT_GT(relocations, 100u) << "readelf -r listed too little";
  EXPECT_EQ(inside, 0u) << "relocations inside the function tables";
}

} // namespace
