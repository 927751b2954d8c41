#pragma once
// A problem's buffers as JSON, for tools outside C++ (bench/torch_baselines.py reads
// them from `cusched problems --json`): every input with its dtype, its shape at a
// size and its distributions, and every output with its dtype and shape.
#include <string>

#include <nlohmann/json.hpp>

#include "problems/problem.h"

namespace cusched {

// {"kind", "a", "b"}: normal (a mean, b std), uniform (a lo, b hi), randint (a lo, b hi inclusive).
nlohmann::json distribution_json(const InputDistribution& d);
// [{"name", "dtype", "shape", "distribution", "adversarial" (null when none)}], pipeline order.
nlohmann::json inputs_json(const Problem& p, const std::string& size_name);
// [{"name", "dtype", "shape"}], the pipeline's outputs.
nlohmann::json outputs_json(const Problem& p, const std::string& size_name);
// The distributions of input `name`; fails with unknown-input.
const ProblemInput& problem_input(const Problem& p, const std::string& name);

}  // namespace cusched
