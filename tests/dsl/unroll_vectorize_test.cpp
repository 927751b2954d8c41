// unroll and vectorize: loop kinds, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Unroll, MarksTheLoopUnrolled) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 8},
    {"op": "unroll", "loop": "ii"}])"));
  EXPECT_EQ(loop(s, "C", "ii").kind, LoopKind::Unrolled);
  EXPECT_EQ(loop(s, "C", "io").kind, LoopKind::Serial);
  EXPECT_EQ(s.steps()[1]["max_extent"], 64);  // the declared default is recorded
  EXPECT_EQ(s.steps()[1]["stage"], "C");
}

TEST(Unroll, MaxExtentRaisesTheLimit) {
  Schedule s = build(vector_add_context(100),
                     json::parse(R"([{"op": "unroll", "stage": "C", "loop": "i", "max_extent": 128}])"));
  EXPECT_EQ(loop(s, "C", "i").kind, LoopKind::Unrolled);
}

TEST(UnrollErrors, EachError) {
  expect_step_error(vector_add_context(100), json::parse(R"([{"op": "unroll", "stage": "C", "loop": "i"}])"), 0,
                    "unroll", "unroll-too-large");
  expect_step_error(vector_add_context(64), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "vectorize", "stage": "C", "loop": "ii"},
    {"op": "unroll", "stage": "C", "loop": "ii"}])"),
                    2, "unroll", "unroll-vectorized");
  expect_step_error(vector_add_context(64), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.x"},
    {"op": "unroll", "stage": "C", "loop": "i"}])"),
                    1, "unroll", "loop-already-bound");
  expect_step_error(vector_add_context(64),
                    json::parse(R"([{"op": "unroll", "stage": "C", "loop": "i", "max_extent": "8"}])"), 0, "unroll",
                    "mistyped-argument");
}

TEST(Vectorize, MarksTheInnermostLoopVectorized) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "vectorize", "loop": "ii"}])"));
  EXPECT_EQ(loop(s, "C", "ii").kind, LoopKind::Vectorized);
  EXPECT_EQ(s.steps()[1]["stage"], "C");
}

TEST(Vectorize, HalfPrecisionTakesEightLanes) {
  Schedule s = build(half_scale_context(1024), json::parse(R"([
    {"op": "split", "stage": "H", "loop": "i", "factor": 8},
    {"op": "vectorize", "stage": "H", "loop": "ii"}])"));
  EXPECT_EQ(loop(s, "H", "ii").kind, LoopKind::Vectorized);
}

TEST(VectorizeErrors, NotInnermost) {
  expect_step_error(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "vectorize", "stage": "C", "loop": "io"}])"),
                    1, "vectorize", "vectorize-not-innermost");
}

TEST(VectorizeErrors, ExtentNotAPowerOfTwo) {
  expect_step_error(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 3},
    {"op": "vectorize", "stage": "C", "loop": "ii"}])"),
                    1, "vectorize", "vectorize-bad-extent");
}

TEST(VectorizeErrors, ExtentAboveSixteenBytes) {
  expect_step_error(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 8},
    {"op": "vectorize", "stage": "C", "loop": "ii"}])"),
                    1, "vectorize", "vectorize-bad-extent");
  expect_step_error(half_scale_context(1024), json::parse(R"([
    {"op": "split", "stage": "H", "loop": "i", "factor": 16},
    {"op": "vectorize", "stage": "H", "loop": "ii"}])"),
                    1, "vectorize", "vectorize-bad-extent");
  // A single element is no vector.
  expect_step_error(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 1},
    {"op": "vectorize", "stage": "C", "loop": "ii"}])"),
                    1, "vectorize", "vectorize-bad-extent");
}

// A reduction loop may be vectorized: it stays a reduction loop, now of vector kind.
TEST(Vectorize, AReductionLoopBecomesAVectorLoop) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 4},
    {"op": "vectorize", "stage": "S", "loop": "ki"}])"));
  EXPECT_EQ(loop(s, "S", "ki").kind, LoopKind::Vectorized);
  EXPECT_TRUE(loop(s, "S", "ki").reduction);
}

TEST(VectorizeErrors, BoundLoop) {
  expect_step_error(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.x"},
    {"op": "vectorize", "stage": "C", "loop": "ii"}])"),
                    2, "vectorize", "loop-already-bound");
}

}  // namespace
}  // namespace cusched::testing
