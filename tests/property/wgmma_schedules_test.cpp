// Warpgroup tensor-core schedules (tensor_core m64nNk8) lowered from the DSL and run in
// the interpreter at the small size, where every tile loop has a tail: the matmul
// problems as C's transpose (the instruction's A, B's transpose, loaded into registers;
// its B read from A's swizzled K-major copy), the gemm whose operands both run along k,
// with one k-step in flight or none, in tf32 and 3xtf32; and the lowering's errors for
// operands the tensor cores cannot read.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::ir_of;
using testing::lowering_error;

nlohmann::json matmul_tile(int depth, const std::string& batch = "") {
  return wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", batch, 256, 2, depth);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(WgmmaSchedules, MatmulTransposedTilesMatchTheReference) {
  for (const char* problem : {"matmul", "matmul_rect"})
    for (int depth : {4, 3, 2, 0}) {
      SCOPED_TRACE(std::string(problem) + ", pipeline depth " + std::to_string(depth));
      auto r = testing::verify_small(problem, matmul_tile(depth), 7);
      EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
      EXPECT_GT(r.max_abs_err, 0.0) << "tf32 operands must round";
      const std::string ir = ir_of(problem, matmul_tile(depth));
      EXPECT_GT(count(ir, "wgmma_m64n256k8_tf32"), 0u) << ir;
      // A k-step stays in flight only with three buffers or more, and the pipelined
      // loop then runs in pairs, one per fragment buffer.
      const bool in_flight = depth >= 3;
      EXPECT_EQ(count(ir, "wgmma_wait(1 in flight; holds C_fa") > 0, in_flight);
      EXPECT_EQ(count(ir, "ko_pair") > 0, in_flight);
      EXPECT_GT(count(ir, "async_proxy_fence"), 0u) << "copies are ordered before the tensor cores read them";
    }
  auto r = testing::verify_small("bmm", matmul_tile(4, "b"), 7);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

// 3xtf32: three TF32 products of the operands' high and low parts per k8 step, B's
// parts split by the block into two swizzled buffers; the error falls to f32 rounding.
TEST(WgmmaSchedules, ThreeTf32TilesMatchTheReferenceToNearlyF32) {
  for (const char* problem : {"matmul", "matmul_rect"})
    for (int depth : {4, 3, 2, 0}) {
      SCOPED_TRACE(std::string(problem) + ", pipeline depth " + std::to_string(depth));
      auto tile = [&](const std::string& precision) {
        return wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 128, 2, depth, precision);
      };
      auto tf32 = testing::verify_small(problem, tile("tf32"), 7);
      auto split = testing::verify_small(problem, tile("3xtf32"), 7);
      ASSERT_EQ(split.verdict, cusched::runtime::Verdict::ok) << split.message << split.error.message;
      EXPECT_LT(split.max_abs_err * 50, tf32.max_abs_err);
      const std::string ir = ir_of(problem, tile("3xtf32"));
      EXPECT_EQ(count(ir, "wgmma_m64n128k8_tf32"), 3 * count(ir_of(problem, tile("tf32")), "wgmma_m64n128k8_tf32"));
      EXPECT_GT(count(ir, "C_bhi"), 0u);
      EXPECT_GT(count(ir, "C_blo"), 0u);
      EXPECT_EQ(count(ir, "wgmma_wait(1 in flight; holds C_fa") > 0, depth >= 3);
    }
  auto r = testing::verify_small("bmm", wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "b", 128, 2, 4, "3xtf32"), 7);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

// The block's threads split B's tile together: in 3xtf32, a thread loop outside the
// warpgroup loops is refused at the schedule.
TEST(WgmmaSchedules, ThreeTf32WithThreadsOutsideTheWarpgroupsIsRefused) {
  auto tile = [](const std::string& precision) {
    nlohmann::json steps = wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 128, 2, 2, precision);
    for (auto& s : steps)
      if (s["op"] == "reorder") s["loops"] = {"no", "mo", "mw", "ko", "mi", "ni", "ki"};
    return steps;
  };
  EXPECT_EQ(lowering_error("matmul", tile("3xtf32")), "wgmma-3xtf32-threads");
  EXPECT_NE(lowering_error("matmul", tile("tf32")), "wgmma-3xtf32-threads");
}

TEST(WgmmaSchedules, GemmWithBothOperandsAlongKMatchesTheReference) {
  for (const char* problem : {"gemm_add_relu", "gemm_scale_leakyrelu", "gemm_gelu_softmax"}) {
    auto r = testing::verify_small(problem, find_problem(problem).best_schedule, 7);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << problem << ": " << r.message << r.error.message;
  }
}

TEST(WgmmaSchedules, OperandsTheTensorCoresCannotReadAreRefused) {
  // The descriptor operand staged with padding instead of the swizzle.
  nlohmann::json padded = matmul_tile(4);
  for (auto& s : padded)
    if (s["op"] == "cache_read" && s["source"] == "A") {
      s.erase("swizzle");
      s["pad"] = 4;
    }
  EXPECT_EQ(lowering_error("matmul", padded), "wgmma-b-layout");
  // Not staged at all.
  nlohmann::json unstaged;
  for (const auto& s : matmul_tile(0))
    if (!(s["op"] == "cache_read" && s["source"] == "A")) unstaged.push_back(s);
  EXPECT_EQ(lowering_error("matmul", unstaged), "wgmma-b-not-shared");
  // C = A @ B with n = j: the descriptor operand B(k, j) runs along j, not k.
  EXPECT_EQ(lowering_error("matmul", wgmma_tile_steps("C", "i", "j", "k", "A", 4, "B")), "wgmma-b-layout");
  // N beyond 256, and a precision the instruction shape does not take.
  EXPECT_EQ(lowering_error("matmul", wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 512)),
            "tensor-core-shape-does-not-tile");
  nlohmann::json bf16 = matmul_tile(4);
  for (auto& s : bf16)
    if (s["op"] == "tensor_core") s["precision"] = "bf16";
  EXPECT_EQ(lowering_error("matmul", bf16), "tensor-core-shape-precision");
}

}  // namespace
}  // namespace cusched
