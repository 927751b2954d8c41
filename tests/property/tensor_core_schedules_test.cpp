// Tensor-core schedules lowered from the DSL and run in the interpreter at the small
// size: warps of mma tiles, shared staging, tails of non-dividing tiles, and the
// lowering's errors for tiles it cannot form.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::lowering_error;

runtime::InterpVerification verify(const std::string& problem, const nlohmann::json& steps) {
  return testing::verify_small(problem, steps, 7);
}

// C's tile: blocks of bm x bn, warps of wm x wn, K steps of bk staged in shared memory.
nlohmann::json tensor_core_steps(int bm, int bn, int wm, int wn, int bk, const std::string& shape,
                                 const std::string& precision) {
  return tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {bm, bn, wm, wn, bk, precision, 0, shape});
}

TEST(TensorCoreSchedules, DividingTilesMatchTheReference) {
  // matmul small is 64 x 48 x 40: 32 x 16 block tiles of 16 x 8 warp tiles, K steps of 8.
  auto r = verify("matmul", tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32"));
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  EXPECT_GT(r.max_abs_err, 0.0) << "tf32 operands must round";
}

TEST(TensorCoreSchedules, TailsOfNonDividingTilesMatchTheReference) {
  // 128 x 128 tiles and K steps of 32 over 64 x 48 x 40: every tile loop has a tail.
  auto r = verify("matmul", tensor_core_steps(128, 128, 64, 32, 32, "m16n8k8", "tf32"));
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(TensorCoreSchedules, SplitTf32MeetsTheStrictTolerance) {
  const Problem& p = find_problem("matmul");
  Schedule s = Schedule::from_json(p.context("small", true), tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "3xtf32"));
  auto r = runtime::verify_with_interpreter(p, s, "small", 7, 1, true);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  EXPECT_LT(r.max_abs_err, 1e-4);
  // Plain TF32 is refused at the strict tolerance.
  try {
    Schedule::from_json(p.context("small", true), tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32"));
    ADD_FAILURE() << "tf32 accepted at 1e-4";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "precision-exceeds-tolerance");
  }
}

TEST(TensorCoreSchedules, SoftwarePipelinedTilesMatchTheReference) {
  // Dividing tiles with a 5-step K loop and three buffers, and overhanging tiles with two.
  auto dividing = tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32");
  dividing.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 3}});
  auto r = verify("matmul", dividing);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  auto tails = tensor_core_steps(128, 128, 64, 32, 16, "m16n8k8", "3xtf32");
  tails.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 2}});
  r = verify("matmul", tails);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(TensorCoreSchedules, PipelinedCudaCoreTileMatchesTheReference) {
  // The CUDA-core register tile with its staged copies pipelined.
  nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 32, "y_factor": 16},
    {"op": "split", "stage": "C", "loop": "ii", "factor": 4, "outer": "it", "inner": "ir"},
    {"op": "split", "stage": "C", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "it", "ji", "ki", "ir"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "it", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko"},
    {"op": "pipeline", "stage": "C", "loop": "ko", "depth": 4}
  ])");
  auto r = verify("matmul", steps);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(TensorCoreSchedules, HalfPrecisionOperandsMatchTheReference) {
  auto r = verify("matmul", tensor_core_steps(32, 48, 32, 16, 16, "m16n8k16", "f16"));
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(TensorCoreSchedules, TheReductionLoopMayComeFirstInTheTile) {
  auto steps = tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32");
  steps[4]["loops"] = nlohmann::json::array({"io", "jo", "ko", "iw", "jw", "ki", "im", "jn"});
  auto r = verify("matmul", steps);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(TensorCoreSchedules, TilesTheLoweringCannotFormAreErrors) {
  auto bad_x = tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32");
  bad_x[7]["axis"] = "threadIdx.x";
  EXPECT_EQ(lowering_error("matmul", bad_x), "tensor-core-uses-thread-x");
  auto not_inner = tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32");
  not_inner[4]["loops"] = nlohmann::json::array({"io", "jo", "iw", "jw", "im", "jn", "ko", "ki"});
  EXPECT_EQ(lowering_error("matmul", not_inner), "tensor-core-loops-not-innermost");
  auto extra = tensor_core_steps(32, 16, 16, 8, 8, "m16n8k8", "tf32");
  extra[8]["op"] = "unroll";
  extra[8].erase("axis");
  EXPECT_EQ(lowering_error("matmul", extra), "tensor-core-extra-pure-loop");
}

}  // namespace
}  // namespace cusched
