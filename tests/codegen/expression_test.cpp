// Expressions in emitted CUDA: exact types, f32 functions and literals, special
// values, 16-bit floats, parentheses only where the tree needs them.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/device_library.h"
#include "codegen/fast_math.h"
#include "hand_built_ir.h"
#include "nvrtc_check.h"
#include "scalar_emit.h"

namespace cusched {
namespace {

using test::a;
using test::expect_compiles;
using test::has;
using test::ld;
using test::stored;
using test::v;

Expr h() { return ld("H", DType::f16, v("t")); }

TEST(CudaExpressions, F32MathUsesFloatFunctions) {
  Expr e = exp(a()) + log(a()) + sqrt(a()) + rsqrt(a()) + tanh(a()) + erf(a()) + abs(a()) + pow(a(), 3.0f) +
           min(a(), 1.0f) + max(a(), -1.0f);
  std::string s = stored(e);
  for (const char* fn : {"expf(A[t])", "logf(A[t])", "sqrtf(A[t])", "rsqrtf(A[t])", "tanhf(A[t])", "erff(A[t])",
                         "fabsf(A[t])", "powf(A[t], 3.0f)", "fminf(A[t], 1.0f)", "fmaxf(A[t], -1.0f)"})
    EXPECT_TRUE(has(s, fn)) << fn << " missing in " << s;
  EXPECT_FALSE(has(s, "double"));
  expect_compiles(e);
}

TEST(CudaExpressions, ReferenceMathUsesDoubleFunctions) {
  Expr e = exp(a()) + tanh(a()) * 0.1f;
  std::string s = stored(e, DType::f32, true);
  EXPECT_TRUE(has(s, "exp(static_cast<double>(A[t]))")) << s;
  EXPECT_TRUE(has(s, "tanh(static_cast<double>(A[t]))")) << s;
  EXPECT_FALSE(has(s, "expf")) << s;
  EXPECT_FALSE(has(s, "0.1f")) << s;
  expect_compiles(e, DType::f32, true);
}

TEST(CudaExpressions, FastMathUsesApproximateIntrinsicsAndTheReferenceStaysExact) {
  Expr e = with_fast_math(exp(a()) / (log(a()) + 2.0f));
  std::string s = stored(e);
  EXPECT_TRUE(has(s, "__fdividef(__expf(A[t]), __logf(A[t]) + 2.0f)")) << s;
  EXPECT_FALSE(has(s, "expf(A[t]) /")) << s;
  expect_compiles(e);
  std::string r = stored(e, DType::f32, true);
  EXPECT_TRUE(has(r, "exp(static_cast<double>(A[t])) / (log(static_cast<double>(A[t])) + 2.0)")) << r;
  EXPECT_FALSE(has(r, "__")) << r;
  expect_compiles(e, DType::f32, true);
  // Integer division and f64 math are left alone.
  Expr i = with_fast_math(ld("I", DType::i32, v("t")) / 3);
  EXPECT_EQ(i->op, ExprOp::Div);
  EXPECT_TRUE(has_fast_math_operation(exp(a()) + 1.0f));
  EXPECT_TRUE(has_fast_math_operation(a() / 2.0f));
  EXPECT_FALSE(has_fast_math_operation(ld("I", DType::i32, v("t")) / 3));
  EXPECT_FALSE(has_fast_math_operation(exp(cast(DType::f64, a()))));
  EXPECT_FALSE(has_fast_math_operation(sqrt(a()) * a()));
}

TEST(CudaExpressions, SpecialValuesUseDeviceLibraryHelpers) {
  Expr e = select(a() > 0.0f, make_float(INFINITY), make_float(-INFINITY)) + make_float(NAN);
  std::string s = stored(e);
  EXPECT_TRUE(has(s, "cusched::inf_f32()")) << s;
  EXPECT_TRUE(has(s, "-cusched::inf_f32()")) << s;
  EXPECT_TRUE(has(s, "cusched::nan_f32()")) << s;
  EXPECT_FALSE(has(s, "INF")) << s;
  expect_compiles(e);
  std::string r = stored(e, DType::f32, true);
  EXPECT_TRUE(has(r, "cusched::inf_f64()")) << r;
}

TEST(CudaExpressions, FloatLiteralsRoundTrip) {
  EXPECT_EQ(stored(a() * 0.1f), "A[t] * 0.1f");
  EXPECT_EQ(stored(a() + 1.0f), "A[t] + 1.0f");
  EXPECT_EQ(stored(a() * 1e-30f), "A[t] * 1e-30f");
  // An integer literal next to a float operand is written as a float literal.
  EXPECT_EQ(stored(a() * 2), "A[t] * 2.0f");
}

TEST(CudaExpressions, ParenthesesFollowTheTree) {
  EXPECT_EQ(stored((a() + 1.0f) * 2.0f), "(A[t] + 1.0f) * 2.0f");
  EXPECT_EQ(stored(a() - (a() - 1.0f)), "A[t] - (A[t] - 1.0f)");
  EXPECT_EQ(stored(a() + a() + a()), "A[t] + A[t] + A[t]");
  EXPECT_EQ(stored(-(a() + 1.0f)), "-(A[t] + 1.0f)");
}

TEST(CudaExpressions, SelectAndComparisons) {
  Expr e = select(a() > 0.0f && v("t") < 16, a(), 0.0f);
  EXPECT_EQ(stored(e), "(A[t] > 0.0f && t < 16) ? A[t] : 0.0f");
  expect_compiles(e);
}

TEST(CudaExpressions, IntegerMathStaysInt) {
  Expr e = min(v("t") / 3 % 2, 5) + max(v("t"), 1);
  std::string s = stored(e, DType::i32);
  EXPECT_EQ(s, "cusched::min_of(t / 3 % 2, 5) + cusched::max_of(t, 1)");
  expect_compiles(e, DType::i32);
  // Storing an int into a float buffer converts explicitly.
  EXPECT_EQ(stored(v("t") + 1), "static_cast<float>(t + 1)");
}

TEST(CudaExpressions, BuiltinThreadIndices) {
  Expr e = cast(DType::f32, make_var("tid") + make_var("threadIdx.x"));
  std::string s = stored(e);
  EXPECT_TRUE(has(s, "cusched::linear_thread_index()")) << s;
  EXPECT_TRUE(has(s, "static_cast<int>(threadIdx.x)")) << s;
  expect_compiles(e);
}

TEST(CudaExpressions, OperandRoundingUsesDeviceLibrary) {
  Expr e = make_call("round_tf32", {a()}, DType::f32) + make_call("round_bf16", {a()}, DType::f32) +
           make_call("round_f16", {a()}, DType::f32);
  std::string s = stored(e);
  EXPECT_TRUE(has(s, "cusched::round_tf32(A[t])")) << s;
  EXPECT_TRUE(has(s, "cusched::round_bf16(A[t])")) << s;
  EXPECT_TRUE(has(s, "cusched::round_f16(A[t])")) << s;
  expect_compiles(e);
  // The reference evaluates the algorithm itself: no operand rounding.
  EXPECT_FALSE(has(stored(e, DType::f32, true), "round_")) << stored(e, DType::f32, true);
}

TEST(CudaExpressions, HalfPrecisionComputesInFloatAndRoundsOnce) {
  EXPECT_EQ(stored(cast(DType::f32, h()) * 2.0f), "cusched::convert<float>(H[t]) * 2.0f");
  Expr sum = h() + h();
  ASSERT_EQ(sum.type(), DType::f16);
  EXPECT_EQ(stored(sum, DType::f16),
            "cusched::convert<__half>(cusched::convert<float>(H[t]) + cusched::convert<float>(H[t]))");
  expect_compiles(sum, DType::f16);
  EXPECT_EQ(stored(sum, DType::f16, true), "cusched::convert<double>(H[t]) + cusched::convert<double>(H[t])");
  expect_compiles(sum, DType::f16, true);
}

}  // namespace
}  // namespace cusched
