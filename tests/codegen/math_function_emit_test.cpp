// Every math function of the language in emitted CUDA: the precise form (CUDA's math
// library or the device library), the fast form under math "fast", the float64
// reference form, and integer, f64 and f16 operands; each compiles with NVRTC.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/device_library.h"
#include "codegen/fast_math.h"
#include "dsl/math_function.h"
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

// The call of math function `m` on x (clamp between -1.5 and 2).
Expr call_of(const MathFunction& m, const Expr& x) {
  if (m.params.size() == 3) return math_call(m.name, {x, make_float(-1.5), make_float(2.0)});
  return math_call(m.name, {x});
}

// The sum of every math function of x, each a term of its own.
Expr every_function(const Expr& x) {
  Expr e;
  for (const auto& m : math_functions()) e = e.defined() ? e + call_of(m, x) : call_of(m, x);
  return e;
}

TEST(CudaMathFunctions, PreciseF32Forms) {
  Expr e = every_function(a());
  std::string s = stored(e);
  for (const char* fn : {"expf(A[t])", "logf(A[t])", "sqrtf(A[t])", "rsqrtf(A[t])", "tanhf(A[t])", "erff(A[t])",
                         "fabsf(A[t])", "cusched::sigmoid(A[t])", "cusched::softplus(A[t])", "log1pf(A[t])",
                         "expm1f(A[t])", "floorf(A[t])", "ceilf(A[t])", "rintf(A[t])", "cusched::sign(A[t])",
                         "sinf(A[t])", "cosf(A[t])", "cusched::clamp(A[t], -1.5f, 2.0f)"})
    EXPECT_TRUE(has(s, fn)) << fn << " missing in " << s;
  EXPECT_FALSE(has(s, "__")) << s;
  EXPECT_FALSE(has(s, "double")) << s;
  expect_compiles(e);
}

TEST(CudaMathFunctions, FastF32FormsUseIntrinsics) {
  Expr e = with_fast_math(every_function(a()));
  std::string s = stored(e);
  for (const char* fn : {"__expf(A[t])", "__logf(A[t])", "cusched::fast_sigmoid(A[t])", "cusched::fast_softplus(A[t])",
                         "cusched::fast_log1p(A[t])", "cusched::fast_expm1(A[t])", "__sinf(A[t])", "__cosf(A[t])",
                         "sqrtf(A[t])", "cusched::fast_tanh(A[t])", "floorf(A[t])", "rintf(A[t])",
                         "cusched::sign(A[t])", "cusched::clamp(A[t], -1.5f, 2.0f)"})
    EXPECT_TRUE(has(s, fn)) << fn << " missing in " << s;
  for (const char* slow : {" expf(", "cusched::sigmoid(", "log1pf(", "expm1f(", " sinf(", " cosf(", " tanhf("})
    EXPECT_FALSE(has(" " + s, slow)) << slow << " left in " << s;
  expect_compiles(e);
}

TEST(CudaMathFunctions, TheReferenceComputesTheExactFunctionInDouble) {
  for (bool fast : {false, true}) {
    Expr e = every_function(a());
    if (fast) e = with_fast_math(e);
    std::string s = stored(e, DType::f32, true);
    const std::string x = "static_cast<double>(A[t])";
    for (const std::string fn : {"exp(", "log(", "cusched::sigmoid(", "cusched::softplus(", "log1p(", "expm1(",
                                 "floor(", "ceil(", "rint(", "cusched::sign(", "sin(", "cos(", "fabs("})
      EXPECT_TRUE(has(s, fn + x + ")")) << fn << " missing in " << s;
    EXPECT_TRUE(has(s, "cusched::clamp(" + x + ", -1.5, 2.0)")) << s;
    EXPECT_FALSE(has(s, "__")) << s;
    EXPECT_FALSE(has(s, "fast_")) << s;
    for (const char* f32_fn : {"expf(", "logf(", "erff(", "rintf(", "fabsf(", "sinf(", "1.5f"})
      EXPECT_FALSE(has(s, f32_fn)) << f32_fn << " in " << s;
    expect_compiles(e, DType::f32, true);
  }
}

TEST(CudaMathFunctions, IntegerOperandsStayIntegers) {
  Expr i = v("t") - 16;
  EXPECT_EQ(stored(sign(i), DType::i32), "cusched::sign(t - 16)");
  EXPECT_EQ(stored(clamp(i, 0, 6), DType::i32), "cusched::clamp(t - 16, 0, 6)");
  EXPECT_EQ(stored(abs(i), DType::i32), "abs(t - 16)");
  EXPECT_EQ(stored(floor(i) + ceil(i) + round(i), DType::i32), "t - 16 + (t - 16) + (t - 16)");
  Expr l = cast(DType::i64, i);
  EXPECT_EQ(stored(sign(l), DType::i64), "cusched::sign(static_cast<long long>(t - 16))");
  // Float functions of an integer compute in f32.
  EXPECT_EQ(stored(sigmoid(i)), "cusched::sigmoid(static_cast<float>(t - 16))");
  Expr ints = sign(i) + clamp(i, 0, 6) + abs(i) + floor(i) + cast(DType::i32, sign(l) + clamp(l, 1, 2) + abs(l));
  expect_compiles(ints, DType::i32);
  expect_compiles(ints, DType::i32, true);
}

TEST(CudaMathFunctions, F64AndF16Operands) {
  Expr d = cast(DType::f64, a());
  std::string s = stored(every_function(d), DType::f64);
  EXPECT_TRUE(has(s, "cusched::sigmoid(static_cast<double>(A[t]))")) << s;
  EXPECT_TRUE(has(s, "rint(static_cast<double>(A[t]))")) << s;
  for (const char* f32_fn : {"expf(", "erff(", "rintf(", "fabsf(", "sinf(", "1.5f"})
    EXPECT_FALSE(has(s, f32_fn)) << f32_fn << " in " << s;
  expect_compiles(every_function(d), DType::f64);
  // f64 math has no fast form.
  EXPECT_EQ(stored(with_fast_math(every_function(d)), DType::f64), s);
  Expr h = ld("H", DType::f16, v("t"));
  EXPECT_EQ(stored(sigmoid(h), DType::f16),
            "cusched::convert<__half>(cusched::sigmoid(cusched::convert<float>(H[t])))");
  expect_compiles(every_function(h), DType::f16);
  expect_compiles(with_fast_math(every_function(h)), DType::f16);
}

}  // namespace
}  // namespace cusched
