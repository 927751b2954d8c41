#pragma once
// `cusched problems --describe P`: what a person or an agent needs before writing a
// schedule: the algorithm, every stage with its loops and their extents at each size,
// the kernel contract and the baseline schedule in the one-line-per-step text form.
#include <string>

#include <nlohmann/json.hpp>

#include "problems/problem.h"

namespace cusched::tools {

nlohmann::json describe_problem(const Problem& p);
std::string describe_problem_text(const nlohmann::json& description);

}  // namespace cusched::tools
