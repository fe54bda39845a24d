//===- flags_test.cpp ----------------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "runtime/flags.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

namespace ownsan {
namespace {

TEST(Flags, Defaults) {
  Flags f;
  EXPECT_TRUE(f.abort_on_error);
  EXPECT_EQ(f.exitcode, 1);
  EXPECT_EQ(f.malloc_context_size, 24);
}

TEST(Flags, ParsesColonAndSpaceSeparatedPairs) {
  Flags f;
  std::string err;
  ASSERT_TRUE(ParseFlags("abort_on_error=0:exitcode=23 verbosity=1", &f, &err))
      << err;
  EXPECT_FALSE(f.abort_on_error);
  EXPECT_EQ(f.exitcode, 23);
  EXPECT_EQ(f.verbosity, 1);
}

// The separators and quotes of compiler-rt's FlagParser (ASAN_OPTIONS).
TEST(Flags, ParsesTheSanitizersSeparatorsAndQuotes) {
  Flags f;
  std::string err;
  ASSERT_TRUE(ParseFlags(",abort_on_error=0,exitcode=23\tverbosity=1\r\n"
                         "log_path='/a:b,c d/x' suppressions=\"s'q\"",
                         &f, &err))
      << err;
  EXPECT_FALSE(f.abort_on_error);
  EXPECT_EQ(f.exitcode, 23);
  EXPECT_EQ(f.verbosity, 1);
  EXPECT_EQ(f.log_path, "/a:b,c d/x");
  EXPECT_EQ(f.suppressions, "s'q");
  EXPECT_FALSE(ParseFlags("log_path='/tmp/x", &f, &err));
  EXPECT_NE(err.find("unterminated"), std::string::npos) << err;
  EXPECT_FALSE(ParseFlags("exitcode=\"1\n2\"", &f, &err));
  EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
}

TEST(Flags, UnknownKeyIsNamed) {
  Flags f;
  std::string err;
  EXPECT_FALSE(ParseFlags("exitcode=2:no_such_flag=1", &f, &err));
  EXPECT_NE(err.find("unknown option 'no_such_flag'"), std::string::npos)
      << err;
}

TEST(Flags, MalformedItemsAreRejected) {
  for (const char *bad : {"abort_on_error", "=1", "exitcode=abc",
                          "abort_on_error=maybe", "malloc_context_size=1000"}) {
    Flags f;
    std::string err;
    EXPECT_FALSE(ParseFlags(bad, &f, &err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
    EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
  }
}

// exitcode=256 would turn "problems found" into exit status 0 (256 & 0xff);
// a negative verbosity means nothing.
TEST(Flags, IntegersOutsideTheirRangeAreRejected) {
  for (const char *bad :
       {"exitcode=256", "exitcode=0", "exitcode=-1", "verbosity=-3",
        "max_reports=-1", "malloc_context_size=129", "quarantine_size_mb=-1",
        "symbolizer_timeout_ms=0"}) {
    Flags f;
    std::string err;
    EXPECT_FALSE(ParseFlags(bad, &f, &err)) << bad;
    EXPECT_NE(err.find("invalid value"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
  }
  Flags f;
  std::string err;
  EXPECT_TRUE(ParseFlags("exitcode=255:verbosity=0", &f, &err)) << err;
  EXPECT_EQ(f.exitcode, 255);
}

// Every integer option takes both ends of its declared range and nothing
// beyond them.
TEST(Flags, EveryIntegerRangeIsEnforced) {
  auto parses = [](const std::string &key, long long v) {
    Flags f;
    std::string err;
    return ParseFlags(key + "=" + std::to_string(v), &f, &err);
  };
#define OWNSAN_FLAG(Type, Name, Default, Description)
#define OWNSAN_INT_FLAG(Name, Default, Min, Max, Description)                  \
  EXPECT_TRUE(parses(#Name, Min)) << #Name;                                    \
  EXPECT_TRUE(parses(#Name, Max)) << #Name;                                    \
  EXPECT_FALSE(parses(#Name, (long long)(Min) - 1)) << #Name;                  \
  EXPECT_FALSE(parses(#Name, (long long)(Max) + 1)) << #Name;                  \
  EXPECT_GE(Default, Min) << #Name;                                            \
  EXPECT_LE(Default, Max) << #Name;
#include "runtime/flags.inc"
#undef OWNSAN_INT_FLAG
#undef OWNSAN_FLAG
}

TEST(Flags, MarkdownListsEveryFlag) {
  std::string md = FlagsMarkdown();
#define OWNSAN_FLAG(Type, Name, Default, Description)                          \
  EXPECT_NE(md.find("`" #Name "`"), std::string::npos) << #Name;
#include "runtime/flags.inc"
#undef OWNSAN_FLAG
}

TEST(Flags, DocsTableMatchesTheCode) {
  std::ifstream in(OWNSAN_SOURCE_DIR "/docs/flags.md");
  ASSERT_TRUE(in) << "docs/flags.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find(FlagsMarkdown()), std::string::npos)
      << "docs/flags.md is out of date; regenerate it with "
         "tools/update_flags_doc.sh. Expected table:\n"
      << FlagsMarkdown();
}

} // namespace
} // namespace ownsan
