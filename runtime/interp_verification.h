#pragma once
// Verification without a GPU: the lowered program runs in the CPU interpreter on
// fresh random inputs (several seeds plus the problem's adversarial distribution)
// and is compared with the float64 evaluation of the algorithm, with the same
// output checks as the GPU path (poisoned outputs, NaN/Inf, tolerance, degenerate
// references).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dsl/schedule.h"
#include "problems/problem.h"
#include "runtime/verdict.h"

namespace cusched::runtime {

struct InterpVerification {
  // ok, wrong_output, unwritten_output, nan_or_inf, reference_degenerate, or rejected
  // (a lowering or interpreter error, with error)
  Verdict verdict = Verdict::internal_error;
  std::string message;
  Error error;  // set when verdict is "rejected"
  double max_abs_err = 0, max_rel_err = 0, rel_l2_err = 0;
  int trials = 0;
  nlohmann::json to_json() const;
  static InterpVerification from_json(const nlohmann::json& j);  // the inverse of to_json
};

InterpVerification verify_with_interpreter(const Problem& problem, const Schedule& schedule, const std::string& size,
                                           uint64_t seed, int seeds = 3, bool strict = false);

}  // namespace cusched::runtime
