#pragma once
// The steering of a run as one round takes it: every hint and ban given so far, and
// the actions still pending (schedules and kernels to add, a candidate to restart from).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/proposer.h"
#include "search/steering.h"
#include "search/store.h"

namespace cusched::search {

struct RoundSteering {
  std::vector<std::string> hints;  // every hint of the run, oldest first
  std::set<std::string> banned_moves;
  std::vector<std::string> banned_ideas;
  std::vector<SteeringAction> pending;  // not yet applied, oldest first
  std::optional<int64_t> restart_from;  // the latest pending restart's candidate
  bool empty() const { return pending.empty(); }
};

RoundSteering read_steering(const Store& store, int64_t run);

// True when `p` implements a banned idea (its text contains a banned text, ignoring
// case) or was made by a banned move.
bool is_banned(const RoundSteering& steering, const Proposal& p);

// The candidate as a proposer sees it (schedule, verdict, times, CUDA), for a restart.
std::optional<TriedCandidate> tried_candidate(const Store& store, int64_t candidate);

}  // namespace cusched::search
