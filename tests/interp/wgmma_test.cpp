// The generated warpgroup tensor-core tile (tensor_core m64nNk8) in the interpreter at a
// size with a K loop of five 32-wide steps, so that two k-steps overlap and the
// pipelined loop runs two pairs and a last step: C matches an f64 product of the
// operands within TF32 rounding; leaving two k-steps in flight overwrites the operands
// of one still reading them, and dropping the final wait ends the block with
// instructions in flight, both reported by the interpreter. Both operands reach the
// tensor cores as f32 bits that they truncate to tf32: C is the sum of the truncated
// products, rounded to f32 once per k8 instruction, and not the rounded operands' sum.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/interp_rounding.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

const Sizes kFiveSteps{96, 72, 160};

LoweredProgram lowered_tile() {
  return lower(Schedule::from_json(matmul_context(kFiveSteps), wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A")),
               "matmul");
}

HostBuffers inputs() {
  HostBuffers b;
  for (int64_t i = 0; i < kFiveSteps.m * kFiveSteps.k; ++i) b["A"].push_back(static_cast<float>(std::sin(i * 0.37)));
  for (int64_t i = 0; i < kFiveSteps.k * kFiveSteps.n; ++i) b["B"].push_back(static_cast<float>(std::cos(i * 0.23)));
  return b;
}

// `s` with every WgmmaWait replaced by f(wait) (an empty block when f gives none).
Stmt edit_waits(const Stmt& s, const std::function<Stmt(const Stmt&)>& f) {
  if (s->kind == StmtKind::WgmmaWait) {
    Stmt e = f(s);
    return e ? e : make_block({});
  }
  auto n = std::make_shared<StmtNode>(*s);
  for (auto& c : n->body) c = edit_waits(c, f);
  return n;
}

std::string error_of(const LoweredProgram& p) {
  HostBuffers b = inputs();
  return error_code([&] { interpret(p, b); });
}

TEST(Wgmma, TileWithTwoStepsInFlightMatchesTheProduct) {
  const LoweredProgram p = lowered_tile();
  const std::string ir = print_ir(p);
  const size_t pair = ir.find("for C_ko_pair in [0, 2)");
  ASSERT_NE(pair, std::string::npos) << ir;
  // Each k-step loads its fragments, then issues the refill copies, then its wgmmas.
  const size_t fragments = ir.find("C_fa[", pair), refill = ir.find("<- async", pair),
               fence = ir.find("wgmma_fence", pair);
  EXPECT_LT(fragments, refill) << ir;
  EXPECT_LT(refill, fence) << ir;
  HostBuffers b = inputs();
  interpret(p, b);
  const Sizes z = kFiveSteps;
  for (int64_t i = 0; i < z.m; ++i)
    for (int64_t j = 0; j < z.n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < z.k; ++k) want += b["A"][i * z.k + k] * b["B"][k * z.n + j];
      ASSERT_NEAR(b["C"][i * z.n + j], want, 1e-2 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

// C(i, j) with both operands passed through `to_tf32`, accumulated per k8 instruction in
// double and rounded to f32 after each, as the interpreter's tensor cores do.
double product_per_k8_step(const HostBuffers& b, int64_t i, int64_t j, double (*to_tf32)(double)) {
  const Sizes z = kFiveSteps;
  float acc = 0;
  for (int64_t k0 = 0; k0 < z.k; k0 += 8) {
    double step = acc;
    for (int64_t k = k0; k < k0 + 8; ++k) step += to_tf32(b.at("A")[i * z.k + k]) * to_tf32(b.at("B")[k * z.n + j]);
    acc = static_cast<float>(step);
  }
  return acc;
}

TEST(Wgmma, TensorCoresTruncateBothOperandsToTf32) {
  const LoweredProgram p = lowered_tile();
  EXPECT_EQ(print_ir(p).find("round_tf32"), std::string::npos) << "the A fragments are loaded unrounded";
  HostBuffers b = inputs();
  interpret(p, b);
  const Sizes z = kFiveSteps;
  double rounded_apart = 0;
  for (int64_t i = 0; i < z.m; ++i)
    for (int64_t j = 0; j < z.n; ++j) {
      const double got = b["C"][i * z.n + j], want = product_per_k8_step(b, i, j, truncate_to_tf32);
      ASSERT_NEAR(got, want, 1e-6 * (1 + std::fabs(want))) << i << ", " << j;
      rounded_apart = std::max(rounded_apart, std::fabs(got - product_per_k8_step(b, i, j, round_to_tf32)));
    }
  EXPECT_GT(rounded_apart, 1e-4) << "the inputs do not tell truncation from rounding";
}

TEST(Wgmma, OperandsOverwrittenInFlightAreReported) {
  LoweredProgram p = lowered_tile();
  for (auto& k : p.kernels)
    k.body = edit_waits(k.body, [](const Stmt& w) {
      auto n = std::make_shared<StmtNode>(*w);
      if (n->width == 1) n->width = 2;
      return Stmt(n);
    });
  EXPECT_EQ(error_of(p), "wgmma-operand-overwritten");
}

TEST(Wgmma, InstructionsNeverWaitedForAreReported) {
  LoweredProgram p = lowered_tile();
  for (auto& k : p.kernels) k.body = edit_waits(k.body, [](const Stmt& w) { return w->width == 0 ? Stmt() : w; });
  EXPECT_EQ(error_of(p), "wgmma-not-waited");
}

}  // namespace
}  // namespace cusched
