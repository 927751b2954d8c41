// The interpreter's tensor-core emulation on one warp: each lane hands in the fragment
// elements the PTX ISA assigns to it (the layouts are written out here from the ISA's
// tables, independently of codegen/mma_layout), and the warp's tile must come back as
// C + A x B on the operands as the tensor cores read them (f32 values truncated to tf32).
#include <algorithm>
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "codegen/interp_rounding.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

// The PTX ISA's per-lane coordinates, with g = lane / 4 and q = lane % 4.
struct IsaCoord {
  Expr row, col;
};

// mma.m16n8k8 .tf32: a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4); b0 (q, g), b1 (q+4, g).
IsaCoord tf32_a(const Expr& g, const Expr& q, int i) {
  return {g + make_int(i % 2 == 1 ? 8 : 0), q + make_int(i >= 2 ? 4 : 0)};
}
IsaCoord tf32_b(const Expr& g, const Expr& q, int i) { return {q + make_int(i == 1 ? 4 : 0), g}; }
// mma.m16n8k16 .f16/.bf16: a0,a1 (g, 2q+{0,1}), a2,a3 (g+8, ..), a4,a5 (g, 2q+8+{0,1}), a6,a7 (g+8, ..);
// b0,b1 (2q+{0,1}, g), b2,b3 (2q+8+{0,1}, g).
IsaCoord half_a(const Expr& g, const Expr& q, int i) {
  return {g + make_int((i / 2) % 2 == 1 ? 8 : 0), q * make_int(2) + make_int(i % 2 + (i >= 4 ? 8 : 0))};
}
IsaCoord half_b(const Expr& g, const Expr& q, int i) {
  return {q * make_int(2) + make_int(i % 2 + (i >= 2 ? 8 : 0)), g};
}
// Accumulators c0..c3: (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1).
IsaCoord acc_c(const Expr& g, const Expr& q, int j) {
  return {g + make_int(j >= 2 ? 8 : 0), q * make_int(2) + make_int(j % 2)};
}

// One warp computes C(16x8) = C0 + A(16xK) B(Kx8) with one Mma; A, B, C0 and C are global.
LoweredProgram one_tile(const std::string& shape, const std::string& precision, int k, int a_count, int b_count,
                        IsaCoord (*a_at)(const Expr&, const Expr&, int),
                        IsaCoord (*b_at)(const Expr&, const Expr&, int)) {
  Expr lane = var("lane"), g = lane / make_int(4), q = lane % make_int(4);
  std::vector<Expr> ops;
  for (int i = 0; i < a_count; ++i) {
    IsaCoord c = a_at(g, q, i);
    ops.push_back(load("A", c.row * make_int(k) + c.col));
  }
  for (int i = 0; i < b_count; ++i) {
    IsaCoord c = b_at(g, q, i);
    ops.push_back(load("B", c.row * make_int(8) + c.col));
  }
  std::vector<Stmt> init, out;
  for (int j = 0; j < 4; ++j) {
    IsaCoord c = acc_c(g, q, j);
    init.push_back(make_store("acc", make_int(j), load("C0", c.row * make_int(8) + c.col)));
    out.push_back(make_store("C", c.row * make_int(8) + c.col, load("acc", make_int(j))));
  }
  Stmt body = make_allocate("acc", MemScope::Register, DType::f32, 4,
                            make_block({bound("lane", 32, GpuAxis::ThreadX, make_block(init)),
                                        bound("lane", 32, GpuAxis::ThreadX,
                                              make_mma(shape, parse_precision(precision), "acc", make_int(0), ops)),
                                        bound("lane", 32, GpuAxis::ThreadX, make_block(out))}));
  return program(
      {buffer("A", DType::f32, 16 * k, BufferRole::Input), buffer("B", DType::f32, k * 8, BufferRole::Input),
       buffer("C0", DType::f32, 16 * 8, BufferRole::Input), buffer("C", DType::f32, 16 * 8, BufferRole::Output)},
      {kernel("mma", {1, 1, 1}, {32, 1, 1}, {"A", "B", "C0", "C"}, body)});
}

HostBuffers tile_inputs(int k) {
  HostBuffers b;
  for (int i = 0; i < 16 * k; ++i) b["A"].push_back(static_cast<float>(std::sin(i * 0.7) * 2));
  for (int i = 0; i < k * 8; ++i) b["B"].push_back(static_cast<float>(std::cos(i * 0.3)));
  for (int i = 0; i < 16 * 8; ++i) b["C0"].push_back(static_cast<float>(i % 5) - 2);
  return b;
}

double as_given(double x) { return x; }

// C0 + A x B in double with each operand passed through `operand` first.
double tile_element(const HostBuffers& b, int k, int r, int c, double (*operand)(double)) {
  double want = b.at("C0")[r * 8 + c];
  for (int kk = 0; kk < k; ++kk) want += operand(b.at("A")[r * k + kk]) * operand(b.at("B")[kk * 8 + c]);
  return want;
}

void expect_tile(const HostBuffers& b, int k, double (*operand)(double) = as_given) {
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      const double want = tile_element(b, k, r, c, operand);
      EXPECT_NEAR(b.at("C")[r * 8 + c], want, 1e-6 * (1 + std::fabs(want))) << "row " << r << " col " << c;
    }
}

TEST(TensorCore, Tf32TileFollowsTheIsaFragmentLayout) {
  HostBuffers b = tile_inputs(8);
  interpret(one_tile("m16n8k8", "tf32", 8, 4, 2, tf32_a, tf32_b), b);
  expect_tile(b, 8, truncate_to_tf32);
}

TEST(TensorCore, Tf32OperandsAreTruncatedAsTheTensorCoresReadThem) {
  // The lowering hands mma.sync its tf32 operands as f32 bits; the tensor cores use the
  // top 19 bits of each. The inputs hold values that rounding and truncation tell apart.
  HostBuffers b = tile_inputs(8);
  interpret(one_tile("m16n8k8", "tf32", 8, 4, 2, tf32_a, tf32_b), b);
  double rounded_apart = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      rounded_apart =
          std::max(rounded_apart, std::fabs(b.at("C")[r * 8 + c] - tile_element(b, 8, r, c, round_to_tf32)));
  expect_tile(b, 8, truncate_to_tf32);
  EXPECT_GT(rounded_apart, 1e-4) << "the inputs do not tell truncation from rounding";
}

TEST(TensorCore, HalfTileFollowsTheIsaFragmentLayout) {
  HostBuffers b = tile_inputs(16);
  interpret(one_tile("m16n8k16", "f16", 16, 8, 4, half_a, half_b), b);
  expect_tile(b, 16);
}

// The largest difference between the tile and C0 + A x B in exact arithmetic.
double worst_error(const HostBuffers& b, int k) {
  double worst = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      double want = b.at("C0")[r * 8 + c];
      for (int kk = 0; kk < k; ++kk) want += b.at("A")[r * k + kk] * b.at("B")[kk * 8 + c];
      worst = std::max(worst, std::fabs(b.at("C")[r * 8 + c] - want));
    }
  return worst;
}

TEST(TensorCore, SplitTf32IsNearlyExactWhereTf32RoundsOperands) {
  // The operands are f32 values that TF32 cannot hold: tf32 rounds them (here by the
  // operand expressions; the instruction's truncation then changes nothing), 3xtf32 splits
  // them into a high and a low part.
  HostBuffers plain = tile_inputs(8), split = tile_inputs(8);
  LoweredProgram rounded = one_tile("m16n8k8", "tf32", 8, 4, 2, tf32_a, tf32_b);
  std::function<Stmt(const Stmt&)> visit = [&](const Stmt& s) -> Stmt {
    auto n = std::make_shared<StmtNode>(*s);
    for (auto& o : n->operands) o = make_call("round_tf32", {o}, DType::f32);
    for (auto& c : n->body) c = visit(c);
    return n;
  };
  rounded.kernels[0].body = visit(rounded.kernels[0].body);
  interpret(rounded, plain);
  interpret(one_tile("m16n8k8", "3xtf32", 8, 4, 2, tf32_a, tf32_b), split);
  const double tf32_error = worst_error(plain, 8), split_error = worst_error(split, 8);
  EXPECT_GT(tf32_error, 1e-4);
  EXPECT_LT(split_error, 1e-5);
  EXPECT_LT(split_error * 50, tf32_error);
}

TEST(TensorCore, SwappedFragmentsGiveAWrongTile) {
  // Feeding the tf32 instruction a0/a1 and a2/a3 exchanged must not pass.
  HostBuffers b = tile_inputs(8);
  auto wrong_a = +[](const Expr& g, const Expr& q, int i) { return tf32_a(g, q, i ^ 1); };
  interpret(one_tile("m16n8k8", "tf32", 8, 4, 2, wrong_a, tf32_b), b);
  int bad = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      bad += std::fabs(b.at("C")[r * 8 + c] - tile_element(b, 8, r, c, truncate_to_tf32)) > 1e-3;
  EXPECT_GT(bad, 64);
}

TEST(TensorCore, UninitializedAccumulatorsAreReported) {
  LoweredProgram p = one_tile("m16n8k8", "tf32", 8, 4, 2, tf32_a, tf32_b);
  // Drop the initialisation of the accumulators.
  auto body = std::make_shared<StmtNode>(*p.kernels[0].body);
  auto block = std::make_shared<StmtNode>(*body->body[0]);
  block->body.erase(block->body.begin());
  body->body[0] = block;
  p.kernels[0].body = body;
  HostBuffers b = tile_inputs(8);
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "uninitialized-read");
}

TEST(TensorCore, BlocksOfPartialWarpsAreRejected) {
  LoweredProgram p = one_tile("m16n8k8", "tf32", 8, 4, 2, tf32_a, tf32_b);
  p.kernels[0].block = {48, 1, 1};
  HostBuffers b = tile_inputs(8);
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "mma-partial-warp");
}

}  // namespace
}  // namespace cusched
