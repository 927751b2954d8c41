// The lowering's errors for cache_write scope shared where the stage has no block
// output tile it can stage: a stage computed inside another, a tile region that is not
// affine in the stage's loops, a tile larger than the shared memory it may take, and a
// reduction combined across the blocks of a cluster.
// Each error is checked next to the nearest schedule that lowers, so that the test
// fails if the error comes from anything other than the property named.
#include <optional>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "tests/property/cluster_test_schedules.h"
#include "tests/property/staged_tile_schedules.h"

namespace cusched {
namespace {

using testing::with_shared_output;

// The error that lowering `steps` of `problem` at the small size raises, if any.
std::optional<Error> lowering_failure(const std::string& problem, const nlohmann::json& steps) {
  const Problem& p = find_problem(problem);
  try {
    lower(Schedule::from_json(p.context("small"), steps), problem);
  } catch (const UserError& e) {
    return e.error();
  }
  return std::nullopt;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(CacheWriteSharedErrors, AStageComputedInsideAnotherIsRefused) {
  // softmax's best schedule computes the row maximum M inside Y's row loop, where it
  // lives on chip: it has no global output to stage through shared memory.
  const Problem& p = find_problem("softmax");
  ASSERT_FALSE(lowering_failure(p.name, p.best_schedule)) << "the schedule without cache_write must lower";
  auto e = lowering_failure(p.name, with_shared_output(p.best_schedule, "M"));
  ASSERT_TRUE(e) << "cache_write scope shared on a stage computed at Y's loop was accepted";
  EXPECT_EQ(e->code, "cache-write-shared-not-root");
  EXPECT_TRUE(mentions(e->message, "'M'")) << e->message;
  EXPECT_TRUE(mentions(e->hint, "compute it at root")) << e->hint;
}

TEST(CacheWriteSharedErrors, AFusedOutputWhoseTileIsNotAffineIsRefused) {
  // matmul small is 64 x 48 x 40. Fusing i and j into one loop of 3072 points spread
  // over 256-thread blocks makes i = ij / 48 and j = ij % 48: a block's points are no
  // affine region of C.
  const nlohmann::json fused = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "C", "outer": "i", "inner": "j", "fused": "ij"},
    {"op": "split", "stage": "C", "loop": "ij", "factor": 256, "outer": "ijo", "inner": "iji"},
    {"op": "bind", "stage": "C", "loop": "ijo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "iji", "axis": "threadIdx.x"}
  ])");
  ASSERT_FALSE(lowering_failure("matmul", fused)) << "the schedule without cache_write must lower";
  auto e = lowering_failure("matmul", with_shared_output(fused, "C"));
  ASSERT_TRUE(e) << "a fused (non-affine) block tile was accepted";
  EXPECT_EQ(e->code, "cache-write-shared-not-affine");
  EXPECT_TRUE(mentions(e->hint, "split, tile and reorder")) << e->hint;
  // The same block of 16 x 16 points made with tile is affine and lowers.
  const nlohmann::json tiled = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 16},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"}
  ])");
  EXPECT_FALSE(lowering_failure("matmul", with_shared_output(tiled, "C")));
}

// matmul tiled rows x cols per block, every point of the tile computed by one thread
// (the tile loops stay serial), so that the tile can be larger than a thread block.
nlohmann::json serial_block_tile(int rows, int cols) {
  nlohmann::json s = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 0, "y_factor": 0},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"}
  ])");
  s[0]["x_factor"] = rows;
  s[0]["y_factor"] = cols;
  return with_shared_output(s, "C");
}

TEST(CacheWriteSharedErrors, ATileBeyond96KiBIsRefused) {
  // 128 x 256 f32 is 128 KiB; 64 x 256 f32 is 64 KiB, within the 96 KiB the tile may take.
  auto e = lowering_failure("matmul", serial_block_tile(128, 256));
  ASSERT_TRUE(e) << "a 128 KiB output tile was accepted";
  EXPECT_EQ(e->code, "cache-write-shared-too-large");
  EXPECT_TRUE(mentions(e->message, "131072 bytes")) << e->message;
  EXPECT_TRUE(mentions(e->hint, "smaller")) << e->hint;
  EXPECT_FALSE(lowering_failure("matmul", serial_block_tile(64, 256)));
}

TEST(CacheWriteSharedErrors, AReductionCombinedAcrossAClusterIsRefused) {
  const nlohmann::json steps = testing::argmax_over_a_cluster_steps();
  EXPECT_FALSE(lowering_failure("argmax_dim1", steps));
  auto e = lowering_failure("argmax_dim1", with_shared_output(steps, "I"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, "cache-write-shared-reduction-across-blocks");
  EXPECT_TRUE(mentions(e->message, "'ro'")) << e->message;
}

}  // namespace
}  // namespace cusched
