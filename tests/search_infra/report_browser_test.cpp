// Renders a report in headless Chromium and checks the resulting DOM.
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "search/report.h"
#include "synthetic_store.h"

using namespace cusched::search;
using namespace cusched::search::testing;

namespace {
const char* kChromium = "/usr/bin/chromium";

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(ReportBrowser, ChromiumRendersLeaderboardAndChart) {
  if (access(kChromium, X_OK) != 0) GTEST_SKIP() << "/usr/bin/chromium is not installed (apt-get install -y chromium).";
  Store s(fresh_path("browser.db"));
  auto r = fill_synthetic(s);
  std::string html_path = fresh_path("browser_report.html");
  write_report(s, r.run, html_path);
  std::string profile = fresh_path("chromium-profile");
  std::filesystem::create_directories(profile);
  std::string cmd =
      std::string(kChromium) +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --user-data-dir=" +
      profile + " --dump-dom file://" + html_path + " 2>/dev/null";
  std::string dom = run_command(cmd);
  ASSERT_FALSE(dom.empty()) << "chromium printed no DOM";
  // The parsed DOM (attributes re-serialised by the browser) has the rows and the chart.
  EXPECT_EQ(count(dom, "class=\"leaderboard-row\""), 3);
  EXPECT_NE(dom.find("data-candidate=\"" + std::to_string(r.fastest) + "\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"best-per-round-chart\""), std::string::npos);
  EXPECT_EQ(count(dom, "class=\"round-point\""), 3);
  EXPECT_NE(dom.find("<polyline"), std::string::npos);
  // Escaped text reaches the DOM as text, not as an element.
  EXPECT_EQ(dom.find("<script>"), std::string::npos);
  EXPECT_NE(dom.find("softmax&lt;script&gt;"), std::string::npos);
}
