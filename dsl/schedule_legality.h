#pragma once
// The whole-schedule legality rules: conditions on a finished schedule's state that no
// single step can check, because a later step may still make the state legal (a bind
// before the reorder that moves its loop outward). They run when a schedule is
// finished: Schedule::from_json and from_text, and lowering (for schedules built with
// the chainable C++ API). Each rule throws the same code and message as lowering did,
// with `step` set to the step that caused it (the latest step that set a field the rule
// reads, from StageProvenance) and phase "schedule".
#include <vector>

#include "dsl/primitive.h"
#include "dsl/schedule_state.h"

namespace cusched {

// Throws UserError on the first rule the state breaks. `steps` are the schedule's
// normalised steps (for the op of the step an error names).
void check_schedule_legality(const ScheduleState& state, const std::vector<StepJson>& steps);

}  // namespace cusched
