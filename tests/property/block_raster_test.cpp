// block_raster: the blocks of a tiled stage take its tiles in groups along blockIdx.x.
// Every tile is still computed once: a matmul's wgmma and mma.sync tiles over a grid of
// several tiles each way and a 2-D pointwise grid verify in the interpreter with groups
// that leave a partial last group and a group wider than the grid; the IR reads the tile
// from the block's launch position. A stage without one loop on each of blockIdx.x and
// blockIdx.y is refused.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

nlohmann::json rastered(nlohmann::json steps, const std::string& stage, int group) {
  steps.push_back({{"op", "block_raster"}, {"stage", stage}, {"group", group}});
  return steps;
}

// matmul with a grid of several tiles each way at its small size: 300 x 520 x 40.
Problem wide_matmul() {
  Problem p = find_problem("matmul");
  p.sizes["small"] = {{"M", 300}, {"N", 520}, {"K", 40}};
  return p;
}

TEST(BlockRaster, TiledSchedulesStillComputeEveryTileOnce) {
  const Problem p = wide_matmul();
  // wgmma: 2 x 5 tiles of 256 x 128 (C's transpose); mma.sync: 5 x 9 tiles of 64 x 64.
  for (const auto& steps :
       {wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 256, 2, 4),
        tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {64, 64, 32, 32, 32, "tf32", 2})})
    for (int group : {2, 3, 64}) {
      SCOPED_TRACE("group " + std::to_string(group) + ": " + steps.dump());
      auto r = testing::verify_small(p, rastered(steps, "C", group), 5);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
      EXPECT_NE(testing::ir_of(p, rastered(steps, "C", group)).find("min("), std::string::npos);
    }
}

TEST(BlockRaster, ATwoDimensionalPointwiseGridVerifies) {
  // relu's (2, 3, 5, 7) output: B x C (6) on blockIdx.y, H x W (35) in 5 blocks of 8 threads on x.
  nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "b", "inner": "c", "fused": "bc"},
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w", "fused": "hw"},
    {"op": "split", "stage": "Y", "loop": "hw", "factor": 8, "outer": "hwo", "inner": "hwi"},
    {"op": "bind", "stage": "Y", "loop": "bc", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "hwo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "hwi", "axis": "threadIdx.x"}])");
  for (int group : {2, 3}) {
    auto r = testing::verify_small("relu", rastered(steps, "Y", group), 3);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << "group " << group << ": " << r.message << r.error.message;
  }
}

TEST(BlockRaster, AStageWithoutBothBlockAxesIsRefused) {
  nlohmann::json flat = flat_grid_steps("Y", {"b", "c", "h", "w"});
  EXPECT_EQ(testing::lowering_error("relu", rastered(flat, "Y", 4)), "raster-needs-two-block-axes");
}

}  // namespace
}  // namespace cusched
