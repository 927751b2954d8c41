#include "search/search_status.h"

namespace cusched::search {

std::string status_name(SearchStatus s) {
  switch (s) {
    case SearchStatus::running:
      return "running";
    case SearchStatus::finished:
      return "finished";
    case SearchStatus::goal_met:
      return "goal-met";
    case SearchStatus::budget_spent:
      return "budget-spent";
    case SearchStatus::stalled:
      return "stalled";
    case SearchStatus::failed:
      return "failed";
  }
  return "running";
}

std::optional<SearchStatus> parse_search_status(const std::string& name) {
  for (auto s : {SearchStatus::running, SearchStatus::finished, SearchStatus::goal_met, SearchStatus::budget_spent,
                 SearchStatus::stalled, SearchStatus::failed})
    if (status_name(s) == name) return s;
  if (name == "budget-exhausted") return SearchStatus::budget_spent;
  return std::nullopt;
}

}  // namespace cusched::search
