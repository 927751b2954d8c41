// reorder and fuse: the resulting loop order and extents, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Reorder, PermutesTheListedLoopsInTheirPositions) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 16},
    {"op": "split", "stage": "C", "loop": "j", "factor": 16},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ii", "ji"]}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io", "jo", "ii", "ji", "k"}));
}

TEST(Reorder, LeavesUnlistedLoopsInPlace) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "reorder", "stage": "C", "loops": ["ko", "i"]}])"));
  // i and ko occupied positions 0 and 2; j and ki stay.
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"ko", "j", "i", "ki"}));
}

TEST(Reorder, FindsTheStageAndRecordsIt) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([{"op": "reorder", "loops": ["k", "j", "i"]}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"k", "j", "i"}));
  EXPECT_EQ(s.steps()[0]["stage"], "C");
}

TEST(ReorderErrors, EachError) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": ["i", "j", "i"]}])"), 0, "reorder",
                    "loop-used-twice");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": []}])"), 0, "reorder",
                    "missing-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": ["j", "zz"]}])"), 0, "reorder",
                    "unknown-loop");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "loops": ["zz", "j"]}])"), 0, "reorder", "unknown-loop");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "D", "loops": ["j", "i"]}])"), 0, "reorder",
                    "unknown-stage");
  expect_step_error(ctx, json::parse(R"([{"op": "reorder", "stage": "C", "loops": ["j", ""]}])"), 0, "reorder",
                    "mistyped-argument");
}

TEST(Fuse, JoinsAdjacentLoopsIntoTheProductExtent) {
  Schedule s = build(problem_context("layernorm"), json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w", "fused": "hw"}])"));
  EXPECT_EQ(loop_order(s, "Y"), (std::vector<std::string>{"b", "c", "hw"}));
  EXPECT_EQ(loop(s, "Y", "hw").extent, 6 * 8);
  const auto& rel = s.state().stage("Y").relations;
  ASSERT_EQ(rel.size(), 1u);
  EXPECT_EQ(rel[0].kind, LoopRelation::Fuse);
  EXPECT_EQ(rel[0].c, "hw");
}

TEST(Fuse, NamesTheFusedLoopByDefaultAndFusesReductionLoops) {
  Schedule s = build(problem_context("layernorm"), json::parse(R"([
    {"op": "fuse", "stage": "Moments", "outer": "rh", "inner": "rw"},
    {"op": "fuse", "stage": "Moments", "outer": "rc", "inner": "rhrw"}])"));
  EXPECT_EQ(loop_order(s, "Moments"), (std::vector<std::string>{"b", "m", "rcrhrw"}));
  EXPECT_EQ(loop(s, "Moments", "rcrhrw").extent, 8 * 6 * 8);  // C x H x W at the small size
  EXPECT_TRUE(loop(s, "Moments", "rcrhrw").reduction);
}

TEST(FuseErrors, EachError) {
  auto ctx = problem_context("layernorm");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "h", "inner": "h"}])"), 0, "fuse",
                    "loop-used-twice");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "c", "inner": "w"}])"), 0, "fuse",
                    "fuse-not-adjacent");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "w", "inner": "h"}])"), 0, "fuse",
                    "fuse-not-adjacent");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Moments", "outer": "m", "inner": "rc"}])"), 0, "fuse",
                    "fuse-mixed-loops");
  expect_step_error(ctx, json::parse(R"([
    {"op": "unroll", "stage": "Y", "loop": "w"},
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w"}])"),
                    1, "fuse", "fuse-marked-loop");
  expect_step_error(ctx, json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "h", "axis": "threadIdx.x"},
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w"}])"),
                    1, "fuse", "loop-already-bound");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "h", "inner": "w", "fused": "c"}])"), 0,
                    "fuse", "loop-used-twice");
  expect_step_error(ctx, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "h", "inner": "nope"}])"), 0, "fuse",
                    "unknown-loop");
}

}  // namespace
}  // namespace cusched::testing
