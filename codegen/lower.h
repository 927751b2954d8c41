#pragma once
// Lowering: pipeline + schedule -> loop IR (LoweredProgram).
#include <string>

#include "codegen/ir.h"
#include "dsl/schedule.h"

namespace cusched {

// Throws UserError (barrier-in-partial-thread-loop, ...)
// when the schedule cannot be lowered.
LoweredProgram lower(const Schedule& schedule, const std::string& problem_name);

// The reference schedule: every stage at root, its pure loops fused and spread over
// 256-thread blocks, reductions serial in each thread. Used for the float64 reference.
Schedule reference_schedule(const ScheduleContext& ctx);

}  // namespace cusched
