#include "dsl/primitives/tensor_core_tile.h"

#include "dsl/error.h"

namespace cusched {

void require_lowerable_tensor_core_tile(const std::string& stage, const std::string& shape, int64_t m, int64_t n,
                                        bool reduction_outside_tile) {
  if (!reduction_outside_tile)
    fail(
        "tensor-core-reduction-not-split",
        "Stage '" + stage + "' has only one reduction loop, so its tensor-core tile (" + shape +
            ") would hold the whole reduction; the tile's k loop must step through one slice of it.",
        "Split the reduction loop first (e.g. split k by 32 into ko and ki) and keep the outer part outside the tile.");
  const int64_t threads = shape == "m64nNk8" || shape == "m64nNk16" ? 128 : 32;
  const int64_t limit = int64_t{1} << 31;
  const int64_t per_thread = m > 0 && n > 0 && m < limit && n < limit ? m * n / threads : -1;
  if (per_thread < 0 || per_thread > kMaxTensorCoreAccumulatorsPerThread)
    fail("tensor-core-tile-too-large",
         "The tensor-core tile of stage '" + stage + "' is " + std::to_string(m) + " x " + std::to_string(n) +
             ", more accumulators per thread than the " + std::to_string(kMaxTensorCoreAccumulatorsPerThread) +
             " that fit in registers.",
         "Split the tile's two pure loops so that each warp (warpgroup) computes a smaller tile, e.g. 64 x 32 per "
         "warp, and bind the "
         "outer parts to threadIdx.y / threadIdx.z or blocks.");
}

}  // namespace cusched
