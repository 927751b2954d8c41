#pragma once
// The built-in proposer: needs no network. It starts from the problem's baseline
// schedule (the automatic baseline where it has none), sketches for the problem's
// class and random legal schedules, then evolves the best candidates with schedule
// moves (search/schedule_moves.h).
// Every proposal is legal at each configured size; the analytical cost model
// picks which of several mutants of one idea are proposed.
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "problems/problem.h"
#include "search/class_sketches.h"
#include "search/proposer.h"

namespace cusched::search {

struct BuiltinProposerConfig {
  std::vector<std::string> sizes = {"small", "bench"};  // every proposal must be legal at each
  std::string cost_size = "bench";                      // the size the cost model ranks at
  bool strict = false;
  uint64_t seed = 1;
  int random_samples = 3;     // random legal schedules in the first round
  int attempts_per_slot = 3;  // mutants tried for each proposal slot; the cost model keeps the best
};

class BuiltinProposer : public Proposer {
 public:
  BuiltinProposer(const Problem& problem, BuiltinProposerConfig config = {});
  std::string name() const override { return "builtin"; }
  RoundProposals propose(const ProposalContext& ctx, int ideas, int per_idea) override;
  ProblemClass problem_class() const { return class_; }

 private:
  // Normalised steps when legal at every size, else null.
  nlohmann::json legal(const nlohmann::json& steps) const;
  double estimate(const nlohmann::json& steps) const;  // cost-model ms, +inf when it cannot be lowered
  RoundProposals first_round(int ideas, int per_idea, std::mt19937_64& rng);
  const Problem& problem_;
  BuiltinProposerConfig config_;
  ProblemClass class_;
  std::set<std::string> proposed_;  // hashes of schedules proposed or seen
};

}  // namespace cusched::search
