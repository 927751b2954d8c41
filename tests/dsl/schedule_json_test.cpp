// The JSON form of a schedule: step shape errors, normalisation, defaults, the
// whole-schedule entry point and the hash.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(ScheduleJsonErrors, NotAnArray) {
  for (const char* text : {R"({"op": "split"})", "42", R"("split")", "null"}) {
    ValidationResult r = validate_schedule(vector_add_context(), json::parse(text));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "not-a-schedule") << text;
    EXPECT_EQ(r.error.step, -1) << "the error is about the whole schedule, not a step";
    EXPECT_FALSE(r.error.hint.empty());
  }
}

TEST(ScheduleJsonErrors, StepNotAnObject) {
  expect_step_error(vector_add_context(),
                    json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4}, "split"])"), 1, "",
                    "step-not-object");
  expect_step_error(vector_add_context(), json::parse(R"([[{"op": "compute_root", "stage": "C"}]])"), 0, "",
                    "step-not-object");
}

TEST(ScheduleJsonErrors, MissingOrMistypedOp) {
  expect_step_error(vector_add_context(), json::parse(R"([{"stage": "C", "loop": "i"}])"), 0, "", "missing-op");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": 3, "stage": "C"}])"), 0, "", "missing-op");
}

TEST(ScheduleJsonErrors, UnknownOp) {
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "parallelize", "stage": "C", "loop": "i"}])"), 0,
                    "parallelize", "unknown-op");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "Split", "stage": "C", "loop": "i", "factor": 2}])"),
                    0, "Split", "unknown-op");
}

TEST(ScheduleJsonErrors, UnknownArgument) {
  expect_step_error(vector_add_context(),
                    json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4, "nparts": 2}])"), 0,
                    "split", "unknown-argument");
}

TEST(ScheduleJsonErrors, MissingArgument) {
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i"}])"), 0, "split",
                    "missing-argument");
  // null counts as missing.
  expect_step_error(vector_add_context(),
                    json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": null}])"), 0, "split",
                    "missing-argument");
}

TEST(ScheduleJsonErrors, MistypedArgument) {
  auto ctx = vector_add_context();
  for (const char* factor : {R"("4")", "4.0", "true", "[4]", R"({"v": 4})"})
    expect_step_error(
        ctx, json::parse(std::string(R"([{"op": "split", "stage": "C", "loop": "i", "factor": )") + factor + "}]"), 0,
        "split", "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "split", "stage": "C", "loop": "", "factor": 4}])"), 0, "split",
                    "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "split", "stage": "C", "loop": 7, "factor": 4}])"), 0, "split",
                    "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": "i"}])"), 0, "reorder",
                    "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": ["i", 3]}])"), 0, "reorder",
                    "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "bind", "stage": "C", "loop": "i", "axis": 0}])"), 0, "bind",
                    "mistyped-argument");
}

TEST(ScheduleJsonErrors, BadChoice) {
  expect_step_error(vector_add_context(),
                    json::parse(R"([{"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.w"}])"), 0, "bind",
                    "bad-choice");
}

TEST(ScheduleJsonErrors, ErrorIndexCountsEarlierSteps) {
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 256},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.x"},
    {"op": "bind", "stage": "C", "loop": "zz", "axis": "threadIdx.y"}])"),
                    3, "bind", "unknown-loop");
}

TEST(NormalizeStep, FillsDeclaredDefaultsAndKeepsGivenValues) {
  json n = normalize_step(json::parse(R"({"op": "unroll", "stage": "C", "loop": "ii"})"));
  EXPECT_EQ(n["max_extent"], 64);
  EXPECT_EQ(n["loop"], "ii");
  json p = normalize_step(json::parse(R"({"op": "pipeline", "loop": "ko", "depth": 4})"));
  EXPECT_EQ(p["depth"], 4);
  EXPECT_EQ(p["engine"], "cp.async");
  EXPECT_TRUE(p["stage"].is_null());  // derived by the primitive when applied
}

TEST(ScheduleJson, NormalisedStepsAreAFixedPoint) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "loop": "k", "factor": 8},
    {"op": "tile", "x": "i", "y": "j", "x_factor": 16, "y_factor": 8},
    {"op": "reorder", "loops": ["io", "jo", "ko", "ii", "ji", "ki"]},
    {"op": "bind", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "loop": "ii", "axis": "threadIdx.y"},
    {"op": "bind", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 4},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "swizzle": true},
    {"op": "pipeline", "loop": "ko", "depth": 3},
    {"op": "unroll", "loop": "ki"},
    {"op": "cache_write", "stage": "C", "scope": "register"},
    {"op": "launch_bounds", "stage": "C", "max_threads": 128, "min_blocks": 2}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io", "jo", "ko", "ii", "ji", "ki"}));
  // Normalising the normalised steps changes nothing but the nulls of undecided arguments.
  for (const auto& step : s.steps()) {
    json n = normalize_step(step);
    for (auto it = n.begin(); it != n.end();) it = it->is_null() ? n.erase(it) : std::next(it);
    EXPECT_EQ(n, step);
  }
  EXPECT_EQ(s.to_json().size(), 13u);
}

TEST(ScheduleJson, HashFollowsTheNormalisedSteps) {
  Schedule a = build(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4}])"));
  Schedule b = build(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4,
                                                          "outer": "io", "inner": "ii"}])"));
  Schedule c = build(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 8}])"));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
  EXPECT_EQ(a.hash().size(), 16u);
}

TEST(ValidateSchedule, ReturnsNormalisedStepsOrTheFirstError) {
  ValidationResult ok =
      validate_schedule(vector_add_context(), json::parse(R"([{"op": "split", "loop": "i", "factor": 4}])"));
  ASSERT_TRUE(ok.ok);
  EXPECT_EQ(ok.steps[0]["outer"], "io");
  ValidationResult bad = validate_schedule(vector_add_context(), json::parse(R"([
    {"op": "split", "loop": "i", "factor": 0}, {"op": "nope"}])"));
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.code, "bad-factor");
  EXPECT_EQ(bad.error.step, 0);
  EXPECT_EQ(bad.error.op, "split");
}

TEST(ValidateSchedule, EmptyScheduleIsLegal) {
  ValidationResult r = validate_schedule(vector_add_context(), json::array());
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.steps, json::array());
}

TEST(ErrorFormat, OneLineAndJson) {
  Error e{3, "bind", "reduction-loop-on-block-axis", "Loop 'k' reduces into C.", "Split it."};
  EXPECT_EQ(e.to_string(), "step 3 (bind): Loop 'k' reduces into C. Hint: Split it.");
  EXPECT_EQ(e.to_json(), json::parse(R"({"step": 3, "op": "bind", "code": "reduction-loop-on-block-axis",
                                        "message": "Loop 'k' reduces into C.", "hint": "Split it."})"));
  Error whole{-1, "", "not-a-schedule", "Not an array.", ""};
  EXPECT_EQ(whole.to_string(), "Not an array.");
  EXPECT_FALSE(whole.to_json().contains("step"));
  EXPECT_FALSE(whole.to_json().contains("op"));
  EXPECT_FALSE(whole.to_json().contains("hint"));
}

}  // namespace
}  // namespace cusched::testing
