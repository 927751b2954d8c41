// The whole-schedule legality: rules judged on the finished schedule, not at each
// step; the chainable API may pass through states that later steps make legal; each
// error names the step that caused it, through the provenance the state records.
#include "dsl/schedule_legality.h"

#include <gtest/gtest.h>

#include "schedule_test_support.h"

namespace cusched::testing {
namespace {

// matmul at its small size: C(i, j) = sum(k, A(i, k) * B(k, j)), 64 x 48 x 40.
ScheduleContext matmul() { return problem_context("matmul"); }

Error legality_error(const Schedule& s) {
  try {
    s.check_legality();
  } catch (const UserError& e) {
    return e.error();
  }
  return {};
}

TEST(ScheduleLegality, AChainMayPassThroughAStateThatALaterStepMakesLegal) {
  Schedule s(matmul());
  s.tile("C", "i", "j", 16, 16);
  s.bind("C", "jo", GpuAxis::BlockX);  // jo is inside io, which is not bound yet
  EXPECT_EQ(legality_error(s).code, "block-loop-not-outermost");
  EXPECT_EQ(legality_error(s).step, 1);
  s.bind("C", "io", GpuAxis::BlockY);
  s.bind("C", "ii", GpuAxis::ThreadY).bind("C", "ji", GpuAxis::ThreadX);
  EXPECT_NO_THROW(s.check_legality());
}

TEST(ScheduleLegality, FromJsonChecksTheFinishedScheduleAndNamesTheStep) {
  const json steps = json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 16},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "reorder", "stage": "C", "loops": ["io", "ii", "jo", "ji", "k"]}
  ])");
  ValidationResult r = validate_schedule(matmul(), steps);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "block-loop-not-outermost");
  EXPECT_EQ(r.error.step, 4) << "the reorder moved jo inside ii";
  EXPECT_EQ(r.error.op, "reorder");
  EXPECT_EQ(r.error.phase, "schedule");
  EXPECT_EQ(r.error.to_json()["phase"], "schedule");
  // The same steps as text.
  Schedule prefix(matmul());
  for (int i = 0; i < 4; ++i) prefix.apply(steps[i]);
  const std::string text = prefix.to_text() + "reorder stage=C loops=io,ii,jo,ji,k\n";
  try {
    Schedule::from_text(matmul(), text);
    ADD_FAILURE() << "from_text should refuse the schedule";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "block-loop-not-outermost");
    EXPECT_EQ(e.error().step, 4);
  }
}

TEST(ScheduleLegality, ProvenanceRecordsTheStepThatLastSetEachField) {
  const json steps = json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 16},
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "ii", "ji", "ki"]},
    {"op": "unroll", "stage": "C", "loop": "ki"},
    {"op": "launch_bounds", "stage": "C", "max_threads": 256}
  ])");
  Schedule s(matmul());
  for (const auto& step : steps) s.apply(step);
  const StageProvenance& p = s.state().schedules.at("C").provenance;
  EXPECT_EQ(p.order, 4);
  EXPECT_EQ(p.binding_of("io"), 2);
  EXPECT_EQ(p.binding_of("jo"), -1);
  EXPECT_EQ(p.cache_read_of("A"), 3);
  EXPECT_EQ(p.cache_read_of("B"), -1);
  EXPECT_EQ(p.loop_kind.at("ki"), 5);
  EXPECT_EQ(p.launch_bounds, 6);
  EXPECT_EQ(p.location, -1);
  EXPECT_EQ(p.tensor_core, -1);
  EXPECT_EQ(p.last, 6);
}

TEST(ScheduleLegality, ProvenanceOfAStageThatRfactorMakes) {
  const json steps = json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "rfactor", "stage": "C", "loop": "ko", "name": "Cr"},
    {"op": "bind", "stage": "Cr", "loop": "i", "axis": "blockIdx.x"}
  ])");
  Schedule s(matmul());
  for (const auto& step : steps) s.apply(step);
  const StageProvenance& p = s.state().schedules.at("Cr").provenance;
  EXPECT_EQ(p.order, 1);
  EXPECT_EQ(p.binding_of("i"), 2);
  EXPECT_EQ(p.last, 2);
}

TEST(ScheduleLegality, AnOutputComputedInsideAnotherStageIsRefused) {
  // compute_at and compute_inline refuse outputs; the whole-schedule rule guards a state
  // built otherwise.
  Schedule s(problem_context("softmax"));
  s.split("Y", "j", 64);
  ScheduleState st = s.state();
  st.schedules.at("Y").location = ComputeLocation::Inline;
  try {
    check_schedule_legality(st, s.steps());
    ADD_FAILURE() << "an inlined output must be refused";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "output-not-root");
    EXPECT_EQ(e.error().phase, "schedule");
    EXPECT_EQ(e.error().step, -1) << "no step set the location";
  }
}

TEST(ScheduleLegality, APipelineOfTwoByteCopiesNamesThePipelineStep) {
  // No built-in problem has 2-byte inputs: C = A B over f16 at 64 x 48 x 40.
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  ScheduleContext ctx;
  ctx.pipeline = Pipeline({compute("C", {i, j}, sum(k, A(i, k) * B(k, j)))});
  ctx.sizes = {{"M", 64}, {"N", 48}, {"K", 40}};
  json steps = json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 16},
    {"op": "split", "stage": "C", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "ii", "ji", "ki"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"}
  ])");
  EXPECT_TRUE(validate_schedule(ctx, steps).ok) << "the synchronous 2-byte copy is legal";
  steps.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 2}, {"engine", "cp.async"}});
  ValidationResult r = validate_schedule(ctx, steps);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "pipeline-element-size");
  EXPECT_EQ(r.error.step, 8);
  EXPECT_EQ(r.error.op, "pipeline");
  EXPECT_EQ(r.error.phase, "schedule");
}

TEST(ScheduleLegality, StepErrorsCarryPhaseScheduleAndTheFieldRoundTrips) {
  ValidationResult r =
      validate_schedule(matmul(), json::parse(R"([{"op": "split", "stage": "C", "loop": "nope", "factor": 2}])"));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "unknown-loop");
  EXPECT_EQ(r.error.phase, "schedule");
  Error e = Error::from_json(r.error.to_json());
  EXPECT_EQ(e.phase, "schedule");
  EXPECT_EQ(e.code, "unknown-loop");
  Error plain;
  plain.code = "bad-json";
  EXPECT_FALSE(plain.to_json().contains("phase"));
  EXPECT_EQ(Error::from_json(plain.to_json()).phase, "");
}

}  // namespace
}  // namespace cusched::testing
