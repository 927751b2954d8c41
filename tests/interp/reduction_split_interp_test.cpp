// A stage with reductions inside it, split into stages by compute(), lowers from its
// automatic baseline and interprets to the same values as the pipeline split by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/automatic_baseline.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

std::vector<double> interpreted(const Pipeline& p, const SizeBindings& sizes, const std::vector<double>& x) {
  ScheduleContext ctx{p, sizes};
  LoweredProgram prog = lower(Schedule::from_json(ctx, automatic_baseline(p)), "split");
  HostBuffers buf{{"X", x}};
  interpret(prog, buf);
  return buf["Y"];
}

TEST(ReductionSplitInterpreter, SplitAndHandSplitPipelinesAgree) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D), l("l", D);
  const SizeBindings sizes{{"R", 7}, {"D", 300}};
  std::vector<double> x(7 * 300);
  for (size_t n = 0; n < x.size(); ++n) x[n] = static_cast<double>(static_cast<float>(std::sin(n * 0.37) * 3));

  // Softmax written as one expression, and by hand.
  Expr mx = maximum(l, X(i, l));
  Func split = compute("Y", {i, j}, exp(X(i, j) - mx) / sum(k, exp(X(i, k) - mx)));
  Func M = compute("Y_maximum0", {i}, maximum(l, X(i, l)));
  Func M2 = compute("Y_sum0_maximum0", {i}, maximum(l, X(i, l)));
  Func S = compute("Y_sum0", {i}, sum(k, exp(X(i, k) - M2(i))));
  Func hand = compute("Y", {i, j}, exp(X(i, j) - M(i)) / S(i));
  const std::vector<double> a = interpreted(Pipeline({split}), sizes, x), b = interpreted(Pipeline({hand}), sizes, x);
  ASSERT_EQ(a.size(), x.size());
  EXPECT_EQ(a, b);
  const std::vector<double> ref = evaluate_reference(Pipeline({split}), sizes, {{"X", x}})["Y"];
  for (size_t n = 0; n < a.size(); ++n) ASSERT_NEAR(a[n], ref[n], 1e-6) << n;

  // log-sum-exp over rows.
  Func lse = compute("Y", {i}, log(sum(k, exp(X(i, k)))));
  Func E = compute("Y_sum0", {i}, sum(k, exp(X(i, k))));
  EXPECT_EQ(interpreted(Pipeline({lse}), sizes, x), interpreted(Pipeline({compute("Y", {i}, log(E(i)))}), sizes, x));
}

}  // namespace
}  // namespace cusched
