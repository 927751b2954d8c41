// fuse_epilogue in the schedule language: the fold recorded on both stages, and each
// refusal (what the folded stage reads, where its reduction is computed, who else reads
// the reduction) at the step that causes it.
#include <gtest/gtest.h>

#include "schedule_test_support.h"

namespace cusched::testing {
namespace {

// A (N x K) times B (K x M): G = A B, T = G + bias (pointwise), Y = max(T, 0), plus
// whatever readers a test adds; N = M so that a transposed read has the same extents.
struct EpilogueFixture {
  Size N{"N"}, M{"M"}, K{"K"};
  Tensor A{"A", DType::f32, {N, K}}, B{"B", DType::f32, {K, M}}, bias{"bias", DType::f32, {M}};
  Var i{"i", N}, j{"j", M};
  RVar k{"k", K};
  Func G = compute("G", {i, j}, sum(k, A(i, k) * B(k, j)));
  Func T = compute("T", {i, j}, G(i, j) + bias(j));
  Func Y = compute("Y", {i, j}, max(T(i, j), 0.0f));

  ScheduleContext context(std::vector<Func> outputs) const {
    ScheduleContext ctx;
    ctx.pipeline = Pipeline(std::move(outputs));
    ctx.sizes = {{"N", 16}, {"M", 16}, {"K", 8}};
    return ctx;
  }
};

json fold(const std::string& stage) { return {{"op", "fuse_epilogue"}, {"stage", stage}}; }
json inline_step(const std::string& stage) { return {{"op", "compute_inline"}, {"stage", stage}}; }

TEST(FuseEpilogue, TheFoldIsRecordedOnTheStageAndItsReduction) {
  EpilogueFixture f;
  Schedule s = Schedule::from_json(f.context({f.Y}), json::array({inline_step("T"), fold("Y")}));
  EXPECT_EQ(s.state().stage("Y").epilogue_of, "G");
  EXPECT_EQ(s.state().folded_epilogue("G"), "Y");
  EXPECT_EQ(s.state().stage("Y").provenance.location, 1);
}

TEST(FuseEpilogue, TheStageMustReadOneReductionAtItsOwnPoint) {
  EpilogueFixture f;
  // T not inlined: Y reads a pointwise stage.
  ValidationResult r = validate_schedule(f.context({f.Y}), json::array({fold("Y")}));
  EXPECT_EQ(r.error.code, "epilogue-producer-not-reduction");
  EXPECT_EQ(r.error.step, 0);
  // The reduction itself.
  EXPECT_EQ(validate_schedule(f.context({f.Y}), json::array({fold("G")})).error.code, "epilogue-not-pointwise");
  // A transposed read: same extents, not the stage's own point.
  Func Yt = compute("Yt", {f.i, f.j}, f.G(f.j, f.i) * 2.0f);
  EXPECT_EQ(validate_schedule(f.context({Yt}), json::array({fold("Yt")})).error.code, "epilogue-index-mismatch");
  // Two reductions.
  Func H = compute("H", {f.i, f.j}, sum(f.k, f.A(f.i, f.k)));
  Func Both = compute("Both", {f.i, f.j}, f.G(f.i, f.j) + H(f.i, f.j));
  EXPECT_EQ(validate_schedule(f.context({Both}), json::array({fold("Both")})).error.code,
            "epilogue-reads-several-stages");
}

TEST(FuseEpilogue, TheReductionMustBeAtRootUnsharedAndNotAnOutput) {
  EpilogueFixture f;
  // G is an output too.
  EXPECT_EQ(validate_schedule(f.context({f.Y, f.G}), json::array({inline_step("T"), fold("Y")})).error.code,
            "epilogue-producer-is-output");
  // Another stage reads G.
  Func W = compute("W", {f.i, f.j}, f.G(f.i, f.j) * 3.0f);
  EXPECT_EQ(validate_schedule(f.context({f.Y, W}), json::array({inline_step("T"), fold("Y")})).error.code,
            "epilogue-producer-shared");
  // G computed inside Y's row loop.
  ValidationResult r = validate_schedule(
      f.context({f.Y}),
      json::array(
          {inline_step("T"), {{"op", "compute_at"}, {"stage", "G"}, {"consumer", "Y"}, {"loop", "i"}}, fold("Y")}));
  EXPECT_EQ(r.error.code, "epilogue-producer-not-root");
  EXPECT_EQ(r.error.step, 2);
}

TEST(FuseEpilogue, AStageInlinedOrScheduledIsNotFolded) {
  EpilogueFixture f;
  // Y inlined into its reader Z (a step on Y, so refused as such before the fold; after
  // the fold the inlining leaves it no store of its own).
  Func Z = compute("Z", {f.i, f.j}, f.Y(f.i, f.j) * 2.0f);
  EXPECT_EQ(validate_schedule(f.context({Z}), json::array({inline_step("T"), inline_step("Y"), fold("Y")})).error.code,
            "epilogue-stage-scheduled");
  ValidationResult inlined =
      validate_schedule(f.context({Z}), json::array({inline_step("T"), fold("Y"), inline_step("Y")}));
  EXPECT_EQ(inlined.error.code, "epilogue-not-root");
  EXPECT_EQ(inlined.error.step, 2);
  // Y bound before the fold.
  ValidationResult r = validate_schedule(
      f.context({f.Y}),
      json::array(
          {inline_step("T"), {{"op", "bind"}, {"stage", "Y"}, {"loop", "i"}, {"axis", "blockIdx.x"}}, fold("Y")}));
  EXPECT_EQ(r.error.code, "epilogue-stage-scheduled");
  EXPECT_EQ(r.error.step, 2);
}

// The fold computes the stage's expression with the stage's own math: precision is the one
// step it takes, before or after the fold; a loop step after that precision is still refused.
TEST(FuseEpilogue, TheFoldedStageTakesItsMathFromPrecisionBeforeOrAfterTheFold) {
  EpilogueFixture f;
  const json fast = {{"op", "precision"}, {"stage", "Y"}, {"operands", "f32"}, {"math", "fast"}};
  for (const json& steps :
       {json::array({fast, inline_step("T"), fold("Y")}), json::array({inline_step("T"), fold("Y"), fast})}) {
    ValidationResult r = validate_schedule(f.context({f.Y}), steps);
    ASSERT_TRUE(r.ok) << steps.dump() << ": " << r.error.message;
    Schedule s = Schedule::from_json(f.context({f.Y}), steps);
    EXPECT_EQ(s.state().stage("Y").math, "fast");
    EXPECT_EQ(s.state().stage("Y").epilogue_of, "G");
  }
  ValidationResult r = validate_schedule(
      f.context({f.Y}), json::array({fast,
                                     {{"op", "bind"}, {"stage", "Y"}, {"loop", "i"}, {"axis", "blockIdx.x"}},
                                     inline_step("T"),
                                     fold("Y")}));
  EXPECT_EQ(r.error.code, "epilogue-stage-scheduled");
  EXPECT_EQ(r.error.step, 3);
}

TEST(FuseEpilogue, ALaterStepThatBreaksTheFoldIsRefusedAtThatStep) {
  EpilogueFixture f;
  // The folded stage scheduled after the fold.
  ValidationResult r = validate_schedule(
      f.context({f.Y}),
      json::array(
          {inline_step("T"), fold("Y"), {{"op", "bind"}, {"stage", "Y"}, {"loop", "j"}, {"axis", "threadIdx.x"}}}));
  EXPECT_EQ(r.error.code, "epilogue-stage-scheduled");
  EXPECT_EQ(r.error.step, 2);
  // The reduction moved inside the folded stage's loop after the fold.
  r = validate_schedule(
      f.context({f.Y}),
      json::array(
          {inline_step("T"), fold("Y"), {{"op", "compute_at"}, {"stage", "G"}, {"consumer", "Y"}, {"loop", "i"}}}));
  EXPECT_EQ(r.error.code, "epilogue-producer-not-root");
  EXPECT_EQ(r.error.step, 2);
}

}  // namespace
}  // namespace cusched::testing
