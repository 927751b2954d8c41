#pragma once
// A run's goal, when it was met, and the stalls the loop detected, in the store
// (search/engineer_tables.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/goal.h"
#include "search/store.h"

namespace cusched::search {

struct GoalRecord {
  Goal goal;
  std::string set_at;
  std::optional<int> met_round;  // round index
  std::optional<int64_t> met_candidate;
  std::optional<double> met_value;
  std::string met_at;
  nlohmann::json to_json() const;
};

// Sets (or replaces) the run's goal; a replaced goal is no longer met.
void save_goal(Store& store, int64_t run, const Goal& goal);
std::optional<GoalRecord> find_goal(const Store& store, int64_t run);
void record_goal_met(Store& store, int64_t run, int round_index, int64_t candidate, double value);

struct StallRecord {
  int64_t id = 0;
  int round_index = 0;
  nlohmann::json diagnosis;
  std::string created;
};

void add_stall(Store& store, int64_t run, int round_index, const nlohmann::json& diagnosis);
std::vector<StallRecord> stalls_of_run(const Store& store, int64_t run);  // oldest first

}  // namespace cusched::search
