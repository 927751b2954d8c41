// The generated warpgroup tensor-core tile (tensor_core m64nNk8) in the interpreter at a
// size with a K loop of five 32-wide steps, so that two k-steps overlap and the
// pipelined loop runs two pairs and a last step: C matches an f64 product of the
// operands within TF32 rounding; leaving two k-steps in flight overwrites the operands
// of one still reading them, and dropping the final wait ends the block with
// instructions in flight, both reported by the interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

const Sizes kFiveSteps{96, 72, 160};

LoweredProgram lowered_tile() {
  return lower(Schedule::from_json(matmul_context(kFiveSteps), wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A")), "matmul");
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
  ASSERT_NE(ir.find("for C_ko_pair in [0, 2)"), std::string::npos) << ir;
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
