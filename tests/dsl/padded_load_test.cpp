// Padded loads (dsl/padded_load.h): the text form round-trips, the float64 reference
// reads the padding value outside the source (a padded convolution and a padded max
// pooling equal their select-around-a-clamped-load forms), and the misuses raise
// their codes: padded() of what is not a load, a non-integer value for integers, two
// values for one source, a placed producer, a bulk-engine copy.
#include "dsl/padded_load.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/expr_equal.h"
#include "dsl/expr_text.h"
#include "dsl/reference_eval.h"
#include "dsl/schedule.h"

namespace cusched {
namespace {

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().hint.empty()) << e.error().code;
    return e.error().code;
  }
  return "";
}

struct Conv {
  Size N{"N"}, C{"C"}, H{"H"}, W{"W"};
  Tensor X{"X", DType::f32, {N, C, H, W}};
  Tensor Wt{"Wt", DType::f32, {Expr(4), C, Expr(3), Expr(3)}};
  Tensor I{"I", DType::i32, {H}};
  Var n{"n", N}, o{"o", Expr(4)}, h{"h", H}, w{"w", W};
  RVar rc{"rc", C}, kh{"kh", 3}, kw{"kw", 3};
  ExprScope scope() const {
    ExprScope s;
    s.sizes = {"N", "C", "H", "W"};
    s.tensors = {{"X", X.ptr()}, {"Wt", Wt.ptr()}, {"I", I.ptr()}};
    s.vars = {"n", "o", "h", "w"};
    return s;
  }
};

TEST(PaddedLoad, TextRoundTripsAndReadsLikeTheDsl) {
  Conv c;
  const Expr zero = padded(c.X(c.n, Expr(c.o) % c.C, Expr(c.h) - 1, Expr(c.w) + 1));
  const Expr minus_inf = padded(c.X(c.n, 0, Expr(c.h) * 2 - 1, c.w), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(expr_to_text(zero), "padded(X(n, o % C, h - 1, w + 1))");
  EXPECT_EQ(expr_to_text(minus_inf), "padded(X(n, 0, h * 2 - 1, w), -inf)");
  for (const Expr& e : {zero, minus_inf, zero * 2.5f, padded(c.X(c.n, 0, c.h, c.w), 1.5)}) {
    const std::string text = expr_to_text(e);
    const Expr back = expr_from_text(text, c.scope());
    std::string why;
    EXPECT_TRUE(same_expr(e, back, &why)) << text << ": " << why;
    EXPECT_TRUE(is_padded_load(back->op == ExprOp::Load ? back : back->args[0])) << text;
  }
  // A padded load is a load to the rest of the language: still a sum of two loads' products.
  Func y = compute("Y", {c.n, c.o, c.h, c.w},
                   sum({c.rc, c.kh, c.kw}, padded(c.X(c.n, c.rc, Expr(c.h) + c.kh - 1, Expr(c.w) + c.kw - 1)) *
                                               c.Wt(c.o, c.rc, c.kh, c.kw)));
  EXPECT_TRUE(y.def().is_sum_of_load_products());
}

TEST(PaddedLoad, ReferenceEqualsTheSelectOfAClampedLoad) {
  Conv c;
  const SizeBindings sizes = {{"N", 2}, {"C", 3}, {"H", 5}, {"W", 6}};
  auto in = [&](const Expr& i, const Expr& extent) { return i >= 0 && i < extent; };
  auto clamp_index = [&](const Expr& i, const Expr& extent) { return max(min(i, extent - 1), 0); };
  const Expr ih = Expr(c.h) * 2 + c.kh - 1, iw = Expr(c.w) + c.kw - 2;
  Func padded_conv = compute("P", {c.n, c.o, c.h, c.w},
                             sum({c.rc, c.kh, c.kw}, padded(c.X(c.n, c.rc, ih, iw)) * c.Wt(c.o, c.rc, c.kh, c.kw)));
  Func select_conv =
      compute("S", {c.n, c.o, c.h, c.w},
              sum({c.rc, c.kh, c.kw},
                  select(in(ih, c.H) && in(iw, c.W), c.X(c.n, c.rc, clamp_index(ih, c.H), clamp_index(iw, c.W)), 0.0f) *
                      c.Wt(c.o, c.rc, c.kh, c.kw)));
  const double inf = std::numeric_limits<double>::infinity();
  Func padded_pool = compute("PP", {c.n, c.h, c.w}, maximum({c.kh, c.kw}, padded(c.X(c.n, 0, ih, iw), -inf)));
  Func select_pool =
      compute("SP", {c.n, c.h, c.w},
              maximum({c.kh, c.kw}, select(in(ih, c.H) && in(iw, c.W),
                                           c.X(c.n, 0, clamp_index(ih, c.H), clamp_index(iw, c.W)), make_float(-inf))));
  HostBuffers inputs;
  inputs["X"].resize(2 * 3 * 5 * 6);
  inputs["Wt"].resize(4 * 3 * 9);
  for (size_t i = 0; i < inputs["X"].size(); ++i) inputs["X"][i] = std::sin(0.7 * static_cast<double>(i)) - 2.0;
  for (size_t i = 0; i < inputs["Wt"].size(); ++i) inputs["Wt"][i] = std::cos(0.3 * static_cast<double>(i));
  const HostBuffers out =
      evaluate_reference(Pipeline({padded_conv, select_conv, padded_pool, select_pool}), sizes, inputs);
  ASSERT_EQ(out.at("P").size(), out.at("S").size());
  int nonzero_outputs = 0;
  for (size_t i = 0; i < out.at("P").size(); ++i) {
    EXPECT_EQ(out.at("P")[i], out.at("S")[i]) << i;
    nonzero_outputs += out.at("P")[i] != 0;
  }
  EXPECT_GT(nonzero_outputs, 0);
  // Every X is below -1, so a pooling window that reads padding as 0 would give 0.
  for (size_t i = 0; i < out.at("PP").size(); ++i) {
    EXPECT_EQ(out.at("PP")[i], out.at("SP")[i]) << i;
    EXPECT_LT(out.at("PP")[i], -0.9) << i;
  }
}

TEST(PaddedLoad, MisusesRaiseTheirCodes) {
  Conv c;
  EXPECT_EQ(code_of([&] { padded(c.X(c.n, 0, c.h, c.w) + 1); }), "padded-not-a-load");
  EXPECT_EQ(code_of([&] { padded(Expr(c.h)); }), "padded-not-a-load");
  EXPECT_EQ(code_of([&] { padded(c.I(c.h), 0.5); }), "padded-value-type");
  EXPECT_EQ(code_of([&] { padded(c.I(c.h), -1); }), "");
  EXPECT_EQ(code_of([&] {
              compute("Y", {c.n, c.h, c.w},
                      padded(c.X(c.n, 0, Expr(c.h) - 1, c.w)) + padded(c.X(c.n, 0, Expr(c.h) + 1, c.w), 1.0));
            }),
            "padded-values-differ");
  EXPECT_EQ(code_of([&] { expr_from_text("padded(X(n, 0, h, w) * 2)", c.scope()); }), "type-error");
  EXPECT_EQ(code_of([&] { expr_from_text("padded(X(n, 0, h, w), h)", c.scope()); }), "type-error");
  EXPECT_EQ(code_of([&] { expr_from_text("padded()", c.scope()); }), "wrong-argument-count");
}

// R = relu(X), Y = conv(padded R).
ScheduleContext relu_conv_context(Conv& c) {
  Func r = compute("R", {c.n, c.o, c.h, c.w}, max(c.X(c.n, Expr(c.o) % c.C, c.h, c.w), 0.0f));
  Var oo("oo", Expr(4));
  Func y = compute("Y", {c.n, oo, c.h, c.w},
                   sum({c.rc, c.kh, c.kw},
                       padded(r(c.n, c.rc, Expr(c.h) + c.kh - 1, Expr(c.w) + c.kw - 1)) * c.Wt(oo, c.rc, c.kh, c.kw)));
  ScheduleContext ctx;
  ctx.pipeline = Pipeline({y});
  ctx.sizes = {{"N", 2}, {"C", 4}, {"H", 8}, {"W", 16}};
  return ctx;
}

TEST(PaddedLoad, LegalityRefusesAPlacedProducerAndABulkCopy) {
  Conv c;
  const ScheduleContext ctx = relu_conv_context(c);
  const auto placed = nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "R", "consumer": "Y", "loop": "n"}])");
  EXPECT_EQ(code_of([&] { Schedule::from_json(ctx, placed).check_legality(); }), "padded-read-of-placed-stage");
  const auto inlined = nlohmann::json::parse(R"([{"op": "compute_inline", "stage": "R"}])");
  EXPECT_EQ(code_of([&] { Schedule::from_json(ctx, inlined).check_legality(); }), "");
  const auto bulk = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "rc", "factor": 2, "outer": "rco", "inner": "rci"},
    {"op": "reorder", "stage": "Y", "loops": ["n", "oo", "rco", "h", "w", "rci", "kh", "kw"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "R", "scope": "shared", "at": "rco", "pad": 0},
    {"op": "pipeline", "stage": "Y", "loop": "rco", "depth": 2, "engine": "bulk"}])");
  EXPECT_EQ(code_of([&] { Schedule::from_json(ctx, bulk).check_legality(); }), "bulk-copy-padded");
  auto cp_async = bulk;
  cp_async[4]["engine"] = "cp.async";
  EXPECT_EQ(code_of([&] { Schedule::from_json(ctx, cp_async).check_legality(); }), "");
}

}  // namespace
}  // namespace cusched
