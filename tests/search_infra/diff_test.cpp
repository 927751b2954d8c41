#include "search/diff.h"

#include <gtest/gtest.h>

using namespace cusched::search;
using Kind = DiffLine::Kind;

namespace {
std::string render(const std::vector<DiffLine>& d) { return format_diff(d); }
}  // namespace

TEST(Diff, SplitLinesDropsTrailingNewlineAndCarriageReturns) {
  EXPECT_EQ(split_lines("a\nb\r\nc\n"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_lines("a\n\nb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(Diff, IdenticalTextsAreAllSame) {
  auto d = diff_lines({"x", "y"}, {"x", "y"});
  ASSERT_EQ(d.size(), 2u);
  for (const auto& l : d) EXPECT_EQ(l.kind, Kind::same);
  EXPECT_EQ(d[1].old_line, 2);
  EXPECT_EQ(d[1].new_line, 2);
}

TEST(Diff, ChangedLineInTheMiddle) {
  EXPECT_EQ(render(diff_lines({"a", "b", "c"}, {"a", "B", "c"})), " a\n-b\n+B\n c\n");
}

TEST(Diff, InsertionsAndDeletionsKeepTheLongestCommonLines) {
  std::vector<std::string> before{"for i", "  load", "  add", "  store", "end"};
  std::vector<std::string> after{"unroll", "for i", "  load", "  store", "  sync", "end"};
  auto d = diff_lines(before, after);
  EXPECT_EQ(render(d), "+unroll\n for i\n   load\n-  add\n   store\n+  sync\n end\n");
  int same = 0;
  for (const auto& l : d) same += l.kind == Kind::same;
  EXPECT_EQ(same, 4);
  // Line numbers refer to each side.
  EXPECT_EQ(d[0].new_line, 1);
  EXPECT_EQ(d[0].old_line, 0);
  EXPECT_EQ(d[3].kind, Kind::removed);
  EXPECT_EQ(d[3].old_line, 3);
  EXPECT_EQ(d[5].new_line, 5);
}

TEST(Diff, EmptySides) {
  EXPECT_EQ(render(diff_lines({}, {"a", "b"})), "+a\n+b\n");
  EXPECT_EQ(render(diff_lines({"a"}, {})), "-a\n");
  EXPECT_TRUE(diff_lines({}, {}).empty());
}

TEST(Diff, ReplayingTheScriptRebuildsBothSides) {
  std::vector<std::string> a, b;
  for (int i = 0; i < 300; ++i) {
    a.push_back("line " + std::to_string(i % 17));
    if (i % 5) b.push_back("line " + std::to_string(i % 13));
  }
  std::vector<std::string> ra, rb;
  for (const auto& l : diff_lines(a, b)) {
    if (l.kind != Kind::added) ra.push_back(l.text);
    if (l.kind != Kind::removed) rb.push_back(l.text);
  }
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rb, b);
}
