#include "search/file_proposer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "synthetic_store.h"

using namespace cusched::search;

namespace {
bool has_event(const RoundProposals& r, const std::string& kind, const std::string& text = "") {
  for (const auto& e : r.events)
    if (e.kind == kind && e.detail.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(FileProposer, JsonLinesWithBadLines) {
  std::istringstream in(
      "[{\"op\": \"split\", \"factor\": 4}]\n"
      "\n"
      "{\"idea\": \"vectorize\", \"schedule\": [{\"op\": \"vectorize\"}], \"parent\": 3}\n"
      "{not json\n"
      "{\"idea\": \"no schedule\"}\n"
      "{\"idea\": \"vectorize\", \"schedule\": [{\"op\": \"vectorize\", \"width\": 2}]}\n"
      "{\"idea\": \"x\", \"schedule\": [], \"parent\": \"three\"}\n");
  FileProposer p(in, "stream");
  EXPECT_EQ(p.remaining(), 3u);
  auto first = p.propose({}, 1, 2);
  ASSERT_EQ(first.proposals.size(), 2u);
  EXPECT_EQ(first.proposals[0].idea, "schedule from stream:1");
  EXPECT_EQ(first.proposals[1].idea, "vectorize");
  EXPECT_EQ(first.proposals[1].parent, 3);
  EXPECT_EQ(first.ideas.size(), 2u);
  EXPECT_TRUE(has_event(first, "bad-line", "stream:4"));
  EXPECT_TRUE(has_event(first, "bad-line", "stream:5"));
  EXPECT_TRUE(has_event(first, "bad-line", "stream:7"));
  auto second = p.propose({}, 2, 2);
  ASSERT_EQ(second.proposals.size(), 1u);
  EXPECT_EQ(second.proposals[0].schedule[0]["width"], 2);
  EXPECT_FALSE(has_event(second, "bad-line")) << "reading problems are reported once";
  auto third = p.propose({}, 2, 2);
  EXPECT_TRUE(third.proposals.empty());
  EXPECT_TRUE(has_event(third, "exhausted"));
}

// A folder of that name left by an earlier process with the same pid is cleared, so the
// proposals below are exactly the ones written here.
TEST(FileProposer, FreshPathClearsAFolderLeftThere) {
  auto dir = std::filesystem::path(cusched::search::testing::fresh_path("left_behind"));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "z.json") << "[]";
  EXPECT_FALSE(std::filesystem::exists(cusched::search::testing::fresh_path("left_behind")));
}

TEST(FileProposer, FilesAndFolders) {
  auto dir = std::filesystem::path(cusched::search::testing::fresh_path("proposals"));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.json") << "[{\"op\": \"unroll\"}]";
  std::ofstream(dir / "b.json") << "{\"idea\": \"tile\", \"schedule\": [{\"op\": \"tile\"}]}";
  std::ofstream(dir / "c.json") << "{\"broken\": ";
  std::ofstream(dir / "d.jsonl") << "[{\"op\": \"fuse\"}]\n[{\"op\": \"reorder\"}]\n";
  std::ofstream(dir / "notes.txt") << "ignored";
  FileProposer p({dir.string(), (dir / "missing.json").string()});
  auto out = p.propose({}, 10, 1);
  ASSERT_EQ(out.proposals.size(), 4u);
  EXPECT_EQ(out.proposals[0].schedule[0]["op"], "unroll");
  EXPECT_EQ(out.proposals[1].idea, "tile");
  EXPECT_EQ(out.proposals[2].schedule[0]["op"], "fuse");
  EXPECT_EQ(out.proposals[3].schedule[0]["op"], "reorder");
  EXPECT_TRUE(has_event(out, "bad-line", "c.json"));
  EXPECT_TRUE(has_event(out, "bad-line", "missing.json"));
  EXPECT_EQ(p.name(), "file");
}
