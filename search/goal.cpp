#include "search/goal.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::search {
namespace {

const char* kForms =
    "Write the goal as ms<=T (a time in milliseconds), floor>=P% (a share of the problem's floor) or "
    "speedup>=F (over the baseline, or over --reference-ms), e.g. --goal 'ms<=0.55'.";

[[noreturn]] void bad_goal(const std::string& text, const std::string& why) {
  fail("bad-goal", "The goal '" + valid_utf8(text.substr(0, 80)) + "' " + why, kForms);
}

// A positive finite decimal number filling all of `s`.
std::optional<double> number(const std::string& s) {
  if (s.empty() || s.size() > 32 || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::string trimmed(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

}  // namespace

Goal Goal::parse(const std::string& text, std::optional<double> reference_ms) {
  std::string t = trimmed(text);
  struct Form {
    const char* prefix;
    GoalMetric metric;
  };
  for (const Form& f : {Form{"ms<=", GoalMetric::time_ms}, Form{"floor>=", GoalMetric::floor_share},
                        Form{"speedup>=", GoalMetric::speedup}}) {
    std::string p = f.prefix;
    if (t.rfind(p, 0) != 0) continue;
    std::string rest = t.substr(p.size());
    if (f.metric == GoalMetric::floor_share) {
      if (rest.empty() || rest.back() != '%') bad_goal(text, "gives a share of the floor without a percent sign.");
      rest.pop_back();
    }
    auto v = number(rest);
    if (!v) bad_goal(text, "does not end in a positive number.");
    if (f.metric == GoalMetric::floor_share && *v > 100)
      bad_goal(text, "asks for more than 100% of the floor, which no kernel reaches.");
    if (reference_ms && f.metric != GoalMetric::speedup)
      fail("bad-goal",
           "--reference-ms applies only to a speedup goal, not to '" + valid_utf8(text.substr(0, 80)) + "'.",
           "Drop --reference-ms, or write the goal as speedup>=F.");
    if (reference_ms && !(std::isfinite(*reference_ms) && *reference_ms > 0))
      fail("bad-goal", "--reference-ms must be a positive time in milliseconds.", "Pass e.g. --reference-ms 0.78.");
    Goal g;
    g.metric = f.metric;
    g.target = *v;
    g.reference_ms = reference_ms;
    g.text = t;
    return g;
  }
  bad_goal(text, "is not in a form cusched knows.");
}

std::string Goal::describe() const {
  std::ostringstream s;
  switch (metric) {
    case GoalMetric::time_ms:
      s << "a time of at most " << target << " ms";
      break;
    case GoalMetric::floor_share:
      s << "at least " << target << "% of the floor";
      break;
    case GoalMetric::speedup:
      s << "a speedup of at least " << target << "x over "
        << (reference_ms ? "the reference time " + std::to_string(*reference_ms) + " ms" : "the baseline candidate");
      break;
  }
  return s.str();
}

nlohmann::json Goal::to_json() const {
  nlohmann::json j = {{"text", text}, {"target", target}};
  j["metric"] = metric == GoalMetric::time_ms ? "ms" : metric == GoalMetric::floor_share ? "floor" : "speedup";
  if (reference_ms) j["reference_ms"] = *reference_ms;
  return j;
}

Goal Goal::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("text") || !j["text"].is_string())
    fail("bad-goal", "A stored goal has no text.", "Set the goal again with `cusched search --resume --goal`.");
  std::optional<double> ref;
  if (j.contains("reference_ms") && j["reference_ms"].is_number()) ref = j["reference_ms"].get<double>();
  return parse(j["text"].get<std::string>(), ref);
}

GoalStanding goal_standing(const Goal& goal, const GoalInputs& in) {
  GoalStanding s;
  switch (goal.metric) {
    case GoalMetric::time_ms:
      s.value = in.best_ms;
      s.met = in.best_ms && *in.best_ms <= goal.target;
      break;
    case GoalMetric::floor_share:
      s.value = in.best_floor_pct;
      s.met = in.best_floor_pct && *in.best_floor_pct >= goal.target;
      break;
    case GoalMetric::speedup: {
      std::optional<double> over = goal.reference_ms ? goal.reference_ms : in.baseline_ms;
      if (over && in.best_ms && *in.best_ms > 0) s.value = *over / *in.best_ms;
      s.met = s.value && *s.value >= goal.target;
      break;
    }
  }
  return s;
}

}  // namespace cusched::search
