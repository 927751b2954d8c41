#pragma once
// The goal of a search, in the forms engineers state it: a time (`ms<=0.55`), a share
// of the problem's floor (`floor>=90%`), or a speedup (`speedup>=1.4`) over the
// baseline candidate or over a reference time the user gives.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cusched::search {

enum class GoalMetric { time_ms, floor_share, speedup };

struct Goal {
  GoalMetric metric = GoalMetric::time_ms;
  double target = 0;                   // ms, percent of the floor, or the speedup factor
  std::optional<double> reference_ms;  // speedup: over this time instead of the baseline
  std::string text;                    // as the user wrote it

  // Reads `text`; throws UserError "bad-goal" naming the three forms. A reference
  // time is only accepted with a speedup goal.
  static Goal parse(const std::string& text, std::optional<double> reference_ms = std::nullopt);
  // One phrase: "a time of at most 0.55 ms", "at least 90% of the floor", ...
  std::string describe() const;
  nlohmann::json to_json() const;
  static Goal from_json(const nlohmann::json& j);  // throws UserError "bad-goal"
};

// What the goal is measured on: the best verified candidate's time (GPU median, or the
// cost model's estimate on interpreter runs), its share of the floor in percent, and
// the baseline candidate's time.
struct GoalInputs {
  std::optional<double> best_ms, best_floor_pct, baseline_ms;
};

struct GoalStanding {
  std::optional<double> value;  // the goal's quantity now (ms, percent or factor); empty when unknown
  bool met = false;
};

GoalStanding goal_standing(const Goal& goal, const GoalInputs& in);

}  // namespace cusched::search
