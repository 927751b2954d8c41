#pragma once
// Row-wise L2 normalisation of a (4096, 8192) tensor as a cusched problem, and a
// hand-written schedule for it.
#include <cusched/cusched.h>

// Y(i, j) = X(i, j) / max(sqrt(sum_k X(i, k)^2), 1e-12): torch.nn.functional.normalize(X, dim=1).
cusched::Problem make_rownorm();

// One block per row: the row's sum of squares combined across the block's 256 threads,
// then each thread normalises every 256th element of the row.
cusched::Schedule block_per_row_schedule(const cusched::ScheduleContext& ctx);
