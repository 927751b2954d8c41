#pragma once
// Epilogue fusion (fuse_epilogue): a pointwise stage folded into the final store of the
// reduction it reads, so that the reduction's values go from its accumulators through
// the stage's expression straight into the stage's buffer (a GEMM's bias and activation
// in the GEMM's kernel). The conditions are the primitive's and the legality rule's.
#include <optional>
#include <string>

#include "dsl/error.h"
#include "dsl/schedule_state.h"

namespace cusched {

using EpilogueRefusal = Refusal;

// `consumer`'s expression with the stages it inlines expanded: the expression lowering
// evaluates at the producer's final store.
Expr epilogue_body(const ScheduleState& st, const std::string& consumer);

// The reduction that pointwise stage `consumer` reads ("" when it reads none or several).
std::string epilogue_producer(const ScheduleState& st, const std::string& consumer);

// Why `consumer` cannot be folded into the reduction it reads, or nullopt when it can:
// it must be a pointwise stage computed at root whose expression (its inlined producers
// expanded) reads exactly one stage, a reduction at root that is not an output and that
// no other stage reads, every read of it at the consumer's own variables in order over
// the same extents.
std::optional<EpilogueRefusal> epilogue_refusal(const ScheduleState& st, const std::string& consumer);

}  // namespace cusched
