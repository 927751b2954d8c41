#include "search/stall.h"

#include <optional>
#include <sstream>

namespace cusched::search {

StallFinding detect_stall(const std::vector<RoundSummary>& rounds, const StallRule& rule, int since) {
  StallFinding f;
  std::vector<const RoundSummary*> done;
  for (const auto& r : rounds)
    if (!r.round.finished.empty() && r.round.index >= since) done.push_back(&r);
  const int n = rule.rounds < 1 ? 1 : rule.rounds;
  if (static_cast<int>(done.size()) < n) return f;
  std::vector<const RoundSummary*> window(done.end() - n, done.end());
  f.first_round = window.front()->round.index;
  f.last_round = window.back()->round.index;

  bool none_verified = true;
  int candidates = 0;
  for (const auto* r : window) {
    none_verified = none_verified && r->verified == 0;
    candidates += r->candidates;
  }
  // The best before the window: the best so far of the last round before it, if any.
  std::optional<double> before;
  for (const auto& r : rounds)
    if (r.round.index < f.first_round && r.best_so_far) before = r.best_so_far;
  std::optional<double> after = window.back()->best_so_far;
  std::ostringstream why;
  const std::string span =
      n == 1 ? "round " + std::to_string(f.last_round + 1)
             : "rounds " + std::to_string(f.first_round + 1) + " to " + std::to_string(f.last_round + 1);
  if (none_verified && candidates > 0) {
    why << "Every candidate of " << span << " (" << candidates << ") was rejected or failed verification.";
    f.stalled = true;
  } else if (candidates == 0) {
    why << "The proposer produced no new candidate in " << span << ".";
    f.stalled = true;
  } else if (after && before && *before > 0) {
    double gain = (*before - *after) / *before;
    if (gain < rule.min_gain) {
      why.setf(std::ios::fixed);
      why.precision(2);
      why << "The best time gained " << gain * 100 << "% over " << span << ", under the threshold of "
          << rule.min_gain * 100 << "%.";
      f.stalled = true;
    }
  }
  f.reason = why.str();
  return f;
}

}  // namespace cusched::search
