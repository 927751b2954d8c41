#pragma once
// Schedules derived from a pipeline's structure alone, correct at every size: the
// automatic baseline (the start of a problem that has no baseline of its own) and the
// reference schedule (the float64 reference kernel).
#include <string>

#include <nlohmann/json.hpp>

#include "dsl/pipeline.h"
#include "dsl/schedule.h"
#include "problems/problem.h"

namespace cusched {

// Threads per block of the automatic baseline's and the reference's grids.
constexpr int64_t kAutomaticBaselineThreads = 256;

// Every stage at root, in pipeline order (one kernel each): a pure stage as a flat
// grid (its pure loops fused and split over blocks of 256 threads), a reduction with
// one block per output point and its reduction loops (fused) combined across the
// block's 256 threads, a scan along its innermost dimension with one block per line
// (tiles of 256 threads x 16 elements, scanned in registers, across the threads and
// carried from tile to tile), a scan along another dimension with one thread per line.
// The steps name no size: split guards cover extents that are not multiples of 256,
// smaller than a block, or 1.
nlohmann::json automatic_baseline(const Pipeline& pipeline);

// A reduction stage of fewer points than this, each over at least kReferenceBlockExtent
// elements, gets a block of kAutomaticBaselineThreads threads per point in the reference
// (bench/problem_sizes.py mirrors both).
constexpr int64_t kReferenceBlockPoints = 4096;
constexpr int64_t kReferenceBlockExtent = 65536;

// The steps of the reference schedule at `sizes`: every stage at root as a flat grid of
// 256-thread blocks, reductions serial in each thread, scans with one thread per line (the
// grid over the other dimensions); a reduction of fewer than 4096 points over 65536 or
// more elements each gets a block of 256 threads per point instead, its elements
// combined across the block (a serial thread per point would take minutes on the GPU).
nlohmann::json reference_schedule_steps(const Pipeline& pipeline, const SizeBindings& sizes);
// reference_schedule_steps applied in `ctx`. Used for the float64 reference.
Schedule reference_schedule(const ScheduleContext& ctx);

// The problem's baseline schedule, or the automatic baseline when it has none: what
// `-s baseline` and the search's first candidate use.
nlohmann::json baseline_schedule_of(const Problem& problem);
// The problem's best known schedule, or baseline_schedule_of when it has none.
nlohmann::json best_schedule_of(const Problem& problem);

}  // namespace cusched
