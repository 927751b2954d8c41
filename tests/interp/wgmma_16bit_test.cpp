// Warpgroup tensor cores with 16-bit operands (tensor_core m64nNk16: wgmma.mma_async
// m64nNk16 with bf16 or f16 A from registers and B from a swizzled shared copy of rows of
// 64 elements) in the interpreter: matmuls of bf16 and f16 tensors, with and without
// tails, staged synchronously and on the tensor memory accelerator, against the f64 sum of
// the same products; and the refusals of operand copies that are not 16-bit and of shapes
// and precisions that do not go together.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

// C(i, j) = sum(k, f32(A(i, k)) * f32(B(k, j))) with A and B of type `t`, in f32.
ScheduleContext matmul_16bit(DType t, Sizes z) {
  Size M("M"), N("N"), K("K");
  Tensor A("A", t, {M, K}), B("B", t, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, cast(DType::f32, A(i, k)) * cast(DType::f32, B(k, j))));
  ScheduleContext c;
  c.pipeline = Pipeline({C});
  c.sizes = {{"M", z.m}, {"N", z.n}, {"K", z.k}};
  return c;
}

// Values exactly representable in bf16 and in f16 (8 significant bits, small exponents).
HostBuffers inputs_16bit(Sizes z) {
  HostBuffers b;
  for (int64_t x = 0; x < z.m * z.k; ++x) b["A"].push_back(std::ldexp(static_cast<double>((x * 37) % 255 - 127), -7));
  for (int64_t x = 0; x < z.k * z.n; ++x) b["B"].push_back(std::ldexp(static_cast<double>((x * 53) % 251 - 125), -8));
  return b;
}

// The matmul best's tile in `precision` on `engine` (depth 0: copies made synchronously).
nlohmann::json tile(const std::string& precision, const std::string& engine, int depth) {
  return wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 128, 2, depth, precision, engine);
}

void expect_matches_the_sum_of_products(DType t, Sizes z, const nlohmann::json& steps) {
  LoweredProgram p = lower(Schedule::from_json(matmul_16bit(t, z), steps), "matmul");
  const std::string ir = print_ir(p);
  ASSERT_NE(ir.find("wgmma"), std::string::npos) << ir;
  HostBuffers b = inputs_16bit(z);
  interpret(p, b);
  for (int64_t i = 0; i < z.m; ++i)
    for (int64_t j = 0; j < z.n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < z.k; ++k) want += b["A"][i * z.k + k] * b["B"][k * z.n + j];
      // Exact products; f32 sums of at most K terms of these magnitudes.
      ASSERT_NEAR(b["C"][i * z.n + j], want, 1e-5 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

TEST(Wgmma16Bit, Bf16AndF16TilesMatchTheSumOfProductsOnEveryEngine) {
  const Sizes dividing{128, 128, 128}, tails{64, 48, 40};
  for (DType t : {DType::bf16, DType::f16}) {
    const std::string precision = dtype_name(t);
    SCOPED_TRACE(precision);
    expect_matches_the_sum_of_products(t, dividing, tile(precision, "cp.async", 0));
    for (int depth : {2, 4}) {
      SCOPED_TRACE(depth);
      expect_matches_the_sum_of_products(t, dividing, tile(precision, "tensor", depth));
      expect_matches_the_sum_of_products(t, tails, tile(precision, "tensor", depth));
    }
  }
}

TEST(Wgmma16Bit, TheIrCarriesEightAElementsAndK16Steps) {
  LoweredProgram p =
      lower(Schedule::from_json(matmul_16bit(DType::bf16, {128, 128, 128}), tile("bf16", "tensor", 2)), "matmul");
  const std::string ir = print_ir(p);
  EXPECT_NE(ir.find("m64n128k16"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("m64n128k8"), std::string::npos);
}

TEST(Wgmma16Bit, OperandCopiesMustBe16BitAndShapesMatchTheirPrecision) {
  // f32 tensors: the swizzled copy the tensor cores read holds f32, not bf16.
  const ScheduleContext f32 = matmul_context({128, 128, 128});
  std::string message;
  EXPECT_EQ(error_code([&] { lower(Schedule::from_json(f32, tile("bf16", "cp.async", 0)), "matmul"); }, &message),
            "wgmma-b-layout");
  EXPECT_NE(message.find("bf16"), std::string::npos) << message;
  // m64nNk16 takes bf16 or f16, m64nNk8 tf32 or 3xtf32.
  nlohmann::json k16_tf32 = tile("bf16", "cp.async", 0);
  for (auto& s : k16_tf32)
    if (s["op"] == "tensor_core") s["precision"] = "tf32";
  EXPECT_EQ(error_code([&] { Schedule::from_json(matmul_16bit(DType::bf16, {128, 128, 128}), k16_tf32); }),
            "tensor-core-shape-precision");
}

}  // namespace
}  // namespace cusched
