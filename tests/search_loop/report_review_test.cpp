// The report as a code reviewer reads it: schedules in their text form, diffs against the
// parent collapsed and side by side, each verified candidate's launch plan, ptxas
// resources and cost per kernel, the loop IR on demand, ties with the best, units, and
// the CPU-only note. The store comes from an interp search of softmax.
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "codegen/bundle.h"
#include "codegen/ir.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "search/cost_model.h"
#include "search/diff.h"
#include "search/report.h"
#include "search/store.h"
#include "synthetic_store.h"

namespace cusched::search {
namespace {

using testing::fresh_path;

// The part of `html` that is candidate `id`'s section.
std::string section_of(const std::string& html, int64_t id) {
  auto start = html.find("<section class=\"candidate");
  start = html.find("id=\"candidate-" + std::to_string(id) + "\"", start);
  if (start == std::string::npos) return "";
  auto end = html.find("\n</section>\n", start);
  return html.substr(start, end - start);
}

// Whether `pos` lies inside a <details> element of `text` (details do not nest here).
bool inside_details(const std::string& text, size_t pos) {
  auto open = text.rfind("<details", pos);
  auto close = text.rfind("</details>", pos);
  return open != std::string::npos && (close == std::string::npos || close < open);
}

std::string dims(const std::array<int64_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

// The header cells of the table whose opening tag contains `marker`.
std::vector<std::string> headers(const std::string& html, const std::string& marker) {
  auto start = html.find(marker);
  std::vector<std::string> out;
  if (start == std::string::npos) return out;
  auto end = html.find("</thead>", start);
  std::regex th("<th(?: [^>]*)?>(.*?)</th>");
  std::string head = html.substr(start, end - start);
  for (std::sregex_iterator it(head.begin(), head.end(), th), e; it != e; ++it) out.push_back((*it)[1]);
  return out;
}

class ReportReview : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(fresh_path("review.db"));
    std::string cmd = std::string(CUSCHED_BIN) +
                      " search --problem softmax --backend interp --no-audit --rounds 3 --ideas 2 --per-idea 2 "
                      "--seed 1 --stall-rounds 0 --db '" +
                      *db_ + "' > /dev/null 2>&1";
    int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  }
  static void TearDownTestSuite() { delete db_; }

  static std::string* db_;
  const Problem& problem_ = find_problem("softmax");
};

std::string* ReportReview::db_ = nullptr;

TEST_F(ReportReview, SchedulesInTextFormWithTheJsonBehindDetails) {
  Store store(*db_, Store::Mode::read_only);
  int64_t run = *store.latest_run();
  std::string html = render_report(store, run, {&problem_, ""});
  int shown = 0;
  for (const auto& c : store.candidates(run)) {
    std::string sec = section_of(html, c.id);
    ASSERT_FALSE(sec.empty()) << c.id;
    std::string text;
    try {
      text = Schedule::from_json(problem_.context("small"), c.schedule).to_text();
    } catch (const UserError&) {
      continue;  // an illegal schedule has no text form
    }
    auto at = sec.find("<pre class=\"block schedule-text\">" + html_escape(text) + "</pre>");
    EXPECT_NE(at, std::string::npos) << "candidate " << c.id << " lacks its schedule text";
    EXPECT_FALSE(inside_details(sec, at));
    // The indented JSON appears only inside a <details>.
    for (size_t p = sec.find("&quot;op&quot;"); p != std::string::npos; p = sec.find("&quot;op&quot;", p + 1))
      EXPECT_TRUE(inside_details(sec, p)) << "candidate " << c.id << " shows JSON outside a <details>";
    ++shown;
  }
  EXPECT_GT(shown, 3);
}

TEST_F(ReportReview, DiffsCollapseUnchangedLinesAndShowBothColumns) {
  std::string before, after;
  for (int i = 1; i <= 20; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i == 10 ? std::string("changed 10") : "line " + std::to_string(i)) + "\n";
  }
  std::string unified = render_diff(before, after);
  EXPECT_NE(unified.find("<span class=\"del\">- line 10</span>"), std::string::npos);
  EXPECT_NE(unified.find("<span class=\"add\">+ changed 10</span>"), std::string::npos);
  for (const char* context : {"  line 8<", "  line 9<", "  line 11<", "  line 12<"})
    EXPECT_NE(unified.find(context), std::string::npos) << context;
  for (const char* far : {"line 1<", "line 7<", "line 13<", "line 20<"})
    EXPECT_EQ(unified.find(far), std::string::npos) << far;
  EXPECT_NE(unified.find("7 unchanged lines"), std::string::npos);
  EXPECT_NE(unified.find("8 unchanged lines"), std::string::npos);

  std::string sides = render_side_by_side(before, after);
  EXPECT_NE(sides.find("<th colspan=\"2\">parent</th><th colspan=\"2\">candidate</th>"), std::string::npos);
  EXPECT_NE(sides.find("<tr class=\"changed\"><td class=\"ln\">10</td><td class=\"code del\"><pre>line "
                       "10</pre></td><td class=\"ln\">10</td><td class=\"code add\"><pre>changed 10</pre></td></tr>"),
            std::string::npos);
  EXPECT_NE(sides.find("<td class=\"ln\">9</td><td class=\"code same\"><pre>line 9</pre>"), std::string::npos);
  EXPECT_EQ(sides.find("<pre>line 1</pre>"), std::string::npos);
  EXPECT_NE(sides.find("<tr class=\"collapsed\"><td colspan=\"4\">&hellip; 7 unchanged lines</td></tr>"),
            std::string::npos);

  // In the report, each candidate with a parent has both views for its schedule and source.
  Store store(*db_, Store::Mode::read_only);
  int64_t run = *store.latest_run();
  std::string html = render_report(store, run, {&problem_, ""});
  int with_parent = 0;
  for (const auto& c : store.candidates(run)) {
    if (!c.parent) continue;
    std::string sec = section_of(html, c.id);
    auto diff = sec.find("<details class=\"parent-diff\">");
    ASSERT_NE(diff, std::string::npos) << c.id;
    std::string part = sec.substr(diff);
    size_t tables = 0;
    for (size_t p = part.find("<table class=\"side-by-side\">"); p != std::string::npos;
         p = part.find("<table class=\"side-by-side\">", p + 1))
      ++tables;
    EXPECT_EQ(tables, 2u) << c.id;
    ++with_parent;
  }
  EXPECT_GT(with_parent, 0);
}

TEST_F(ReportReview, VerifiedCandidatesShowLaunchPlanCostAndLoopIr) {
  Store store(*db_, Store::Mode::read_only);
  int64_t run = *store.latest_run();
  std::string html = render_report(store, run, {&problem_, ""});
  int verified = 0;
  for (const auto& e : store.evaluations(run)) {
    auto c = store.candidate(e.candidate);
    std::string sec = section_of(html, c->id);
    if (!e.verified) {
      EXPECT_EQ(sec.find("class=\"launch-plan\""), std::string::npos) << c->id;
      continue;
    }
    ++verified;
    LoweredProgram small = lower(Schedule::from_json(problem_.context("small"), c->schedule), "softmax");
    KernelBundle b = make_bundle(small);
    ASSERT_FALSE(b.launches.empty());
    for (const auto& l : b.launches)
      EXPECT_NE(sec.find("<tr class=\"launch-row\"><td><code>" + l.kernel + "</code></td><td class=\"num\">" +
                         dims(l.grid) + "</td><td class=\"num\">" + dims(l.block) + "</td><td class=\"num\">" +
                         std::to_string(l.dynamic_smem_bytes) + "</td>"),
                std::string::npos)
          << "candidate " << c->id << " lacks the launch of " << l.kernel;
    CostBreakdown cost = estimate_cost(lower(Schedule::from_json(problem_.context("bench"), c->schedule), "softmax"));
    for (const auto& k : cost.per_kernel)
      EXPECT_NE(sec.find("<tr class=\"cost-row\"><td><code>" + k.kernel + "</code>"), std::string::npos) << c->id;
    EXPECT_NE(sec.find("class=\"cost-total\""), std::string::npos);
    // An interp run has no ptxas report, and says so.
    EXPECT_NE(sec.find("class=\"note ptxas-unknown\""), std::string::npos) << c->id;
    // The loop IR, collapsed.
    auto ir = sec.find("<details class=\"loop-ir\">");
    ASSERT_NE(ir, std::string::npos) << c->id;
    EXPECT_NE(sec.find(html_escape(print_ir(small)), ir), std::string::npos) << c->id;
  }
  EXPECT_GT(verified, 2);
}

TEST_F(ReportReview, RelowersAtTheAskedSize) {
  Store store(*db_, Store::Mode::read_only);
  int64_t run = *store.latest_run();
  std::string html = render_report(store, run, {&problem_, "bench"});
  auto best = store.leaderboard(run, 1).at(0).candidate;
  std::string sec = section_of(html, best.id);
  KernelBundle b = make_bundle(lower(Schedule::from_json(problem_.context("bench"), best.schedule), "softmax"));
  KernelBundle small = make_bundle(lower(Schedule::from_json(problem_.context("small"), best.schedule), "softmax"));
  ASSERT_NE(dims(b.launches[0].grid), dims(small.launches[0].grid)) << "the sizes must give different launches";
  EXPECT_NE(sec.find("<h4>Launch plan (at bench)</h4>"), std::string::npos);
  EXPECT_NE(sec.find("<td class=\"num\">" + dims(b.launches[0].grid) + "</td>"), std::string::npos);
  EXPECT_EQ(sec.find("<td class=\"num\">" + dims(small.launches[0].grid) + "</td>"), std::string::npos);
  auto source = sec.find("CUDA source at bench");
  ASSERT_NE(source, std::string::npos);
  for (const auto& line : split_lines(b.source))
    EXPECT_NE(sec.find("<pre>" + html_escape(line) + "</pre>", source), std::string::npos) << line;
  EXPECT_NE(html.find("lowered again at bench"), std::string::npos);
}

TEST_F(ReportReview, CpuOnlyRunSaysSoAtTheTop) {
  Store store(*db_, Store::Mode::read_only);
  int64_t run = *store.latest_run();
  std::string html = render_report(store, run, {&problem_, ""});
  auto note = html.find("id=\"cpu-only-note\"");
  ASSERT_NE(note, std::string::npos);
  EXPECT_LT(note, html.find("<dl class=\"meta\">"));
  EXPECT_LT(note, html.find("id=\"leaderboard\""));
  auto end = html.find("</section>", note);
  std::string text = html.substr(note, end - note);
  EXPECT_NE(text.find("small-size"), std::string::npos);
  EXPECT_NE(text.find("estimate"), std::string::npos);
}

// A GPU run of three candidates: the second within the best's timing spread, the third not.
struct GpuRun {
  int64_t run = 0, best = 0, close = 0, far = 0;
  std::string kernel;  // the first kernel of the best candidate's bundle
};

GpuRun gpu_run(Store& s, const Store& interp) {
  auto schedules = interp.leaderboard(*interp.latest_run(), 3);
  GpuRun r;
  RunInfo info;
  info.problem = "softmax";
  info.size = "small";
  info.backend = "gpu";
  r.run = s.create_run(info);
  int64_t round = s.begin_round(r.run, 0);
  int64_t idea = s.add_idea(round, "tiles", "builtin");
  int64_t* ids[] = {&r.best, &r.close, &r.far};
  const double median[] = {1.0, 1.03, 1.2};
  for (int i = 0; i < 3; ++i) {
    const auto& from = schedules.at(i).candidate;
    *ids[i] = s.add_candidate({r.run, round, idea, std::nullopt, from.schedule, ""}).id;
    auto a = interp.artifacts(from.id);
    EXPECT_TRUE(a.has_value());
    s.save_artifacts(*ids[i], *a);
    std::string kernel = KernelBundle::from_json(a->kernel_bundle).launches.at(0).kernel;
    if (i == 0) r.kernel = kernel;
    EvaluationRecord e;
    e.candidate = *ids[i];
    e.verdict = "ok";
    e.verified = true;
    e.median_ms = median[i];
    e.min_ms = median[i] - 0.03;
    e.max_ms = median[i] + 0.04;
    e.pct_of_floor = 40;
    e.precision = "f32";
    e.backend = "gpu";
    e.result = {{"gpu",
                 {{"compile_report",
                   {{"candidate",
                     {{"kernels", nlohmann::json::array({{{"kernel", kernel},
                                                          {"registers", 37},
                                                          {"spill_store_bytes", 12},
                                                          {"spill_load_bytes", 20},
                                                          {"smem_bytes", 2048}}})}}}}}}}};
    s.save_evaluation(e);
  }
  s.finish_round(round, 0, 0);
  return r;
}

TEST_F(ReportReview, TiesWithTheBestAreFlagged) {
  Store interp(*db_, Store::Mode::read_only);
  Store s(fresh_path("ties.db"));
  GpuRun r = gpu_run(s, interp);
  std::string html = render_report(s, r.run, {&problem_, ""});
  auto tie_of = [&](int64_t id) {
    std::regex row("<tr class=\"leaderboard-row\" data-candidate=\"" + std::to_string(id) +
                   "\">.*?<td class=\"tie\">([^<]*)</td>");
    std::smatch m;
    return std::regex_search(html, m, row) ? m[1].str() : std::string("(no row)");
  };
  // 1.03 ms is 3% above the best but within its 0.97-1.04 ms spread.
  EXPECT_EQ(tie_of(r.close), "tied with #" + std::to_string(r.best));
  EXPECT_EQ(tie_of(r.best), "tied");
  EXPECT_EQ(tie_of(r.far), "");
  // A GPU run has no CPU-only note.
  EXPECT_EQ(html.find("id=\"cpu-only-note\""), std::string::npos);
}

TEST_F(ReportReview, PtxasResourcesWhereTheStoreHasThem) {
  Store interp(*db_, Store::Mode::read_only);
  Store s(fresh_path("ptxas.db"));
  GpuRun r = gpu_run(s, interp);
  std::string html = render_report(s, r.run, {&problem_, ""});
  std::string sec = section_of(html, r.best);
  std::regex row(
      "<tr class=\"ptxas-row\"><td><code>" + r.kernel + "</code></td>" +
      R"(<td class="num">37</td><td class="num">12</td><td class="num">20</td><td class="num">2048</td><td class="num">\d+</td><td class="num">([0-9.]+)</td></tr>)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(sec, m, row)) << sec.substr(0, 3000);
  double occupancy = std::stod(m[1]);
  EXPECT_GT(occupancy, 0);
  EXPECT_LE(occupancy, 100);
  EXPECT_EQ(sec.find("ptxas-unknown"), std::string::npos);
}

TEST_F(ReportReview, EveryNumericColumnAndAxisHasAUnit) {
  Store interp(*db_, Store::Mode::read_only);
  Store s(fresh_path("units.db"));
  GpuRun r = gpu_run(s, interp);
  std::string html = render_report(s, r.run, {&problem_, ""});
  for (const char* table : {"id=\"leaderboard\"", "id=\"rounds\""}) EXPECT_GE(headers(html, table).size(), 5u);
  auto has_unit = [](const std::string& h, const char* units) {
    return std::regex_search(h, std::regex(std::string(R"(\(()") + units + R"()[ ,)])"));
  };
  for (const auto& h : headers(html, "id=\"leaderboard\"")) {
    bool timed = h.find("median") != std::string::npos || h.find("min") == 0 || h.find("max") == 0 ||
                 h.find("cost") != std::string::npos;
    EXPECT_TRUE(!timed || has_unit(h, "ms")) << h;
  }
  for (const auto& h : headers(html, "id=\"rounds\"")) {
    EXPECT_TRUE(h.find("best") == std::string::npos || has_unit(h, "ms")) << h;
  }
  std::string sec = section_of(html, r.best);
  for (const char* table : {"class=\"launch-plan\"", "class=\"ptxas\"", "class=\"cost\""})
    EXPECT_GE(headers(sec, table).size(), 4u) << table;
  for (const auto& h : headers(sec, "class=\"launch-plan\"")) {
    EXPECT_TRUE(h == "kernel" || has_unit(h, "bytes|blocks|threads")) << h;
  }
  for (const auto& h : headers(sec, "class=\"ptxas\"")) {
    EXPECT_TRUE(h == "kernel" || has_unit(h, "bytes|per thread|%")) << h;
  }
  for (const auto& h : headers(sec, "class=\"cost\"")) {
    EXPECT_TRUE(h == "kernel" || has_unit(h, "ms|MB|GFLOP|GB/s|%")) << h;
  }
  // The chart's value axis names its unit.
  std::regex axis(R"(rotate\(-90[^>]*>([^<]*)</text>)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, axis));
  EXPECT_NE(m[1].str().find("ms"), std::string::npos) << m[1];
  // The candidate's result line gives its times in ms.
  EXPECT_NE(sec.find("median 1 ms (min 0.97 ms, max 1.04 ms)"), std::string::npos);
}

}  // namespace
}  // namespace cusched::search
