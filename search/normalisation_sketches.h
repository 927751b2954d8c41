#pragma once
// The normalisation class's sketches: the statistics on grids of their own (by their size,
// clusters of blocks for few long ones) and the output a flat grid, which also serves
// statistics over loops that are not the output's leading ones (BatchNorm's per channel);
// one block per row with the statistics fused into the output and combined across
// threads; for few, long rows the statistics split over many blocks (rfactor) and
// combined per row; rows spread over thread-block clusters.
#include <vector>

#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

std::vector<Sketch> normalisation_sketches(const Problem& p);

}  // namespace cusched::search
