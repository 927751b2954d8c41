#pragma once
// Test helpers for schedules of the built-in problems at the small size: verification
// in the interpreter, the printed IR, and the code of a lowering error.
#include <string>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"

namespace cusched::testing {

inline runtime::InterpVerification verify_small(const std::string& problem, const nlohmann::json& steps, uint64_t seed) {
  const Problem& p = find_problem(problem);
  return runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", seed, 1);
}

inline std::string ir_of(const std::string& problem, const nlohmann::json& steps) {
  const Problem& p = find_problem(problem);
  return print_ir(lower(Schedule::from_json(p.context("small"), steps), problem));
}

// The error code that lowering `steps` at the small size raises, or "" when it lowers.
inline std::string lowering_error(const std::string& problem, const nlohmann::json& steps) {
  const Problem& p = find_problem(problem);
  try {
    lower(Schedule::from_json(p.context("small"), steps), problem);
  } catch (const UserError& e) {
    return e.error().code;
  }
  return "";
}

}  // namespace cusched::testing
