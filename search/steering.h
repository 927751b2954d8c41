#pragma once
// Steering: what a person or an agent tells a search between its rounds. Each action
// is stored (search/engineer_tables.h) with its time and author; the loop reads the
// actions not yet applied at the start of every round, so a running search (another
// process writing the store) and a stopped one (`search --resume`) both take them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/store.h"

namespace cusched::search {

enum class SteeringKind {
  add_schedule,  // text: the idea; payload: the schedule's steps
  add_kernel,    // text: the idea; payload: {"file", "source", "size", "grid", "block", "dynamic_smem", "precision"}
  hint,          // text: the hint, shown to the LLM proposer from the next round on
  ban_move,      // text: a built-in proposer move (schedule_moves.h) no later round uses
  ban_idea,      // text: proposals whose idea contains it (case-insensitive) are dropped
  restart_from,  // payload: {"candidate": id}: the next round grows from this candidate
};

// "add-schedule", "add-kernel", "hint", "ban-move", "ban-idea", "restart-from".
std::string steering_kind_name(SteeringKind k);
std::optional<SteeringKind> parse_steering_kind(const std::string& name);

struct SteeringAction {
  int64_t id = 0, run = 0;
  SteeringKind kind = SteeringKind::hint;
  std::string text;
  nlohmann::json payload;
  std::string author, created;       // created: UTC, filled by the store
  std::optional<int> applied_round;  // the round index that took it; empty while pending
  std::string applied_at, outcome;   // outcome: what applying it did, one phrase
  bool pending() const { return !applied_round; }
  nlohmann::json to_json() const;
};

int64_t add_steering(Store& store, const SteeringAction& action);
// Every action of the run, oldest first.
std::vector<SteeringAction> steering_actions(const Store& store, int64_t run);
void mark_steering_applied(Store& store, int64_t action, int round_index, const std::string& outcome);

// The author of an action or a review: `given` when not empty, else $USER, else
// nothing (the caller asks for the flag).
std::optional<std::string> author_or_user(const std::string& given);

}  // namespace cusched::search
