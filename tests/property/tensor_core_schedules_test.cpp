// Tensor-core schedules lowered from the DSL and run in the interpreter at the small
// size: warps of mma tiles, shared staging, tails of non-dividing tiles, and the
// lowering's errors for tiles it cannot form.
#include <sstream>
#include <string>
#include <vector>

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

// The IR lines that fill C's operand fragments.
std::vector<std::string> fragment_fills(const std::string& ir) {
  std::vector<std::string> out;
  std::istringstream in(ir);
  for (std::string line; std::getline(in, line);)
    if (line.find("C_fa[") != std::string::npos || line.find("C_fb[") != std::string::npos)
      if (line.find(" = ") != std::string::npos || line.find(" <- ") != std::string::npos)
        if (line.find(" = C_f") == std::string::npos) out.push_back(line);
  return out;
}

TEST(TensorCoreSchedules, OperandTailsAreReadFromTheirWholeTileCopiesWithoutGuards) {
  // 128 x 128 tiles over 64 x 48 with K steps of 8 over 40: A's rows and B's columns
  // overhang. Their products reach only accumulators that are never stored, and the
  // staged copies span the overhang (zeros beyond the tensors), so no fragment read is
  // guarded and A's is an ldmatrix.
  const auto own_tails = tensor_core_steps(128, 128, 64, 32, 8, "m16n8k8", "tf32");
  auto r = verify("matmul", own_tails);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  const std::string ir = testing::ir_of("matmul", own_tails);
  const auto fills = fragment_fills(ir);
  ASSERT_FALSE(fills.empty()) << ir;
  for (const auto& line : fills) EXPECT_EQ(line.find("select("), std::string::npos) << line;
  EXPECT_NE(ir.find("ldmatrix_x4(A_shared"), std::string::npos) << ir;
  // K steps of 32 over 40: the k tail overhangs too, and its products reach stored
  // accumulators, so both operands keep the k guard (and only it).
  const auto k_tail = tensor_core_steps(128, 128, 64, 32, 32, "m16n8k8", "tf32");
  r = verify("matmul", k_tail);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  const auto k_fills = fragment_fills(testing::ir_of("matmul", k_tail));
  ASSERT_FALSE(k_fills.empty());
  for (const auto& line : k_fills) {
    EXPECT_NE(line.find("< 40)"), std::string::npos) << line;
    EXPECT_EQ(line.find("< 64)"), std::string::npos) << line;
    EXPECT_EQ(line.find("< 48)"), std::string::npos) << line;
  }
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
