#pragma once
// What a tensor-core tile needs in order to be lowered: the rule is applied by the
// tensor_core step and again by lowering, where later steps may have changed the loops.
#include <cstdint>
#include <string>

namespace cusched {

// Accumulators one thread may hold for its warp's (warpgroup's) tile: more cannot stay
// in the 255 registers a thread has.
constexpr int64_t kMaxTensorCoreAccumulatorsPerThread = 256;

// Throws when stage `stage`'s tile of shape `shape` (m16n8k8, m16n8k16, m64nNk8 or m64nNk16) with
// innermost pure extents m x n cannot be lowered: `reduction_outside_tile` says whether
// a reduction loop lies outside the tile (the tile's k loop steps through one slice of
// the reduction, so the reduction must be split), and the accumulators per thread
// (m * n / 32 per warp, m * n / 128 per warpgroup) must fit kMaxTensorCoreAccumulatorsPerThread.
void require_lowerable_tensor_core_tile(const std::string& stage, const std::string& shape, int64_t m, int64_t n,
                                        bool reduction_outside_tile);

}  // namespace cusched
