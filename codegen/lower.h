#pragma once
// Lowering: pipeline + schedule -> loop IR (LoweredProgram).
#include <string>

#include "codegen/ir.h"
#include "dsl/schedule.h"

namespace cusched {

// Throws UserError (barrier-in-partial-thread-loop, ...)
// when the schedule cannot be lowered.
LoweredProgram lower(const Schedule& schedule, const std::string& problem_name);

}  // namespace cusched
