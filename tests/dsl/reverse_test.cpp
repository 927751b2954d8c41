// reverse: the reversed loop replaces the original in place with the same extent, the
// relation it records, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Reverse, ReplacesTheLoopInPlaceWithTheSameExtent) {
  Schedule s = build(vector_add_context(1000), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 128},
    {"op": "reverse", "stage": "C", "loop": "io"}])"));
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io_rev", "ii"}));
  EXPECT_EQ(loop(s, "C", "io_rev").extent, 8);
  const auto& rel = s.state().stage("C").relations;
  ASSERT_EQ(rel.size(), 2u);
  EXPECT_EQ(rel[1].kind, LoopRelation::Reverse);
  EXPECT_EQ(rel[1].a, "io");
  EXPECT_EQ(rel[1].b, "io_rev");
  expect_replays(s);
}

TEST(Reverse, TheReversedLoopCanBeBoundAndSplit) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([
    {"op": "reverse", "stage": "C", "loop": "i", "name": "back"},
    {"op": "split", "stage": "C", "loop": "back", "factor": 256},
    {"op": "bind", "stage": "C", "loop": "backo", "axis": "blockIdx.x"}])"));
  EXPECT_EQ(loop(s, "C", "backo").axis, GpuAxis::BlockX);
}

TEST(ReverseErrors, EachError) {
  expect_step_error(problem_context("matmul"), json::parse(R"([{"op": "reverse", "stage": "C", "loop": "k"}])"), 0,
                    "reverse", "reverse-reduction-loop");
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "unroll", "stage": "C", "loop": "ii"},
    {"op": "reverse", "stage": "C", "loop": "ii"}])"),
                    2, "reverse", "reverse-marked-loop");
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.x"},
    {"op": "reverse", "stage": "C", "loop": "i"}])"),
                    1, "reverse", "loop-already-bound");
  expect_step_error(vector_add_context(), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "reverse", "stage": "C", "loop": "io", "name": "ii"}])"),
                    1, "reverse", "loop-used-twice");
}

}  // namespace
}  // namespace cusched::testing
