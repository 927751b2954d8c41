#include "search/report.h"

#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "synthetic_store.h"

using namespace cusched::search;
using namespace cusched::search::testing;

namespace {
int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(Report, EscapesHtml) { EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"); }

TEST(Report, ContainsLeaderboardChartCandidatesAndDiffs) {
  Store s(fresh_path("report.db"));
  auto r = fill_synthetic(s);
  std::string html = render_report(s, r.run);

  // Leaderboard: the three verified candidates, fastest first.
  EXPECT_EQ(count(html, "class=\"leaderboard-row\""), 3);
  auto first = html.find("data-candidate=\"" + std::to_string(r.fastest) + "\"");
  auto second = html.find("data-candidate=\"" + std::to_string(r.faster) + "\"");
  auto third = html.find("data-candidate=\"" + std::to_string(r.base) + "\"");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);

  // Chart: one point per round with a verified candidate.
  EXPECT_NE(html.find("<svg id=\"best-per-round-chart\""), std::string::npos);
  EXPECT_EQ(count(html, "class=\"round-point\""), 3);
  EXPECT_NE(html.find("class=\"best-in-round\""), std::string::npos);

  // Every candidate has a section; failures show their reasons.
  for (int64_t id : {r.base, r.faster, r.fastest, r.wrong, r.rejected})
    EXPECT_NE(html.find("id=\"candidate-" + std::to_string(id) + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("max abs error 0.5 &gt; atol at (3, 7)"), std::string::npos);
  EXPECT_NE(html.find("factor 512 exceeds the block size"), std::string::npos);

  // The audit finding sits beside line 2 of the source.
  std::regex finding_row(
      R"(<tr class="has-finding"><td class="ln">2</td>.*uncoalesced-access stride &lt;64&gt; &amp; more)");
  EXPECT_TRUE(std::regex_search(html, finding_row));

  // Diff against the parent: the changed source line appears removed and added.
  EXPECT_NE(html.find("<span class=\"del\">-   int i = threadIdx.x;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"add\">+   int i = blockIdx.x * 64 + threadIdx.x;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"del\">- split loop=i factor=32</span>"), std::string::npos);

  // All user text is escaped; nothing is loaded from the network.
  EXPECT_EQ(html.find("softmax<script>"), std::string::npos);
  EXPECT_NE(html.find("softmax&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("use <warp>"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Report, EmptyRunStillRenders) {
  Store s(fresh_path("empty.db"));
  RunInfo info;
  info.problem = "relu";
  info.size = "small";
  info.backend = "interp";
  int64_t run = s.create_run(info);
  std::string html = render_report(s, run);
  EXPECT_NE(html.find("No verified candidate yet."), std::string::npos);
  EXPECT_EQ(count(html, "class=\"leaderboard-row\""), 0);
  EXPECT_NE(html.find("cost estimate"), std::string::npos);
}

TEST(Report, WritesFileAndRejectsUnknownRun) {
  Store s(fresh_path("write.db"));
  auto r = fill_synthetic(s);
  std::string path = fresh_path("report.html");
  write_report(s, r.run, path);
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), render_report(s, r.run));
  try {
    write_report(s, 999, path);
    FAIL() << "an unknown run must be refused";
  } catch (const cusched::UserError& e) {
    EXPECT_EQ(e.error().code, "report-unknown-run");
  }
  EXPECT_THROW(write_report(s, r.run, "/nonexistent-dir/x/report.html"), cusched::UserError);
}
