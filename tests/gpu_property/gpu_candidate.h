#pragma once
// A schedule of a built-in problem evaluated on GPU 0 with the search's candidate
// evaluation (verification against the float64 reference, at the problem's 1e-4 tolerance
// when strict; timed at the bench size only).
#include <string>

#include "problems/problem.h"
#include "search/candidate_evaluation.h"

namespace cusched::testing {

inline search::CandidateOutcome run_on_gpu(const std::string& problem, const nlohmann::json& steps,
                                           const std::string& size, runtime::Worker& worker, uint64_t seed = 7,
                                           bool strict = false) {
  search::EvalConfig cfg;
  cfg.strict = strict;
  cfg.backend = "gpu";
  cfg.size = size;
  cfg.seed = seed;
  cfg.time_it = size == "bench";
  cfg.audit = false;
  cfg.check_bench = false;
  return search::evaluate_candidate(find_problem(problem), steps, cfg, &worker);
}

}  // namespace cusched::testing
