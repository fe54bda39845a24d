//===- flags_test.cpp ----------------------------------------------------===//

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
