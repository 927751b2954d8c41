#pragma once
// Names the step behind an error that a schedule's steps did not raise themselves (one
// from lowering, which reads the finished state): the step that last set the part of
// the schedule the error is about, found from the stage, loop or staged copy that the
// message names and the state's provenance (StageProvenance).
#include <vector>

#include "dsl/error.h"
#include "dsl/primitive.h"
#include "dsl/schedule_state.h"

namespace cusched {

// Sets e.step and e.op when e has no step and one can be attributed, and e.phase to
// `phase` when it has none.
void attribute_error_to_step(Error& e, const ScheduleState& st, const std::vector<StepJson>& steps,
                             const std::string& phase);

}  // namespace cusched
