// cache_write scope shared lowered from the DSL and run in the interpreter at the small
// sizes: tensor-core and CUDA-core tiles whose accumulators go through a shared tile of
// the block's output, with dividing and non-dividing tiles, an epilogue stage after the
// product, batches, and the lowering's errors where no block tile exists.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"
#include "tests/property/schedule_checks.h"
#include "tests/property/staged_tile_schedules.h"

namespace cusched {
namespace {

using testing::with_shared_output;

using testing::ir_of;
using testing::lowering_error;

runtime::InterpVerification verify(const std::string& problem, const nlohmann::json& steps) {
  return testing::verify_small(problem, steps, 11);
}

nlohmann::json cuda_core_steps(int bm, int bn) { return testing::cuda_core_staged_tile_steps(bm, bn); }

TEST(CacheWriteShared, TensorCoreTilesMatchTheReference) {
  // matmul small is 64 x 48 x 40: 32 x 16 blocks divide it, 128 x 128 blocks overhang it.
  for (TensorCoreTile t : {TensorCoreTile{32, 16, 16, 8, 8, "tf32"}, TensorCoreTile{128, 128, 64, 32, 32, "3xtf32"}}) {
    SCOPED_TRACE(std::to_string(t.bm) + "x" + std::to_string(t.bn));
    auto steps = with_shared_output(tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", t), "C");
    auto r = verify("matmul", steps);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
    std::string ir = ir_of("matmul", steps);
    EXPECT_NE(ir.find("allocate C_tile"), std::string::npos) << ir;
    // A's fragments load with ldmatrix where the tile divides; tails keep guarded scalar loads.
    EXPECT_EQ(ir.find("ldmatrix_x4") != std::string::npos, t.bm == 32) << ir;
  }
}

TEST(CacheWriteShared, CudaCoreTilesMatchTheReference) {
  for (auto [bm, bn] : {std::pair{16, 16}, std::pair{12, 20}}) {
    SCOPED_TRACE(std::to_string(bm) + "x" + std::to_string(bn));
    auto steps = with_shared_output(cuda_core_steps(bm, bn), "C");
    auto r = verify("matmul", steps);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
    EXPECT_NE(ir_of("matmul", steps).find("allocate C_tile"), std::string::npos);
  }
}

TEST(CacheWriteShared, TheEpilogueAfterTheProductIsAppliedOnce) {
  // gemm_add_relu small is 5 x 37 x 23: every tile loop has a tail; Y = relu(G + bias) reads G.
  const Problem& p = find_problem("gemm_add_relu");
  for (bool tensor_cores : {true, false}) {
    SCOPED_TRACE(tensor_cores ? "tensor cores" : "CUDA cores");
    nlohmann::json g =
        tensor_cores ? tensor_core_tile_steps("G", "i", "j", "k", "X", 4, "weight", 4, "", {32, 16, 16, 8, 8, "tf32"})
                     : tiled_grid_steps("G", "i", "j");
    auto steps = with_shared_output(concat_steps({g, flat_grid_steps("Y", {"i", "j"})}), "G");
    auto r = verify(p.name, steps);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
    EXPECT_NE(ir_of(p.name, steps).find("allocate G_tile"), std::string::npos);
  }
}

TEST(CacheWriteShared, BatchedTensorCoreTilesMatchTheReference) {
  auto steps = with_shared_output(
      tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "b", {32, 16, 16, 8, 8, "tf32"}), "C");
  auto r = verify("bmm", steps);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  EXPECT_NE(ir_of("bmm", steps).find("allocate C_tile"), std::string::npos);
}

TEST(CacheWriteShared, RegisterScopeLeavesTheDirectWriteOut) {
  auto steps = cuda_core_steps(16, 16);
  steps.push_back({{"op", "cache_write"}, {"stage", "C"}, {"scope", "register"}});
  EXPECT_EQ(ir_of("matmul", steps).find("C_tile"), std::string::npos);
}

TEST(CacheWriteShared, AStageWithoutBlockLoopsIsRefused) {
  nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "split", "stage": "C", "loop": "j", "factor": 16},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_write", "stage": "C", "scope": "shared"}
  ])");
  EXPECT_EQ(lowering_error("matmul", steps), "cache-write-shared-no-block-loops");
}

}  // namespace
}  // namespace cusched
