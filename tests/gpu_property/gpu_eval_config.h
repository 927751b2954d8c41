#pragma once
// The evaluation the GPU property tests ask for: on the GPU at one size, without the audit
// (the carried GPU build has none) and without the second, bench-size check; timed only
// where the test reports a time.
#include <string>

#include "search/candidate_evaluation.h"

namespace cusched {

inline search::EvalConfig gpu_eval_config(const std::string& size, uint64_t seed, bool time_it = false) {
  search::EvalConfig cfg;
  cfg.backend = "gpu";
  cfg.size = size;
  cfg.seed = seed;
  cfg.time_it = time_it;
  cfg.audit = false;
  cfg.check_bench = false;
  return cfg;
}

}  // namespace cusched
