#pragma once
// Sketches that fuse a pipeline into the tiles of its output: for an output that is a
// reduction reading other reductions (directly or through pointwise stages), the
// pointwise stages are inlined and every reduction producer is computed at the output's
// tile of rows, in shared memory, so one kernel computes the pipeline and no
// intermediate reaches global memory (attention's scores and row statistic, at a tile
// of query rows).
#include <vector>

#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

// Appends the sketches (none when the output is not such a reduction): row tiles of 8
// or 16 and 128 or 256 threads along the output's last variable.
void fused_tile_sketches(std::vector<Sketch>& out, const Problem& p);

}  // namespace cusched::search
