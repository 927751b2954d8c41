// sum_with_variance in the schedule language: the pairing recorded on the sum, and each
// refusal (what the two stages reduce, where they are computed, which kernels read the
// sum, steps on the sum) at the step that causes it.
#include <gtest/gtest.h>

#include "schedule_test_support.h"

namespace cusched::testing {
namespace {

// Rows of X (N x M): S = sum over a row, Q = its variance, Y = (X - S / M) rsqrt(Q + eps),
// plus whatever stages a test adds.
struct RowStatistics {
  Size N{"N"}, M{"M"};
  Tensor X{"X", DType::f32, {N, M}};
  Var i{"i", N}, j{"j", M};
  RVar r{"r", M};
  Func S = compute("S", {i}, sum(r, X(i, r)));
  Func Q = compute("Q", {i}, variance(r, X(i, r)));
  Func Y = compute("Y", {i, j}, (X(i, j) - S(i) / 8.0f) * rsqrt(Q(i) + 1e-5f));

  ScheduleContext context(std::vector<Func> outputs) const {
    ScheduleContext ctx;
    ctx.pipeline = Pipeline(std::move(outputs));
    ctx.sizes = {{"N", 4}, {"M", 8}};
    return ctx;
  }
};

json pair_step(const std::string& sum, const std::string& variance) {
  return {{"op", "sum_with_variance"}, {"stage", sum}, {"variance", variance}};
}

TEST(SumWithVariance, ThePairingIsRecordedOnTheSum) {
  RowStatistics f;
  Schedule s = Schedule::from_json(f.context({f.Y}), json::array({pair_step("S", "Q")}));
  EXPECT_EQ(s.state().stage("S").with_variance, "Q");
  EXPECT_EQ(s.state().sum_with("Q"), "S");
  EXPECT_EQ(s.state().sum_with("S"), "");
  EXPECT_EQ(s.state().stage("S").provenance.location, 0);
}

TEST(SumWithVariance, TheStagesMustReduceTheSameValues) {
  RowStatistics f;
  // The roles swapped.
  EXPECT_EQ(validate_schedule(f.context({f.Y}), json::array({pair_step("Q", "S")})).error.code,
            "sum-with-variance-not-sum");
  EXPECT_EQ(validate_schedule(f.context({f.Y}), json::array({pair_step("S", "Y")})).error.code,
            "sum-with-variance-not-variance");
  // Another body: the variance of 2 X.
  Func Q2 = compute("Q2", {f.i}, variance(f.r, f.X(f.i, f.r) * 2.0f));
  Func Y2 = compute("Y2", {f.i}, f.S(f.i) + Q2(f.i));
  ValidationResult r = validate_schedule(f.context({Y2}), json::array({pair_step("S", "Q2")}));
  EXPECT_EQ(r.error.code, "sum-with-variance-body-mismatch");
  EXPECT_EQ(r.error.step, 0);
  // Half the row.
  RVar half{"h", Expr(4)};
  Func Qh = compute("Qh", {f.i}, variance(half, f.X(f.i, half)));
  Func Yh = compute("Yh", {f.i}, f.S(f.i) + Qh(f.i));
  EXPECT_EQ(validate_schedule(f.context({Yh}), json::array({pair_step("S", "Qh")})).error.code,
            "sum-with-variance-domain-mismatch");
  // The same values under other variable names pair.
  Var a{"a", f.N};
  RVar b{"b", f.M};
  Func Qr = compute("Qr", {a}, variance(b, f.X(a, b)));
  Func Yr = compute("Yr", {f.i}, f.S(f.i) + Qr(f.i));
  EXPECT_TRUE(validate_schedule(f.context({Yr}), json::array({pair_step("S", "Qr")})).ok);
}

TEST(SumWithVariance, EveryKernelThatReadsTheSumRunsAfterTheVariances) {
  RowStatistics f;
  // C reads S at root and is defined before Q: its kernel would read S before Q's stores it.
  Func C = compute("C", {f.i, f.j}, f.X(f.i, f.j) - f.S(f.i) / 8.0f);
  Func Qc = compute("Qc", {f.i}, variance(f.r, f.X(f.i, f.r)));
  Func Yc = compute("Yc", {f.i, f.j}, C(f.i, f.j) * rsqrt(Qc(f.i) + 1e-5f));
  ValidationResult r = validate_schedule(f.context({Yc}), json::array({pair_step("S", "Qc")}));
  EXPECT_EQ(r.error.code, "sum-with-variance-read-before");
  // Inlined into Yc, which is built after Qc, C reads S in a later kernel.
  EXPECT_TRUE(validate_schedule(f.context({Yc}),
                                json::array({{{"op", "compute_inline"}, {"stage", "C"}}, pair_step("S", "Qc")}))
                  .ok);
  // Inlined after the pairing: the same.
  EXPECT_TRUE(validate_schedule(f.context({Yc}),
                                json::array({pair_step("S", "Qc"), {{"op", "compute_inline"}, {"stage", "C"}}}))
                  .ok);
}

TEST(SumWithVariance, BothStagesAreAtRootAndTheSumTakesNoStepOfItsOwn) {
  RowStatistics f;
  const json at_row = {{"op", "compute_at"}, {"stage", "Q"}, {"consumer", "Y"}, {"loop", "i"}};
  // The variance computed inside Y's row loop, before or after the pairing.
  EXPECT_EQ(validate_schedule(f.context({f.Y}), json::array({at_row, pair_step("S", "Q")})).error.code,
            "sum-with-variance-variance-not-root");
  ValidationResult later = validate_schedule(f.context({f.Y}), json::array({pair_step("S", "Q"), at_row}));
  EXPECT_EQ(later.error.code, "sum-with-variance-variance-not-root");
  EXPECT_EQ(later.error.step, 1);
  // A step on the sum before the pairing, or after it.
  const json split = {{"op", "split"}, {"stage", "S"}, {"loop", "i"}, {"factor", 2}, {"outer", "io"}, {"inner", "ii"}};
  ValidationResult before = validate_schedule(f.context({f.Y}), json::array({split, pair_step("S", "Q")}));
  EXPECT_EQ(before.error.code, "sum-with-variance-stage-scheduled");
  EXPECT_EQ(before.error.step, 1);
  ValidationResult after = validate_schedule(f.context({f.Y}), json::array({pair_step("S", "Q"), split}));
  EXPECT_EQ(after.error.code, "sum-with-variance-stage-scheduled");
  EXPECT_EQ(after.error.step, 1);
  // One sum per variance.
  Func S2 = compute("S2", {f.i}, sum(f.r, f.X(f.i, f.r)));
  Func Y2 = compute("Y2", {f.i}, f.S(f.i) + S2(f.i) + f.Q(f.i));
  EXPECT_EQ(validate_schedule(f.context({Y2}), json::array({pair_step("S", "Q"), pair_step("S2", "Q")})).error.code,
            "sum-with-variance-taken");
}

}  // namespace
}  // namespace cusched::testing
