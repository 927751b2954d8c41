#include "search/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "dsl/error.h"
#include "search/diff.h"
#include "search/report_candidate.h"
#include "search/report_sections.h"
#include "search/review.h"
#include "search/steered_kernel.h"
#include "search/store.h"

namespace cusched::search {

namespace {

const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #1d1d1f; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.meta dt { font-weight: 600; }
table { border-collapse: collapse; }
#leaderboard td, #leaderboard th, #rounds td, #rounds th, #llm-calls td, #llm-calls th { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
#leaderboard tr:nth-child(even), #rounds tr:nth-child(even) { background: #f6f6f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre, code { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre.block { background: #f6f6f8; padding: .6em; overflow-x: auto; }
section.candidate { border: 1px solid #ddd; border-radius: 6px; padding: .5em 1em; margin: 1em 0; }
section.candidate.verified { border-left: 6px solid #2a9d4b; }
section.candidate.failed { border-left: 6px solid #c0392b; }
section.candidate.pending { border-left: 6px solid #999; }
.verdict { font-weight: 600; }
table.source { width: 100%; }
table.source td { padding: 0 .4em; vertical-align: top; }
table.source td.ln { color: #999; text-align: right; user-select: none; width: 3em; }
table.source td.code pre { margin: 0; white-space: pre; }
table.source tr.has-finding { background: #fff4d6; }
table.source td.findings { color: #8a4b00; font-size: 12px; width: 35%; }
.sev-error { color: #b00020; font-weight: 600; }
pre.diff span { display: block; }
pre.diff .add { background: #e6ffed; } pre.diff .del { background: #ffeef0; }
table.side-by-side { width: 100%; table-layout: fixed; margin: .5em 0; }
table.side-by-side td { padding: 0 .4em; vertical-align: top; overflow-x: auto; }
table.side-by-side td.ln { color: #999; text-align: right; width: 3em; user-select: none; }
table.side-by-side td pre { margin: 0; white-space: pre-wrap; }
table.side-by-side td.add { background: #e6ffed; } table.side-by-side td.del { background: #ffeef0; }
table.side-by-side tr.collapsed td { color: #777; font-style: italic; }
.review-tables table td, .review-tables table th { border: 1px solid #ddd; padding: .2em .5em; }
#cpu-only-note { background: #fff4d6; border: 1px solid #e0c060; padding: .2em 1em; }
td.tie { color: #8a4b00; font-weight: 600; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
)css";

std::string opt(const std::optional<double>& v, int digits = 4) { return v ? report_number(*v, digits) : "&ndash;"; }

nlohmann::json findings_array(const nlohmann::json& f) {
  if (f.is_array()) return f;
  if (f.is_object() && f.contains("findings") && f["findings"].is_array()) return f["findings"];
  return nlohmann::json::array();
}

std::string finding_text(const nlohmann::json& f) {
  if (!f.is_object()) return f.dump();
  std::string s;
  for (const char* k : {"severity", "rule", "id", "check"})
    if (f.contains(k) && f[k].is_string()) s += f[k].get<std::string>() + " ";
  if (f.contains("message") && f["message"].is_string())
    s += f["message"].get<std::string>();
  else
    s += f.dump();
  return s;
}

bool is_error_finding(const nlohmann::json& f) {
  return f.is_object() && f.contains("severity") && f["severity"].is_string() && f["severity"] == "error";
}

std::string render_chart(const std::vector<RoundSummary>& rounds, const std::string& unit) {
  const int W = 760, H = 300, L = 70, R = 20, T = 20, B = 45;
  std::ostringstream s;
  s << "<svg id=\"best-per-round-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" role=\"img\" aria-label=\"best " << html_escape(unit)
    << " per round\">\n";
  s << "<rect x=\"0\" y=\"0\" width=\"" << W << "\" height=\"" << H << "\" fill=\"#fff\"/>\n";
  std::vector<std::pair<int, double>> per_round, so_far;
  for (const auto& r : rounds) {
    if (r.best_in_round) per_round.push_back({r.round.index, *r.best_in_round});
    if (r.best_so_far) so_far.push_back({r.round.index, *r.best_so_far});
  }
  if (per_round.empty()) {
    s << "<text x=\"" << W / 2 << "\" y=\"" << H / 2
      << "\" text-anchor=\"middle\">No verified candidate yet.</text>\n</svg>\n";
    return s.str();
  }
  int x0 = rounds.front().round.index, x1 = rounds.back().round.index;
  if (x1 == x0) x1 = x0 + 1;
  double y0 = per_round[0].second, y1 = y0;
  for (const auto& p : per_round) y0 = std::min(y0, p.second), y1 = std::max(y1, p.second);
  double pad = (y1 - y0) * 0.1;
  if (pad == 0) pad = std::abs(y0) * 0.1 + 1e-9;
  y0 = std::max(0.0, y0 - pad), y1 += pad;
  auto X = [&](double x) { return L + (x - x0) * (W - L - R) / (x1 - x0); };
  auto Y = [&](double y) { return T + (y1 - y) * (H - T - B) / (y1 - y0); };
  // Axes, ticks and labels.
  s << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
    << "\" stroke=\"#888\"/>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double v = y0 + (y1 - y0) * i / 4;
    s << "<line x1=\"" << L - 4 << "\" y1=\"" << Y(v) << "\" x2=\"" << W - R << "\" y2=\"" << Y(v)
      << "\" stroke=\"#eee\"/>";
    s << "<text x=\"" << L - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << report_number(v, 3)
      << "</text>\n";
  }
  int step = std::max(1, (x1 - x0) / 10);
  for (int x = x0; x <= x1; x += step)
    s << "<text x=\"" << X(x) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">" << x << "</text>\n";
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 6 << "\" text-anchor=\"middle\">round</text>\n";
  s << "<text x=\"14\" y=\"" << (T + H - B) / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
    << (T + H - B) / 2 << ")\">" << html_escape(unit) << "</text>\n";
  auto polyline = [&](const std::vector<std::pair<int, double>>& pts, const char* cls, const char* color,
                      const char* dash) {
    s << "<polyline class=\"" << cls << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash
      << " points=\"";
    for (const auto& p : pts) s << X(p.first) << "," << Y(p.second) << " ";
    s << "\"/>\n";
  };
  polyline(so_far, "best-so-far", "#9aa", " stroke-dasharray=\"5 4\"");
  polyline(per_round, "best-in-round", "#2060c0", "");
  for (const auto& p : per_round)
    s << "<circle class=\"round-point\" data-round=\"" << p.first << "\" cx=\"" << X(p.first) << "\" cy=\""
      << Y(p.second) << "\" r=\"3.5\" fill=\"#2060c0\"><title>round " << p.first << ": " << report_number(p.second)
      << " " << html_escape(unit) << "</title></circle>\n";
  s << "<text x=\"" << W - R << "\" y=\"" << T + 4
    << "\" text-anchor=\"end\">solid: best in round; dashed: best so far</text>\n";
  s << "</svg>\n";
  return s.str();
}

std::string render_source(const std::string& source, const nlohmann::json& findings) {
  std::map<int, std::vector<const nlohmann::json*>> by_line;
  std::vector<const nlohmann::json*> unplaced;
  for (const auto& f : findings)
    if (f.is_object() && f.contains("line") && f["line"].is_number_integer())
      by_line[f["line"].get<int>()].push_back(&f);
    else
      unplaced.push_back(&f);
  std::ostringstream s;
  if (!unplaced.empty()) {
    s << "<ul class=\"findings-unplaced\">";
    for (const auto* f : unplaced)
      s << "<li class=\"" << (is_error_finding(*f) ? "sev-error" : "") << "\">" << html_escape(finding_text(*f))
        << "</li>";
    s << "</ul>\n";
  }
  s << "<table class=\"source\">\n";
  auto lines = split_lines(source);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto it = by_line.find(static_cast<int>(i + 1));
    s << "<tr" << (it != by_line.end() ? " class=\"has-finding\"" : "") << "><td class=\"ln\">" << i + 1
      << "</td><td class=\"code\"><pre>" << html_escape(lines[i]) << "</pre></td><td class=\"findings\">";
    if (it != by_line.end())
      for (const auto* f : it->second)
        s << "<div class=\"finding" << (is_error_finding(*f) ? " sev-error" : "") << "\">"
          << html_escape(finding_text(*f)) << "</div>";
    s << "</td></tr>\n";
  }
  s << "</table>\n";
  return s.str();
}

// One model call's prompt (its messages, each with its role) and reply, collapsed. The
// store keeps both with the API key already redacted (LlmClient::redact).
std::string render_llm_exchange(const Store& store, const LlmCallRecord& c, int round) {
  std::ostringstream h;
  h << "<details class=\"llm-exchange\"><summary>" << (round >= 0 ? "round " + std::to_string(round) + ", " : "")
    << html_escape(c.call.purpose) << " call: prompt and reply</summary>\n";
  std::string prompt = c.call.prompt;
  if (prompt.empty()) prompt = store.llm_prompt(c.id).value_or("");
  nlohmann::json messages = nlohmann::json::parse(prompt, nullptr, false);
  if (messages.is_array()) {
    for (const auto& m : messages)
      if (m.is_object())
        h << "<h4>" << html_escape(m.value("role", "message")) << "</h4><pre class=\"block\">"
          << html_escape(m.value("content", "")) << "</pre>\n";
  } else if (!prompt.empty()) {
    h << "<h4>prompt</h4><pre class=\"block\">" << html_escape(prompt) << "</pre>\n";
  } else {
    h << "<p>The store has no prompt for this call.</p>\n";
  }
  h << "<h4>reply</h4><pre class=\"block\">" << html_escape(c.call.raw_reply.empty() ? "(no reply)" : c.call.raw_reply)
    << "</pre></details>\n";
  return h.str();
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string report_number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string render_report(const Store& store, int64_t run_id, const ReportOptions& options) {
  auto run = store.find_run(run_id);
  if (!run)
    fail("report-unknown-run", "The store '" + store.path() + "' has no run " + std::to_string(run_id) + ".",
         "Leave out --run to report the latest run, or pass an id the store holds.");
  const bool by_cost = run->backend == "interp";
  const std::string unit = by_cost ? "cost estimate (ms, bench size)" : "median ms (GPU)";
  const std::string time_unit = by_cost ? "ms, cost model estimate" : "ms, GPU median";
  auto rounds = store.round_summaries(run_id);
  auto candidates = store.candidates(run_id);
  auto board = store.leaderboard(run_id, 50);
  auto calls = store.llm_calls(run_id);
  std::map<int64_t, EvaluationRecord> evals;
  for (auto& e : store.evaluations(run_id)) evals[e.candidate] = e;
  int verified = 0;
  for (const auto& [id, e] : evals) verified += e.verified;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const auto& r : rounds) prompt_tokens += r.round.prompt_tokens, completion_tokens += r.round.completion_tokens;

  std::ostringstream h;
  std::string title = "cusched run " + std::to_string(run->id) + ": " + run->problem + " (" + run->size + ")";
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(title)
    << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";

  const std::string shown_size = options.size.empty() ? run->size : options.size;
  h << "<header id=\"run-header\"><h1>" << html_escape(title) << "</h1>\n"
    << render_cpu_only_note(*run, shown_size) << "<dl class=\"meta\">";
  auto meta = [&](const std::string& k, const std::string& v) {
    h << "<dt>" << html_escape(k) << "</dt><dd>" << html_escape(v) << "</dd>";
  };
  meta("problem", run->problem);
  meta("size", run->size);
  if (shown_size != run->size) meta("sources shown at", shown_size + " (lowered again for this report; not verified)");
  meta("backend", run->backend);
  meta("seed", std::to_string(run->seed));
  meta("created", run->created);
  meta("status", run->status);
  meta("rounds", std::to_string(rounds.size()));
  meta("candidates", std::to_string(candidates.size()) + " (" + std::to_string(verified) + " verified)");
  if (prompt_tokens + completion_tokens > 0)
    meta("LLM tokens",
         std::to_string(prompt_tokens) + " prompt + " + std::to_string(completion_tokens) + " completion");
  if (!board.empty()) {
    const auto& e = board[0].evaluation;
    meta("best", "candidate " + std::to_string(board[0].candidate.id) + ": " +
                     (by_cost ? report_number(e.cost_estimate.value_or(0)) + " ms (cost model estimate)"
                              : report_number(e.median_ms.value_or(0)) + " ms (GPU median)") +
                     (e.pct_of_floor ? ", " + report_number(*e.pct_of_floor, 3) + "% of floor" : ""));
  }
  h << "</dl>\n<details><summary>configuration</summary><pre class=\"block\">" << html_escape(run->config.dump(2))
    << "</pre></details></header>\n";
  h << render_goal_section(store, *run) << render_stall_section(store, *run) << render_steering_section(store, *run)
    << render_review_section(store, *run);

  h << "<section id=\"progress\"><h2>Best " << html_escape(unit) << " per round</h2>\n" << render_chart(rounds, unit);
  h << "<table "
       "id=\"rounds\"><thead><tr><th>round</th><th>candidates</th><th>evaluated</th><th>verified</th><th>rejected</th>"
       "<th>best in round ("
    << time_unit << ")</th><th>best so far (" << time_unit << ")</th><th>tokens</th></tr></thead><tbody>\n";
  for (const auto& r : rounds)
    h << "<tr class=\"round-row\"><td class=\"num\">" << r.round.index << "</td><td class=\"num\">" << r.candidates
      << "</td><td class=\"num\">" << r.evaluated << "</td><td class=\"num\">" << r.verified
      << "</td><td class=\"num\">" << r.rejected << "</td><td class=\"num\">" << opt(r.best_in_round)
      << "</td><td class=\"num\">" << opt(r.best_so_far) << "</td><td class=\"num\">"
      << r.round.prompt_tokens + r.round.completion_tokens << "</td></tr>\n";
  h << "</tbody></table></section>\n";

  h << "<section id=\"leaderboard-section\"><h2>Leaderboard (verified, best first)</h2>\n";
  if (board.empty()) h << "<p>No verified candidate yet.</p>\n";
  h << "<table id=\"leaderboard\"><thead><tr><th>rank</th><th>candidate</th><th>round</th><th>idea</th><th>median "
       "(ms, GPU)</th>"
       "<th>min (ms, GPU)</th><th>max (ms, GPU)</th><th>% of floor</th><th>cost estimate (ms, bench "
       "size)</th><th>precision</th>"
       "<th>tie (within 1% or the best's min&ndash;max spread)</th><th>review</th><th>schedule "
       "(steps)</th></tr></thead><tbody>\n";
  // Tied with the best: a ranking key within the best's timing spread (max - min ms) or
  // within 1% of it, so the order between them means little.
  auto key = [&](size_t i) {
    const auto& e = board[i].evaluation;
    return by_cost ? e.cost_estimate.value_or(0) : e.median_ms.value_or(0);
  };
  auto tied_with_best = [&](size_t i) {
    const auto& b = board[0].evaluation;
    double spread = !by_cost && b.min_ms && b.max_ms ? *b.max_ms - *b.min_ms : 0;
    return i > 0 && key(i) - key(0) <= std::max(0.01 * key(0), spread);
  };
  bool any_tie = board.size() > 1 && tied_with_best(1);
  for (size_t i = 0; i < board.size(); ++i) {
    const auto& c = board[i].candidate;
    const auto& e = board[i].evaluation;
    h << "<tr class=\"leaderboard-row\" data-candidate=\"" << c.id << "\"><td class=\"num\">" << i + 1
      << "</td><td><a href=\"#candidate-" << c.id << "\">#" << c.id << "</a></td><td class=\"num\">" << c.round_index
      << "</td><td>" << html_escape(c.idea_text) << "</td><td class=\"num\">" << opt(e.median_ms)
      << "</td><td class=\"num\">" << opt(e.min_ms) << "</td><td class=\"num\">" << opt(e.max_ms)
      << "</td><td class=\"num\">" << opt(e.pct_of_floor, 3) << "</td><td class=\"num\">" << opt(e.cost_estimate)
      << "</td><td>" << html_escape(e.precision) << "</td><td class=\"tie\">"
      << (tied_with_best(i)   ? "tied with #" + std::to_string(board[0].candidate.id)
          : i == 0 && any_tie ? "tied"
                              : "")
      << "</td><td>";
    if (auto r = latest_review(store, c.id))
      h << (r->approved ? "approved" : "rejected") << " by " << html_escape(r->reviewer);
    h << "</td><td><code>" << html_escape(is_handwritten(c) ? "hand-written kernel" : schedule_one_line(c.schedule))
      << "</code></td></tr>\n";
  }
  h << "</tbody></table></section>\n";

  h << "<section id=\"candidates\"><h2>Candidates</h2>\n";
  std::map<int64_t, const CandidateRecord*> by_id;
  std::map<int64_t, CandidateLowering> lowered;
  for (const auto& c : candidates) {
    by_id[c.id] = &c;
    auto ev = evals.find(c.id);
    lowered[c.id] = candidate_lowering(store, *run, c, ev != evals.end() && ev->second.verified, options);
  }
  for (const auto& c : candidates) {
    auto ev = evals.find(c.id);
    const EvaluationRecord* e = ev == evals.end() ? nullptr : &ev->second;
    const CandidateLowering& l = lowered[c.id];
    const char* state = !e ? "pending" : e->verified ? "verified" : "failed";
    h << "<section class=\"candidate " << state << "\" id=\"candidate-" << c.id << "\">\n<h3>#" << c.id
      << " &middot; round " << c.round_index << " &middot; <span class=\"verdict\">"
      << html_escape(e ? e->verdict : c.status) << "</span></h3>\n";
    if (!c.idea_text.empty())
      h << "<p class=\"idea\"><b>Idea</b> (" << html_escape(c.idea_source) << "): " << html_escape(c.idea_text)
        << "</p>\n";
    if (c.parent) h << "<p>Parent: <a href=\"#candidate-" << *c.parent << "\">#" << *c.parent << "</a></p>\n";
    if (e) {
      h << "<p class=\"result\">" << (e->verified ? "Verified" : "Not verified");
      if (e->median_ms)
        h << "; median " << report_number(*e->median_ms) << " ms (min " << opt(e->min_ms) << " ms, max "
          << opt(e->max_ms) << " ms)";
      if (e->pct_of_floor) h << "; " << report_number(*e->pct_of_floor, 3) << "% of floor";
      if (e->cost_estimate) h << "; cost estimate " << report_number(*e->cost_estimate) << " ms (bench size)";
      if (e->max_abs_error) h << "; max abs error " << report_number(*e->max_abs_error, 3);
      if (e->max_rel_error) h << "; max rel error " << report_number(*e->max_rel_error, 3);
      if (!e->precision.empty()) h << "; precision " << html_escape(e->precision);
      h << ".</p>\n";
      if (!e->reason.empty()) h << "<p class=\"reason\">" << html_escape(e->reason) << "</p>\n";
    }
    if (is_handwritten(c))
      h << "<p class=\"schedule-line\"><b>Hand-written kernel</b> (added by steering; no schedule)</p>\n";
    else
      h << "<div class=\"schedule\"><b>Schedule</b> (" << c.schedule.size()
        << " steps)<pre class=\"block schedule-text\">" << html_escape(l.schedule_text)
        << "</pre></div>\n<details><summary>Schedule as JSON</summary><pre class=\"block\">"
        << html_escape(c.schedule.dump(2)) << "</pre></details>\n";
    if (auto r = latest_review(store, c.id))
      h << "<p class=\"review\"><b>Review</b>: " << (r->approved ? "approved" : "rejected") << " by "
        << html_escape(r->reviewer) << " at " << html_escape(r->created) << ": " << html_escape(r->note) << "</p>\n";
    if (!l.error.empty()) h << "<p class=\"note lowering-error\">" << html_escape(l.error) << "</p>\n";
    if (e && e->verified) h << render_review_tables(store, c, l, run->size);
    auto a = store.artifacts(c.id);
    if (!l.cuda_source.empty()) {
      auto findings = a ? findings_array(a->audit_findings) : nlohmann::json::array();
      // Findings name lines of the stored source; beside another size's source they are listed above it.
      if (l.relowered && l.size != run->size)
        for (auto& f : findings)
          if (f.is_object()) f.erase("line");
      h << "<details class=\"cuda-source\"><summary>CUDA source at " << html_escape(l.size) << " ("
        << split_lines(l.cuda_source).size() << " lines, " << findings.size() << " audit finding"
        << (findings.size() == 1 ? "" : "s") << ")</summary>\n"
        << render_source(l.cuda_source, findings) << "</details>\n";
    }
    if (!l.ir_text.empty())
      h << "<details class=\"loop-ir\"><summary>Loop IR at " << html_escape(l.size) << " ("
        << split_lines(l.ir_text).size() << " lines" << (l.relowered ? ", lowered for this report" : "")
        << ")</summary><pre class=\"block\">" << html_escape(l.ir_text) << "</pre></details>\n";
    if (c.parent && by_id.count(*c.parent)) {
      const auto& p = *by_id[*c.parent];
      const CandidateLowering& pl = lowered[p.id];
      h << "<details class=\"parent-diff\"><summary>Diff against parent #" << p.id << "</summary>\n<h4>Schedule</h4>\n"
        << render_diff(pl.schedule_text, l.schedule_text) << render_side_by_side(pl.schedule_text, l.schedule_text);
      if (!(l.cuda_source.empty() && pl.cuda_source.empty()))
        h << "<h4>CUDA source</h4>\n"
          << render_diff(pl.cuda_source, l.cuda_source) << render_side_by_side(pl.cuda_source, l.cuda_source);
      h << "</details>\n";
    }
    h << "</section>\n";
  }
  h << "</section>\n" << render_idle_ideas_section(store, *run);

  if (!calls.empty()) {
    h << "<section id=\"llm-calls-section\"><h2>LLM calls</h2><table "
         "id=\"llm-calls\"><thead><tr><th>round</th><th>purpose</th>"
         "<th>prompt tokens</th><th>completion tokens</th><th>finish</th><th>error</th></tr></thead><tbody>\n";
    std::map<int64_t, int> round_index;
    for (const auto& r : rounds) round_index[r.round.id] = r.round.index;
    for (const auto& c : calls)
      h << "<tr><td class=\"num\">" << (c.round ? std::to_string(round_index[*c.round]) : "") << "</td><td>"
        << html_escape(c.call.purpose) << "</td><td class=\"num\">" << c.call.prompt_tokens << "</td><td class=\"num\">"
        << c.call.completion_tokens << "</td><td>" << html_escape(c.call.finish_reason) << "</td><td>"
        << html_escape(c.call.error) << "</td></tr>\n";
    h << "</tbody></table>\n";
    for (const auto& c : calls) h << render_llm_exchange(store, c, c.round ? round_index[*c.round] : -1);
    h << "</section>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

void write_report(const Store& store, int64_t run, const std::string& path, const ReportOptions& options) {
  std::string html = render_report(store, run, options);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    fail("report-write-failed", "The report file '" + path + "' cannot be written.",
         "Check that its folder exists and is writable.");
  out << html;
  if (!out.flush())
    fail("report-write-failed", "Writing the report file '" + path + "' failed.", "Check the free disk space.");
}

}  // namespace cusched::search
