// The float64 reference evaluator against values computed here with plain loops.
#include <cmath>

#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/reference_eval.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using cusched::test::error_code;

std::vector<double> values(int n, double scale, double offset) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = std::cos(i * 0.61) * scale + offset;
  return v;
}

TEST(Reference, MatmulMatchesPlainLoopsInDouble) {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  SizeBindings sizes{{"M", 3}, {"N", 5}, {"K", 7}};
  HostBuffers in{{"A", values(21, 1, 0.1)}, {"B", values(35, 2, -0.3)}};
  HostBuffers out = evaluate_reference(Pipeline({C}), sizes, in);
  ASSERT_EQ(out["C"].size(), 15u);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) {
      double s = 0;
      for (int q = 0; q < 7; ++q) s += in["A"][r * 7 + q] * in["B"][q * 5 + c];
      EXPECT_EQ(out["C"][r * 5 + c], s) << r << "," << c;  // same order, same double arithmetic
    }
}

TEST(Reference, SoftmaxKeepsIntermediateStagesAndMatchesLoops) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D);
  Func Mx = compute("M", {i}, maximum(k, X(i, k)));
  Func S = compute("S", {i}, sum(k, exp(X(i, k) - Mx(i))));
  Func Y = compute("Y", {i, j}, exp(X(i, j) - Mx(i)) / S(i));
  HostBuffers in{{"X", values(4 * 9, 3, 40)}};
  HostBuffers out = evaluate_reference(Pipeline({Y}), {{"R", 4}, {"D", 9}}, in);
  ASSERT_TRUE(out.count("M") && out.count("S") && out.count("Y"));
  for (int r = 0; r < 4; ++r) {
    const double* x = &in["X"][r * 9];
    double m = -INFINITY, s = 0;
    for (int c = 0; c < 9; ++c) m = std::max(m, x[c]);
    for (int c = 0; c < 9; ++c) s += std::exp(x[c] - m);
    EXPECT_EQ(out["M"][r], m);
    EXPECT_EQ(out["S"][r], s);
    double total = 0;
    for (int c = 0; c < 9; ++c) {
      EXPECT_EQ(out["Y"][r * 9 + c], std::exp(x[c] - m) / s);
      total += out["Y"][r * 9 + c];
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
  }
}

TEST(Reference, ArgmaxAndArgminTieToTheSmallestFlatIndex) {
  Tensor X("X", DType::f32, {make_int(2), make_int(3), make_int(4)});
  Var b("b", make_int(2));
  RVar r("r", make_int(3)), c("c", make_int(4));
  Func Amax = compute("Amax", {b}, argmax({r, c}, X(b, r, c)));
  Func Amin = compute("Amin", {b}, argmin(c, X(b, 0, c)));
  std::vector<double> x(24, 0.0);
  x[0 * 12 + 1 * 4 + 2] = 5;  // batch 0: max 5 at (1, 2) = flat 6 and at (2, 0) = flat 8
  x[0 * 12 + 2 * 4 + 0] = 5;
  x[0 * 12 + 1] = -1;  // batch 0 row 0: min -1 at c = 1 and c = 3
  x[0 * 12 + 3] = -1;
  x[1 * 12 + 2 * 4 + 3] = 2;  // batch 1: max at flat 11 only; row 0 all 0: argmin 0
  HostBuffers out = evaluate_reference(Pipeline({Amax, Amin}), {}, {{"X", x}});
  EXPECT_EQ(out["Amax"], (std::vector<double>{6, 11}));
  EXPECT_EQ(out["Amin"], (std::vector<double>{1, 0}));
  EXPECT_EQ(Amax.def().dtype, DType::i64);
}

TEST(Reference, EveryOperatorAndFunction) {
  Tensor X("X", DType::f32, {make_int(1)});
  Expr x = X(0);  // 2.5 below
  struct Case {
    Expr e;
    double expected;
  };
  std::vector<Case> cases = {
      {exp(x), std::exp(2.5)},
      {log(x), std::log(2.5)},
      {sqrt(x), std::sqrt(2.5)},
      {rsqrt(x), 1 / std::sqrt(2.5)},
      {tanh(x), std::tanh(2.5)},
      {erf(x), std::erf(2.5)},
      {abs(-x), 2.5},
      {pow(x, 3.0), 15.625},
      {min(x, 1.0), 1.0},
      {max(x, 1.0), 2.5},
      {select(x > 2.0, x * 2.0, x), 5.0},
      {select(x < 2.0, x * 2.0, x), 2.5},
      {cast(DType::i32, x), 2},
      {cast(DType::i32, -x), -2},
      {cast(DType::boolean, x - 2.5), 0},
      {cast(DType::boolean, x), 1},
      {cast(DType::i64, x) / 2, 1},
      {cast(DType::i32, -x) / 2, -1},
      {cast(DType::i32, -x * 3.0) % 4, -3},
      {x / 2.0, 1.25},
      {x % 2.0, 0.5},
      {x - 3.0, -0.5},
      {(x > 1.0) && (x < 2.0), 0},
      {(x > 1.0) || (x < 2.0), 1},
      {!(x > 1.0), 0},
      {x == 2.5, 1},
      {x != 2.5, 0},
      {x <= 2.5, 1},
      {x >= 3.0, 0},
      {cast(DType::f32, x) * 1e-9, 2.5e-9},
  };
  Var i("i", make_int(1));
  for (size_t n = 0; n < cases.size(); ++n) {
    Func f = compute("F", {i}, cases[n].e + 0 * i);
    HostBuffers out = evaluate_reference(Pipeline({f}), {}, {{"X", {2.5}}});
    EXPECT_DOUBLE_EQ(out["F"][0], cases[n].expected) << to_string(cases[n].e);
    EXPECT_DOUBLE_EQ(eval_expr_f64(cases[n].e, {}, {}, {{"X", {2.5}}}), cases[n].expected) << to_string(cases[n].e);
  }
}

TEST(Reference, ProductMinimumAndMultiVariableSumOrder) {
  Tensor X("X", DType::f32, {make_int(2), make_int(3)});
  RVar a("a", make_int(2)), b("b", make_int(3));
  Var u("u", make_int(1));
  std::vector<double> x{1e16, 1, -1e16, 1, 2, 3};
  Func S = compute("S", {u}, sum({a, b}, X(a, b)));
  Func P = compute("P", {u}, product({a, b}, X(a, b) * 0 + (a + 1)));
  Func Mn = compute("Mn", {u}, minimum({a, b}, X(a, b)));
  HostBuffers out = evaluate_reference(Pipeline({S, P, Mn}), {}, {{"X", x}});
  double s = 0;
  for (double v : x) s += v;  // a outermost, b innermost: the row-major order
  EXPECT_EQ(out["S"][0], s);
  EXPECT_EQ(out["P"][0], 8.0);  // 1 * 1 * 1 * 2 * 2 * 2
  EXPECT_EQ(out["Mn"][0], -1e16);
}

TEST(Reference, PointEvaluationAndErrors) {
  Size N("N");
  Tensor X("X", DType::f32, {N});
  Var i("i", N);
  RVar k("k", N);
  Var u("u", make_int(1));
  Func Total = compute("Total", {u}, sum(k, X(k)));
  Func T = compute("T", {i}, Total(0) * X(i));
  Func Shift = compute("Shift", {i}, X(i + 1));  // reads past the end at i = N - 1
  std::vector<double> x{1, 2, 3, 4};
  ReferenceEvaluator ev(Pipeline({T}), {{"N", 4}}, {{"X", x}});
  EXPECT_EQ(ev.at("T", {2}), 30.0);
  EXPECT_EQ(ev.shape("T"), (std::vector<int64_t>{4}));
  EXPECT_EQ(ev.eval(X(i) * 2.0, {{"i", 3}}), 8.0);
  EXPECT_EQ(error_code([&] { ev.at("T", {4}); }), "out-of-bounds");
  EXPECT_EQ(error_code([&] { ev.at("Nope", {0}); }), "unknown-stage");
  EXPECT_EQ(error_code([&] { evaluate_reference(Pipeline({Shift}), {{"N", 4}}, {{"X", x}}); }), "out-of-bounds");
  EXPECT_EQ(error_code([&] { evaluate_reference(Pipeline({T}), {{"N", 4}}, {}); }), "missing-input");
  EXPECT_EQ(error_code([&] { evaluate_reference(Pipeline({T}), {{"N", 5}}, {{"X", x}}); }), "input-size-mismatch");
  EXPECT_EQ(error_code([&] { evaluate_reference(Pipeline({T}), {}, {{"X", x}}); }), "unbound-size");
}

}  // namespace
}  // namespace cusched
