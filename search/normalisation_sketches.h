#pragma once
// The normalisation class's sketches: one block per row with the statistics fused into
// the output and combined across threads; for few, long rows the statistics split over
// many blocks (rfactor) and combined per row; rows spread over thread-block clusters.
#include <vector>

#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

std::vector<Sketch> normalisation_sketches(const Problem& p);

}  // namespace cusched::search
