#pragma once
// The expression of a stage with the stages it reads through compute_inline expanded in
// place: what the legality of a fold (dsl/epilogue.h) and lowering both evaluate.
#include <functional>

#include "dsl/schedule_state.h"

namespace cusched {

// What a padded load of an inlined stage becomes, given the load and the stage's body at
// the load's indices (its own inlined stages expanded).
using PaddedInlineLoad = std::function<Expr(const Expr& load, const Expr& body)>;

// `e` with every load of a stage computed inline replaced by that stage's body at the
// load's indices, recursively. A padded load of an inlined stage is given to `padded`;
// without one it stays as it is.
Expr expand_inlined_stages(const ScheduleState& st, const Expr& e, const PaddedInlineLoad& padded = nullptr);

}  // namespace cusched
