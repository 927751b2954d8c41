// Reductions inside larger expressions: compute() and the stage text split each into a
// stage of its own, named by the rule of dsl/reduction_split.h, which evaluates as the
// hand-split pipeline does; a reduction under a condition stays an error.
#include "dsl/reduction_split.h"

#include <cmath>

#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/expr_equal.h"
#include "dsl/expr_text.h"
#include "dsl/reference_eval.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

using test::error_code;

struct ReductionSplitFixture {
  Size R{"R"}, D{"D"};
  Tensor X{"X", DType::f32, {R, D}};
  Var i{"i", R}, j{"j", D};
  RVar k{"k", D}, l{"l", D};
  SizeBindings sizes{{"R", 3}, {"D", 5}};
  HostBuffers inputs() const {
    std::vector<double> x(15);
    for (size_t n = 0; n < x.size(); ++n) x[n] = static_cast<double>(static_cast<float>(std::sin(n * 0.7) * 2));
    return {{"X", x}};
  }
  ExprScope scope() const {
    ExprScope s;
    s.sizes = {"R", "D"};
    s.tensors = {{"X", X.ptr()}};
    return s;
  }
};

std::vector<std::string> stage_names(const Pipeline& p) {
  std::vector<std::string> names;
  for (const auto& s : p.stages()) names.push_back(s->name);
  return names;
}

// Every stage of `a` and `b` pairs up by name with the same definition, and both
// evaluate to the same values.
void expect_same_pipeline(const Pipeline& a, const Pipeline& b, const ReductionSplitFixture& f) {
  ASSERT_EQ(stage_names(a), stage_names(b));
  for (size_t n = 0; n < a.stages().size(); ++n) {
    std::string why;
    EXPECT_TRUE(same_stage(*a.stages()[n], *b.stages()[n], &why)) << a.stages()[n]->name << ": " << why;
  }
  HostBuffers va = evaluate_reference(a, f.sizes, f.inputs()), vb = evaluate_reference(b, f.sizes, f.inputs());
  for (const auto& s : a.stages()) EXPECT_EQ(va[s->name], vb[s->name]) << s->name;
}

TEST(ReductionSplit, ADivisionBySumBecomesTwoStages) {
  ReductionSplitFixture f;
  Func Y = compute("Y", {f.i, f.j}, f.X(f.i, f.j) / sum(f.k, f.X(f.i, f.k)));
  Func S = compute("Y_sum0", {f.i}, sum(f.k, f.X(f.i, f.k)));
  Func hand = compute("Y", {f.i, f.j}, f.X(f.i, f.j) / S(f.i));
  Pipeline split({Y});
  EXPECT_EQ(stage_names(split), (std::vector<std::string>{"Y_sum0", "Y"}));
  EXPECT_EQ(split.find_stage("Y_sum0")->vars, (std::vector<std::string>{"i"}));
  expect_same_pipeline(split, Pipeline({hand}), f);
  HostBuffers v = evaluate_reference(split, f.sizes, f.inputs());
  double row = 0;
  for (int c = 0; c < 5; ++c) row += f.inputs()["X"][c];
  EXPECT_DOUBLE_EQ(v["Y"][2], f.inputs()["X"][2] / row);
}

TEST(ReductionSplit, LogSumExpAndItsText) {
  ReductionSplitFixture f;
  Func Y = compute("Y", {f.i}, log(sum(f.k, exp(f.X(f.i, f.k)))));
  Func S = compute("Y_sum0", {f.i}, sum(f.k, exp(f.X(f.i, f.k))));
  expect_same_pipeline(Pipeline({Y}), Pipeline({compute("Y", {f.i}, log(S(f.i)))}), f);
  Func parsed = stage_from_text("Y(i in R) = log(sum(k in D: exp(X(i, k))))", f.scope());
  expect_same_pipeline(Pipeline({parsed}), Pipeline({Y}), f);
  // The derived stage prints as a stage of its own, and the pipeline reads back from its text.
  const FuncDef& sum_stage = *Pipeline({Y}).find_stage("Y_sum0");
  EXPECT_EQ(stage_to_text(sum_stage), "Y_sum0(i in R) = sum(k in D: exp(X(i, k)))");
  EXPECT_EQ(stage_to_text(Y.def()), "Y(i in R) = log(Y_sum0(i))");
}

TEST(ReductionSplit, NamesCountEachKindInReadingOrder) {
  ReductionSplitFixture f;
  Expr row_max = maximum(f.k, f.X(f.i, f.k));
  Expr body = (f.X(f.i, f.j) - row_max) / sum(f.k, f.X(f.i, f.k)) + sum(f.l, f.X(f.i, f.l) * f.X(f.i, f.l)) +
              maximum(f.k, f.X(f.i, f.k));  // the same as row_max: shared
  Pipeline p({compute("Y", {f.i, f.j}, body)});
  EXPECT_EQ(stage_names(p), (std::vector<std::string>{"Y_maximum0", "Y_sum0", "Y_sum1", "Y"}));
  EXPECT_EQ(stage_to_text(*p.find_stage("Y")),
            "Y(i in R, j in D) = (X(i, j) - Y_maximum0(i)) / Y_sum0(i) + Y_sum1(i) + Y_maximum0(i)");
}

TEST(ReductionSplit, SoftmaxInOneLine) {
  ReductionSplitFixture f;
  Expr mx = maximum(f.l, f.X(f.i, f.l));
  Func Y = compute("Y", {f.i, f.j}, exp(f.X(f.i, f.j) - mx) / sum(f.k, exp(f.X(f.i, f.k) - mx)));
  // The maximum inside the sum is split from the sum's stage in turn.
  Func M = compute("Y_maximum0", {f.i}, maximum(f.l, f.X(f.i, f.l)));
  Func M2 = compute("Y_sum0_maximum0", {f.i}, maximum(f.l, f.X(f.i, f.l)));
  Func S = compute("Y_sum0", {f.i}, sum(f.k, exp(f.X(f.i, f.k) - M2(f.i))));
  Func hand = compute("Y", {f.i, f.j}, exp(f.X(f.i, f.j) - M(f.i)) / S(f.i));
  expect_same_pipeline(Pipeline({Y}), Pipeline({hand}), f);
  HostBuffers v = evaluate_reference(Pipeline({Y}), f.sizes, f.inputs());
  double total = 0;
  for (int c = 0; c < 5; ++c) total += v["Y"][5 + c];
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(ReductionSplit, AnEnclosingReductionVariableBecomesAPureVariable) {
  ReductionSplitFixture f;
  // sum over k of X(i, k) / (sum over l of X(k mod R, l)): the inner sum depends on k.
  Func Y = compute("Y", {f.i}, sum(f.k, f.X(f.i, f.k) / sum(f.l, f.X(Expr(f.k) % 3, f.l))));
  Pipeline p({Y});
  const FuncDef* inner = p.find_stage("Y_sum0");
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->vars, (std::vector<std::string>{"k"}));
  EXPECT_EQ(stage_to_text(*inner), "Y_sum0(k in D) = sum(l in D: X(k % 3, l))");
  EXPECT_EQ(stage_to_text(Y.def()), "Y(i in R) = sum(k in D: X(i, k) / Y_sum0(k))");
  Var kv("k", f.D);
  Func S = compute("Y_sum0", {kv}, sum(f.l, f.X(Expr(kv) % 3, f.l)));
  expect_same_pipeline(p, Pipeline({compute("Y", {f.i}, sum(f.k, f.X(f.i, f.k) / S(f.k)))}), f);
}

TEST(ReductionSplit, AReductionOfNoVariableGetsAUnitDimension) {
  ReductionSplitFixture f;
  RVar r("r", f.R);
  Func Y = compute("Y", {f.i, f.j}, f.X(f.i, f.j) / sum({r, f.k}, f.X(r, f.k)));
  Pipeline p({Y});
  const FuncDef* total = p.find_stage("Y_sum0");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->vars, (std::vector<std::string>{"Y_sum0_o"}));
  EXPECT_EQ(stage_to_text(Y.def()), "Y(i in R, j in D) = X(i, j) / Y_sum0(0)");
  HostBuffers v = evaluate_reference(p, f.sizes, f.inputs());
  const HostBuffers in = f.inputs();
  double all = 0;
  for (double x : in.at("X")) all += x;
  EXPECT_DOUBLE_EQ(v["Y_sum0"][0], all);
}

TEST(ReductionSplit, AReductionUnderAConditionStaysAnError) {
  ReductionSplitFixture f;
  std::string message;
  auto guarded = [&] { compute("Y", {f.i}, select(f.i < 2, sum(f.k, f.X(f.i + 1, f.k)), 0.0f)); };
  EXPECT_EQ(error_code(guarded, &message), "nested-reduction");
  EXPECT_NE(message.find("select"), std::string::npos) << message;
  EXPECT_EQ(error_code([&] { compute("Y", {f.i}, f.i < 2 && sum(f.k, f.X(f.i, f.k)) > 0.0f); }), "nested-reduction");
  // The condition itself, and the left of &&, are always evaluated: those split.
  EXPECT_EQ(error_code([&] { compute("Y", {f.i}, select(sum(f.k, f.X(f.i, f.k)) > 0.0f, 1.0f, 0.0f)); }), "");
  std::string text_message;
  EXPECT_EQ(error_code([&] { stage_from_text("Y(i in R) = select(i < 2, sum(k in D: X(i + 1, k)), 0.0f)", f.scope()); },
                       &text_message),
            "nested-reduction");
  EXPECT_NE(text_message.find("column 27"), std::string::npos) << text_message;
  // An expression outside a stage definition has nowhere to split to.
  EXPECT_EQ(error_code([&] {
              ExprScope s = f.scope();
              s.vars = {"i"};
              expr_from_text("1 + sum(k in D: X(i, k))", s, true);
            }),
            "nested-reduction");
}

TEST(ReductionSplit, ADerivedNameTakenByAnotherStageIsADuplicate) {
  ReductionSplitFixture f;
  Func taken = compute("Y_sum0", {f.i}, f.X(f.i, 0) * 2.0f);
  Func Y = compute("Y", {f.i}, taken(f.i) + sum(f.k, f.X(f.i, f.k)));
  EXPECT_EQ(error_code([&] { Pipeline p({Y}); }), "duplicate-name");
}

}  // namespace
}  // namespace cusched
