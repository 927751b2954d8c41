#pragma once
// The classes of problems the built-in proposer tells apart, read from a pipeline's
// structure, and the hand-written starting schedules (sketches) for each class: flat
// grids and vector accesses for pointwise stages, reductions across threads, blocks and
// clusters, rows split over blocks, thread and tensor-core tiles for sums of products.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "problems/problem.h"

namespace cusched::search {

// The shape of a problem, read from its pipeline.
enum class ProblemClass { pointwise, reduction, normalisation, matmul, convolution };
std::string problem_class_name(ProblemClass c);
// No reduction: pointwise. A sum of products of loads: matmul, or convolution when an
// index is not a plain variable. A pointwise output reading both a reduction and an
// input: normalisation. Otherwise: reduction.
ProblemClass classify_pipeline(const Pipeline& pipeline);

struct Sketch {
  std::string idea;
  nlohmann::json schedule;
};
// Hand-written starting points for the class, for a few thread counts and vector
// widths (with_fast_epilogue applied to each), then the presum sketches. Not validated:
// some may be illegal for a given problem.
std::vector<Sketch> class_sketches(const Problem& problem, ProblemClass c);

}  // namespace cusched::search
