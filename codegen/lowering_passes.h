#pragma once
// Lowering pass by pass: the names of its passes and the program after each
// (`cusched lower --emit ir --after PASS|all`).
#include <functional>
#include <string>
#include <vector>

#include "codegen/ir.h"
#include "dsl/schedule.h"

namespace cusched {

// The names of lowering's passes in the order lower() runs them: each the name of its
// function and of its file in codegen/passes/.
std::vector<std::string> lowering_pass_names();

// Called after each pass with the pass's name and the program as that pass left it.
using PassObserver = std::function<void(const std::string& pass, const LoweredProgram& program)>;

// lower(), calling `after_pass` after each pass.
LoweredProgram lower_observed(const Schedule& schedule, const std::string& problem_name,
                              const PassObserver& after_pass);

}  // namespace cusched
