#include "search/report_sections.h"

#include <sstream>

#include "search/report.h"
#include "search/review.h"
#include "search/run_outcome_store.h"
#include "search/stall_diagnosis.h"
#include "search/steering.h"
#include "search/store_sql.h"

namespace cusched::search {
namespace {

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + value_text(v[i]);
    return out;
  }
  return v.dump();
}

}  // namespace

std::string schedule_one_line(const nlohmann::json& steps) {
  if (!steps.is_array()) return steps.dump();
  if (steps.empty()) return "(no steps)";
  std::ostringstream os;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    if (i) os << " ; ";
    if (!step.is_object()) {
      os << step.dump();
      continue;
    }
    os << step.value("op", "?");
    // The stage and the loop first, then the other arguments by name.
    for (const char* first : {"stage", "loop", "loops"})
      if (step.contains(first)) os << " " << first << "=" << value_text(step[first]);
    for (const auto& [k, v] : step.items())
      if (k != "op" && k != "stage" && k != "loop" && k != "loops") os << " " << k << "=" << value_text(v);
  }
  return os.str();
}

std::string render_cpu_only_note(const RunInfo& run, const std::string& shown_size) {
  if (run.backend != "interp") return "";
  std::string sources =
      shown_size == run.size
          ? "the CUDA sources shown are small-size sources, lowered at that size, not at the bench size (`cusched "
            "report --size bench` lowers them at the bench size)"
          : "the CUDA sources shown are lowered again at " + html_escape(shown_size) + " for this report";
  return "<section id=\"cpu-only-note\"><p class=\"note\"><b>CPU-only run.</b> Candidates were verified in the "
         "CPU interpreter at the " +
         html_escape(run.size) + " size: " + sources +
         ". Every cost is the cost model's estimate for the bench size on an H200, in milliseconds, not a "
         "measurement; ptxas resources are not known. Run the search on a GPU for measured times.</p></section>\n";
}

std::string render_goal_section(const Store& store, const RunInfo& run) {
  auto g = find_goal(store, run.id);
  if (!g) return "";
  std::ostringstream h;
  h << "<section id=\"goal-section\"><h2>Goal</h2>\n<p class=\"goal\">" << html_escape(g->goal.text) << ": "
    << html_escape(g->goal.describe()) << (run.backend == "interp" ? ", on cost model estimates" : "") << ". Set "
    << html_escape(g->set_at) << ". ";
  if (g->met_round)
    h << "<b>Met</b> in round " << *g->met_round + 1 << " by <a href=\"#candidate-" << g->met_candidate.value_or(0)
      << "\">candidate #" << g->met_candidate.value_or(0) << "</a> at " << html_escape(g->met_at) << " (value "
      << (g->met_value ? std::to_string(*g->met_value) : "?") << ").";
  else
    h << "Not met.";
  h << "</p></section>\n";
  return h.str();
}

std::string render_stall_section(const Store& store, const RunInfo& run) {
  auto stalls = stalls_of_run(store, run.id);
  if (stalls.empty()) return "";
  std::ostringstream h;
  h << "<section id=\"stalls-section\"><h2>Stalls</h2>\n";
  for (const auto& s : stalls)
    h << "<div class=\"stall\"><h3>After round " << s.round_index + 1 << " (" << html_escape(s.created)
      << ")</h3><pre class=\"block\">" << html_escape(diagnosis_text(s.diagnosis)) << "</pre></div>\n";
  h << "</section>\n";
  return h.str();
}

std::string render_steering_section(const Store& store, const RunInfo& run) {
  auto actions = steering_actions(store, run.id);
  if (actions.empty()) return "";
  std::ostringstream h;
  h << "<section id=\"steering-section\"><h2>Steering</h2>\n<table id=\"steering\"><thead><tr><th>#</th><th>time "
       "(UTC)</th><th>author</th><th>action</th><th>text</th><th>applied in round</th><th>outcome</th></tr></thead>"
       "<tbody>\n";
  for (const auto& a : actions) {
    std::string text = a.text;
    if (a.kind == SteeringKind::add_schedule) text += (text.empty() ? "" : ": ") + schedule_one_line(a.payload);
    h << "<tr class=\"steering-row\" data-kind=\"" << steering_kind_name(a.kind) << "\"><td class=\"num\">" << a.id
      << "</td><td>" << html_escape(a.created) << "</td><td>" << html_escape(a.author) << "</td><td>"
      << steering_kind_name(a.kind) << "</td><td>" << html_escape(text) << "</td><td class=\"num\">"
      << (a.applied_round ? std::to_string(*a.applied_round + 1) : "pending") << "</td><td>" << html_escape(a.outcome)
      << "</td></tr>\n";
  }
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string render_review_section(const Store& store, const RunInfo& run) {
  auto reviews = reviews_of_run(store, run.id);
  std::ostringstream h;
  h << "<section id=\"reviews-section\"><h2>Reviews</h2>\n";
  if (reviews.empty()) {
    h << "<p>No candidate reviewed yet: <code>cusched review DB CANDIDATE --approve --note ...</code></p></section>\n";
    return h.str();
  }
  h << "<table id=\"reviews\"><thead><tr><th>time (UTC)</th><th>reviewer</th><th>candidate</th><th>verdict</th>"
       "<th>note</th></tr></thead><tbody>\n";
  for (const auto& r : reviews)
    h << "<tr class=\"review-row\"><td>" << html_escape(r.created) << "</td><td>" << html_escape(r.reviewer)
      << "</td><td><a href=\"#candidate-" << r.candidate << "\">#" << r.candidate << "</a></td><td>"
      << (r.approved ? "approved" : "rejected") << "</td><td>" << html_escape(r.note) << "</td></tr>\n";
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string render_idle_ideas_section(const Store& store, const RunInfo& run) {
  sql::Statement s(store.connection(),
                   "SELECT r.idx, i.source, i.text FROM ideas i JOIN rounds r ON r.id = i.round WHERE r.run = ? AND "
                   "NOT EXISTS (SELECT 1 FROM candidates c WHERE c.idea = i.id) ORDER BY i.id");
  s.bind_row(run.id);
  std::ostringstream rows;
  int n = 0;
  while (s.step()) {
    ++n;
    rows << "<tr class=\"idle-idea-row\"><td class=\"num\">" << s.i64(0) + 1 << "</td><td>" << html_escape(s.text(1))
         << "</td><td>" << html_escape(s.text(2)) << "</td></tr>\n";
  }
  if (n == 0) return "";
  return "<section id=\"idle-ideas-section\"><h2>Ideas that produced no candidate</h2>\n<p>Every schedule of these "
         "ideas was illegal, banned or already tried.</p><table id=\"idle-ideas\"><thead><tr><th>round</th>"
         "<th>source</th><th>idea</th></tr></thead><tbody>\n" +
         rows.str() + "</tbody></table></section>\n";
}

}  // namespace cusched::search
