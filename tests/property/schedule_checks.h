#pragma once
// Test helpers for schedules of the built-in problems at the small size: verification
// in the interpreter, the printed IR, and the code of a lowering error.
#include <optional>
#include <string>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"

namespace cusched::testing {

inline runtime::InterpVerification verify_small(const Problem& p, const nlohmann::json& steps, uint64_t seed) {
  return runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", seed, 1);
}
inline runtime::InterpVerification verify_small(const std::string& problem, const nlohmann::json& steps,
                                                uint64_t seed) {
  return verify_small(find_problem(problem), steps, seed);
}

inline std::string ir_of(const Problem& p, const nlohmann::json& steps) {
  return print_ir(lower(Schedule::from_json(p.context("small"), steps), p.name));
}
inline std::string ir_of(const std::string& problem, const nlohmann::json& steps) {
  return ir_of(find_problem(problem), steps);
}

// The error that lowering `steps` at the small size raises, if any.
inline std::optional<Error> lowering_failure(const Problem& p, const nlohmann::json& steps) {
  try {
    lower(Schedule::from_json(p.context("small"), steps), p.name);
  } catch (const UserError& e) {
    return e.error();
  }
  return std::nullopt;
}

// The error code that lowering `steps` at the small size raises, or "" when it lowers.
inline std::string lowering_error(const Problem& p, const nlohmann::json& steps) {
  const auto e = lowering_failure(p, steps);
  return e ? e->code : "";
}
inline std::string lowering_error(const std::string& problem, const nlohmann::json& steps) {
  return lowering_error(find_problem(problem), steps);
}

}  // namespace cusched::testing
