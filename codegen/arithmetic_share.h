#pragma once
// The share of a problem's arithmetic that a schedule's algorithm performs. A schedule
// that rewrites the arithmetic (presum: a GEMM's row sum taken as a column sum of the
// weights and a matrix-vector product) needs a fraction of the products that the problem
// declares, so the performance floor's FLOP term shrinks with it; every other schedule
// performs them all.
#include "dsl/schedule.h"

namespace cusched {

// The reductions' work of `state`'s stages over that of the problem's own pipeline (each
// stage's points times its reduction's points, twice for a sum of products), at most 1;
// 1 where the pipeline has no reduction.
double arithmetic_share(const ScheduleState& state);

}  // namespace cusched
