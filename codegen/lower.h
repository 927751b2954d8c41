#pragma once
// Lowering: pipeline + schedule -> loop IR (LoweredProgram).
#include <string>

#include "codegen/ir.h"
#include "dsl/schedule.h"

namespace cusched {

// Checks the whole-schedule legality (Schedule::check_legality), then lowers. Throws
// UserError when the schedule cannot be lowered: phase "schedule" for a broken
// whole-schedule rule, phase "lowering" for a rule on the lowered program, each with the
// step behind it where one can be attributed.
LoweredProgram lower(const Schedule& schedule, const std::string& problem_name);

}  // namespace cusched
