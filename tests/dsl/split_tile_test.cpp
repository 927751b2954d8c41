// split and tile: the loops they create, their extents and order, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Split, DividesALoopIntoOuterAndInner) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 128, "outer": "blk", "inner": "thr"}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"blk", "thr"}));
  EXPECT_EQ(loop(s, "C", "blk").extent, 8);
  EXPECT_EQ(loop(s, "C", "thr").extent, 128);
  EXPECT_EQ(s.state().stage("C").find_loop("i"), nullptr);
  const auto& rel = s.state().stage("C").relations;
  ASSERT_EQ(rel.size(), 1u);
  EXPECT_EQ(rel[0].kind, LoopRelation::Split);
  EXPECT_EQ(rel[0].a, "i");
  EXPECT_EQ(rel[0].b, "blk");
  EXPECT_EQ(rel[0].c, "thr");
  EXPECT_EQ(rel[0].factor, 128);
}

TEST(Split, NamesLoopsByDefaultAndRecordsTheNamesInTheStep) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([{"op": "split", "loop": "i", "factor": 32}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io", "ii"}));
  EXPECT_EQ(s.steps()[0]["outer"], "io");
  EXPECT_EQ(s.steps()[0]["inner"], "ii");
}

TEST(Split, RoundsTheOuterExtentUpWhenTheFactorDoesNotDivide) {
  Schedule s =
      build(vector_add_context(1000), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 128}])"));
  EXPECT_EQ(loop(s, "C", "io").extent, 8);  // ceil(1000 / 128)
  EXPECT_EQ(loop(s, "C", "ii").extent, 128);
}

TEST(Split, PartsFixTheOuterExtentWhateverTheSize) {
  // 1000 into 3 parts: inner ceil(1000 / 3) = 334, outer 3 (the last part shorter).
  for (int64_t n : {1000, 4096, 300}) {
    Schedule s =
        build(vector_add_context(n), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "parts": 3}])"));
    EXPECT_EQ(loop(s, "C", "io").extent, 3) << n;
    EXPECT_EQ(loop(s, "C", "ii").extent, (n + 2) / 3) << n;
    EXPECT_EQ(s.state().stage("C").relations[0].factor, (n + 2) / 3) << n;
  }
}

TEST(Split, SplitsAReductionLoopIntoReductionLoops) {
  Schedule s =
      build(problem_context("matmul"), json::parse(R"([{"op": "split", "stage": "C", "loop": "k", "factor": 8}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"i", "j", "ko", "ki"}));
  EXPECT_TRUE(loop(s, "C", "ko").reduction);
  EXPECT_TRUE(loop(s, "C", "ki").reduction);
  EXPECT_EQ(loop(s, "C", "ko").extent, 5);  // K = 40
}

TEST(Split, ChainableApiBuildsTheSameStep) {
  Schedule s(vector_add_context());
  auto [outer, inner] = s.split("C", "i", 64);
  EXPECT_EQ(outer, "io");
  EXPECT_EQ(inner, "ii");
  Schedule j =
      build(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 64}])"));
  EXPECT_EQ(s.to_json(), j.to_json());
  expect_replays(s);
}

TEST(SplitErrors, FactorMustBePositive) {
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 0}])"),
                    0, "split", "bad-factor");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": -4}])"),
                    0, "split", "bad-factor");
}

TEST(SplitErrors, FactorOrPartsButNotBoth) {
  expect_step_error(vector_add_context(),
                    json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4, "parts": 2}])"), 0, "split",
                    "conflicting-arguments");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "i"}])"), 0, "split",
                    "missing-argument");
}

TEST(SplitErrors, PartsMustFitTheExtent) {
  expect_step_error(vector_add_context(1024),
                    json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "parts": 0}])"), 0, "split",
                    "bad-parts");
  expect_step_error(vector_add_context(8), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "parts": 9}])"),
                    0, "split", "bad-parts");
  // 5 into 4 parts: factor 2 makes 3 parts, not 4.
  expect_step_error(vector_add_context(5), json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "parts": 4}])"),
                    0, "split", "bad-parts");
}

TEST(SplitErrors, UnrolledLoopCannotBeSplit) {
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "unroll", "stage": "C", "loop": "ii"},
    {"op": "split", "stage": "C", "loop": "ii", "factor": 2}])"),
                    2, "split", "split-marked-loop");
}

TEST(SplitErrors, NewLoopNamesMustBeFresh) {
  // Both new loops with one name.
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": "x", "inner": "x"}])"),
                    0, "split", "loop-used-twice");
  // A name the stage had before (the split loop itself).
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": "i", "inner": "t"}])"),
                    0, "split", "loop-used-twice");
  // A name that an earlier split used and that is gone now.
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 64},
    {"op": "split", "stage": "C", "loop": "ii", "factor": 4, "outer": "io", "inner": "q"}])"),
                    1, "split", "loop-used-twice");
}

TEST(SplitErrors, NewLoopNamesMustBeIdentifiers) {
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": "a b", "inner": "t"}])"),
                    0, "split", "bad-name");
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": "o", "inner": "9t"}])"),
                    0, "split", "bad-name");
}

TEST(SplitErrors, UnknownStageAndLoop) {
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "Q", "loop": "i", "factor": 4}])"),
                    0, "split", "unknown-stage");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "stage": "C", "loop": "z", "factor": 4}])"),
                    0, "split", "unknown-loop");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "split", "loop": "z", "factor": 4}])"), 0, "split",
                    "unknown-loop");
  // A loop renamed by an earlier split no longer exists.
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "split", "stage": "C", "loop": "i", "factor": 2}])"),
                    1, "split", "unknown-loop");
}

TEST(SplitErrors, LoopNameSharedByStagesNeedsTheStage) {
  expect_step_error(problem_context("softmax"), json::parse(R"([{"op": "split", "loop": "i", "factor": 4}])"), 0,
                    "split", "ambiguous-loop");
}

TEST(SplitErrors, BoundLoopCannotBeSplit) {
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.x"},
    {"op": "split", "stage": "C", "loop": "i", "factor": 2}])"),
                    1, "split", "loop-already-bound");
}

TEST(Tile, SplitsTwoLoopsAndOrdersTheTile) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 8}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io", "jo", "ii", "ji", "k"}));
  EXPECT_EQ(loop(s, "C", "io").extent, 4);  // M = 64
  EXPECT_EQ(loop(s, "C", "jo").extent, 6);  // N = 48
  EXPECT_EQ(loop(s, "C", "ii").extent, 16);
  EXPECT_EQ(loop(s, "C", "ji").extent, 8);
  EXPECT_EQ(s.state().stage("C").relations.size(), 2u);
  EXPECT_EQ(s.steps()[0]["yi"], "ji");
}

TEST(Tile, TakesCustomNames) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "tile", "x": "i", "y": "j", "x_factor": 32, "y_factor": 16, "xo": "bi", "yo": "bj", "xi": "ti", "yi": "tj"}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"bi", "bj", "ti", "tj", "k"}));
}

TEST(TileErrors, EachError) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx,
                    json::parse(R"([{"op": "tile", "stage": "C", "x": "i", "y": "i", "x_factor": 4, "y_factor": 4}])"),
                    0, "tile", "loop-used-twice");
  expect_step_error(ctx,
                    json::parse(R"([{"op": "tile", "stage": "C", "x": "j", "y": "i", "x_factor": 4, "y_factor": 4}])"),
                    0, "tile", "tile-order");
  expect_step_error(ctx,
                    json::parse(R"([{"op": "tile", "stage": "C", "x": "i", "y": "q", "x_factor": 4, "y_factor": 4}])"),
                    0, "tile", "unknown-loop");
  expect_step_error(ctx,
                    json::parse(R"([{"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 4, "y_factor": 0}])"),
                    0, "tile", "bad-factor");
  expect_step_error(ctx, json::parse(R"([{"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 4, "y_factor": 4,
                                           "xo": "t", "yo": "t"}])"),
                    0, "tile", "loop-used-twice");
}

}  // namespace
}  // namespace cusched::testing
