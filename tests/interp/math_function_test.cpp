// The math functions in the float64 reference (against the C library at their edge
// values: halves for round, zero for sign, both sides of softplus's threshold) and in
// the loop-IR interpreter (the exact value rounded once to the result's type, with and
// without math "fast").
#include "dsl/math_function.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "codegen/fast_math.h"
#include "dsl/dsl.h"
#include "dsl/reference_eval.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// f(X(0)) in the reference, as a one-point stage and as a lone expression.
double reference_of(Expr (*f)(Expr), double x, DType t = DType::f32) {
  Tensor X("X", t, {make_int(1)});
  Var i("i", make_int(1));
  Func F = compute("F", {i}, f(X(0)));
  double staged = evaluate_reference(Pipeline({F}), {}, {{"X", {x}}})["F"][0];
  double alone = eval_expr_f64(f(X(0)), {}, {}, {{"X", {x}}});
  EXPECT_TRUE(staged == alone || (std::isnan(staged) && std::isnan(alone))) << staged << " vs " << alone;
  return staged;
}

Expr clamp_unit(Expr x) { return clamp(std::move(x), -1.0f, 1.0f); }
Expr clamp_reversed(Expr x) { return clamp(std::move(x), 2.0f, 1.0f); }

TEST(MathReference, RoundsHalvesToEven) {
  EXPECT_EQ(reference_of(round, 0.5), 0.0);
  EXPECT_EQ(reference_of(round, 1.5), 2.0);
  EXPECT_EQ(reference_of(round, 2.5), 2.0);
  EXPECT_EQ(reference_of(round, -2.5), -2.0);
  EXPECT_EQ(reference_of(round, -0.5), 0.0);
  EXPECT_TRUE(std::signbit(reference_of(round, -0.5)));  // -0, as torch.round gives
  EXPECT_EQ(reference_of(round, 2.6), 3.0);
  EXPECT_EQ(reference_of(round, -7, DType::i32), -7.0);
}

TEST(MathReference, FloorAndCeil) {
  EXPECT_EQ(reference_of(floor, -2.5), -3.0);
  EXPECT_EQ(reference_of(floor, 2.5), 2.0);
  EXPECT_EQ(reference_of(ceil, -2.5), -2.0);
  EXPECT_EQ(reference_of(ceil, 2.01), 3.0);
  EXPECT_EQ(reference_of(floor, 4, DType::i64), 4.0);
}

TEST(MathReference, SignIsMinusOneZeroOrOne) {
  EXPECT_EQ(reference_of(sign, 0.0), 0.0);
  EXPECT_EQ(reference_of(sign, -0.0), 0.0);
  EXPECT_EQ(reference_of(sign, 3.5), 1.0);
  EXPECT_EQ(reference_of(sign, -1e-30), -1.0);
  EXPECT_EQ(reference_of(sign, kNaN), 0.0);
  EXPECT_EQ(reference_of(sign, -7, DType::i32), -1.0);
  EXPECT_EQ(reference_of(sign, 0, DType::i32), 0.0);
}

TEST(MathReference, SoftplusIsLinearAboveTwenty) {
  EXPECT_EQ(reference_of(softplus, 25.0), 25.0);
  EXPECT_EQ(reference_of(softplus, 20.5), 20.5);
  EXPECT_DOUBLE_EQ(reference_of(softplus, 20.0), std::log1p(std::exp(20.0)));
  EXPECT_DOUBLE_EQ(reference_of(softplus, -30.0), std::log1p(std::exp(-30.0)));
  EXPECT_GT(reference_of(softplus, -30.0), 0.0);
  EXPECT_DOUBLE_EQ(reference_of(softplus, 0.0), std::log(2.0));
}

TEST(MathReference, SigmoidLog1pExpm1SinCos) {
  EXPECT_EQ(reference_of(sigmoid, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(reference_of(sigmoid, 2.0), 1.0 / (1.0 + std::exp(-2.0)));
  EXPECT_EQ(reference_of(sigmoid, -800.0), 0.0);
  EXPECT_EQ(reference_of(sigmoid, 800.0), 1.0);
  EXPECT_EQ(reference_of(log1p, 1e-20), 1e-20);  // log(1 + x) would give 0
  EXPECT_DOUBLE_EQ(reference_of(log1p, 3.0), std::log(4.0));
  EXPECT_EQ(reference_of(expm1, 1e-20), 1e-20);
  EXPECT_DOUBLE_EQ(reference_of(expm1, 2.0), std::exp(2.0) - 1.0);
  EXPECT_DOUBLE_EQ(reference_of(sin, 0.5), std::sin(0.5));
  EXPECT_DOUBLE_EQ(reference_of(cos, 0.5), std::cos(0.5));
  EXPECT_EQ(reference_of(cos, 0.0), 1.0);
}

TEST(MathReference, ClampIsHardtanh) {
  EXPECT_EQ(reference_of(clamp_unit, 5.0), 1.0);
  EXPECT_EQ(reference_of(clamp_unit, -5.0), -1.0);
  EXPECT_EQ(reference_of(clamp_unit, 0.25), 0.25);
  EXPECT_TRUE(std::isnan(reference_of(clamp_unit, kNaN)));
  EXPECT_EQ(reference_of(clamp_reversed, 0.0), 1.0);  // lo > hi gives hi, as torch.clamp
  EXPECT_EQ(reference_of(clamp_reversed, 5.0), 1.0);
}

// Y[t] = value(X[t]) over 64 points in the interpreter.
std::vector<double> interpreted(const std::function<Expr(Expr)>& value, const std::vector<double>& x, DType t,
                                bool fast) {
  using namespace cusched::test;
  Expr v = value(load("X", var("t"), t));
  if (fast) v = with_fast_math(v);
  Stmt body = bound("t", static_cast<int64_t>(x.size()), GpuAxis::ThreadX, make_store("Y", var("t"), v));
  const auto n = static_cast<int64_t>(x.size());
  LoweredProgram p = program({buffer("X", t, n, BufferRole::Input), buffer("Y", v.type(), n, BufferRole::Output)},
                             {kernel("k", {1, 1, 1}, {n, 1, 1}, {"X", "Y"}, body)});
  HostBuffers buf{{"X", x}};
  interpret(p, buf);
  return buf["Y"];
}

std::vector<double> sample_inputs() {
  std::vector<double> x = {0.5, 1.5, 2.5, -2.5, -0.5, 0.0, -0.0, 25.0, -30.0, 20.0, 19.9, 1e-7, -1e-7, 3.14159};
  for (int i = 0; x.size() < 64; ++i) x.push_back(std::sin(i * 0.37) * 6);
  for (double& v : x) v = static_cast<double>(static_cast<float>(v));  // values an f32 buffer holds
  return x;
}

TEST(MathInterpreter, EveryFunctionIsTheReferenceRoundedToF32WithAndWithoutFastMath) {
  const std::vector<double> x = sample_inputs();
  for (const auto& m : math_functions()) {
    auto value = [&](Expr a) {
      std::vector<Expr> args = {a};
      if (m.params.size() == 3) args = {a, make_float(-1.5), make_float(2.0)};
      return math_call(m.name, args);
    };
    Tensor X("X", DType::f32, {make_int(64)});
    Var i("i", make_int(64));
    Func F = compute("F", {i}, value(X(i)));
    const std::vector<double> ref = evaluate_reference(Pipeline({F}), {}, {{"X", x}})["F"];
    for (bool fast : {false, true}) {
      const std::vector<double> got = interpreted(value, x, DType::f32, fast);
      ASSERT_EQ(got.size(), x.size());
      for (size_t k = 0; k < x.size(); ++k) {
        double want = static_cast<double>(static_cast<float>(ref[k]));
        EXPECT_TRUE(got[k] == want || (std::isnan(got[k]) && std::isnan(want)))
            << m.name << (fast ? " (fast)" : "") << " at " << x[k] << ": " << got[k] << " vs " << want;
      }
    }
  }
}

TEST(MathInterpreter, IntegerOperandsStayIntegers) {
  const std::vector<double> x = {-7, -1, 0, 1, 9};
  EXPECT_EQ(interpreted([](Expr a) { return sign(a); }, x, DType::i32, false), (std::vector<double>{-1, -1, 0, 1, 1}));
  EXPECT_EQ(interpreted([](Expr a) { return clamp(a, -2, 3); }, x, DType::i32, false),
            (std::vector<double>{-2, -1, 0, 1, 3}));
  EXPECT_EQ(interpreted([](Expr a) { return round(a) + floor(a) + ceil(a); }, x, DType::i64, false),
            (std::vector<double>{-21, -3, 0, 3, 27}));
}

TEST(MathInterpreter, FastFormsAreCallsOfTheirOwn) {
  using namespace cusched::test;
  Expr x = load("X", var("t"));
  for (const char* name : {"sigmoid", "softplus", "log1p", "expm1", "sin", "cos", "tanh"}) {
    Expr f = with_fast_math(math_call(name, {x}));
    EXPECT_EQ(f->name, std::string("fast_") + name);
    EXPECT_TRUE(has_fast_math_operation(math_call(name, {x})));
  }
  for (const char* name : {"floor", "ceil", "round", "sign", "abs", "sqrt", "erf"}) {
    EXPECT_EQ(with_fast_math(math_call(name, {x}))->name, name);
    EXPECT_FALSE(has_fast_math_operation(math_call(name, {x})));
  }
  // f64 math stays exact.
  EXPECT_EQ(with_fast_math(sigmoid(load("D", var("t"), DType::f64)))->name, "sigmoid");
}

}  // namespace
}  // namespace cusched
