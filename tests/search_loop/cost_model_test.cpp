// The cost model counts tensor-core work at the tensor-core rate and asynchronous
// copies as global traffic.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "search/cost_model.h"

namespace cusched::search {
namespace {

CostBreakdown cost(const Problem& p, const nlohmann::json& steps) {
  return estimate_cost(lower(Schedule::from_json(p.context("bench"), steps), p.name));
}

TEST(CostModel, TensorCoreTilesCountTheirProductAtTheTensorCoreRate) {
  const Problem& p = find_problem("matmul");
  const double product = 2.0 * 4096 * 4096 * 4096;
  CostBreakdown tf32 = cost(p, tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {128, 128, 64, 32, 32, "tf32"}));
  CostBreakdown split = cost(p, tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {128, 128, 64, 32, 32, "3xtf32"}));
  // The product at 364/51 times the f32 rate, plus the operands' TF32 rounding on CUDA cores.
  const double tensor = product * 51.0 / 364.0;
  EXPECT_GE(tf32.flops, tensor * 0.99);
  EXPECT_LT(tf32.flops, product / 4);
  // 3xtf32 does three products (and rounds inside the device library, not in the operands).
  EXPECT_GE(split.flops, 3 * tensor * 0.99);
  EXPECT_LT(split.flops, 3 * tensor * 1.01);
  EXPECT_GT(tf32.global_bytes, 0.0);
}

TEST(CostModel, PipelinedCopiesAreGlobalTrafficLikePlainCopies) {
  const Problem& p = find_problem("matmul");
  nlohmann::json plain = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8);
  nlohmann::json piped = plain;
  piped.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 3}});
  EXPECT_NEAR(cost(p, piped).global_bytes, cost(p, plain).global_bytes, cost(p, plain).global_bytes * 0.01);
}

}  // namespace
}  // namespace cusched::search
