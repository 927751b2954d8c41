#pragma once
// How a search stands or why it stopped. The enum is what code passes around; the
// strings are its form in the store (runs.status) and in JSON output.
#include <optional>
#include <string>

namespace cusched::search {

enum class SearchStatus {
  running,       // rounds are being proposed and evaluated
  finished,      // every round ran and no goal was set
  goal_met,      // the goal was reached
  budget_spent,  // a budget (rounds with a goal unmet, candidates, minutes, tokens) ran out
  stalled,       // no gain above the threshold over the stall window, or every candidate rejected
  failed,        // the search ended with no verified candidate
};

// "running", "finished", "goal-met", "budget-spent", "stalled", "failed".
std::string status_name(SearchStatus s);
// The enum of a stored name; "budget-exhausted" (older stores) reads as budget_spent.
// Unknown text: nullopt.
std::optional<SearchStatus> parse_search_status(const std::string& name);

}  // namespace cusched::search
