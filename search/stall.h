#pragma once
// When a search is stalled: its best time gained less than a threshold over the last
// N finished rounds, or none of the candidates of the last N rounds was verified.
#include <string>
#include <vector>

#include "search/store.h"

namespace cusched::search {

struct StallRule {
  int rounds = 3;          // the window N, in rounds
  double min_gain = 0.01;  // the least relative gain of the best time over the window (0.01: 1%)
};

struct StallFinding {
  bool stalled = false;
  std::string reason;                     // one sentence when stalled
  int first_round = -1, last_round = -1;  // the window's round indices
};

// Looks at the finished rounds of `rounds` (round_summaries order), ignoring those
// with an index below `since`: nothing is stalled before N such rounds have finished.
StallFinding detect_stall(const std::vector<RoundSummary>& rounds, const StallRule& rule, int since = 0);

}  // namespace cusched::search
