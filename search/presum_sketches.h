#pragma once
// Sketches that take a sum over a contraction's output through the contraction (presum):
// the summed operand first, then the contraction of the other operand with that sum.
#include <vector>

#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

// For each stage that presum applies to, at the problem's default size: the operand's sum
// split over 64 parts (rfactor) or with one thread per point, each sum over 256 or more
// elements one block of 256 threads per point, every other stage a flat grid of 256
// threads. None where presum applies to no stage.
std::vector<Sketch> presum_sketches(const Problem& p);

}  // namespace cusched::search
