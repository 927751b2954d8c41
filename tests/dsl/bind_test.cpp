// bind: GPU axes of loops, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Bind, SetsTheAxisOfEachLoop) {
  Schedule s = build(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 256},
    {"op": "bind", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "loop": "ii", "axis": "threadIdx.x"}])"));
  EXPECT_EQ(loop(s, "C", "io").axis, GpuAxis::BlockX);
  EXPECT_EQ(loop(s, "C", "ii").axis, GpuAxis::ThreadX);
  // bind records the stage it resolved.
  EXPECT_EQ(s.steps()[1]["stage"], "C");
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"io", "ii"}));
}

TEST(Bind, ChainableApiMatchesJson) {
  Schedule s(vector_add_context(1024));
  auto [o, i] = s.split("C", "i", 128);
  s.bind(o, GpuAxis::BlockX).bind("C", i, GpuAxis::ThreadX);
  Schedule j = build(vector_add_context(1024), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 128},
    {"op": "bind", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.x"}])"));
  EXPECT_EQ(s.to_json(), j.to_json());
  EXPECT_EQ(state_digest(s.state()), state_digest(j.state()));
}

TEST(Bind, ThreeDimensionalGrid) {
  Schedule s = build(problem_context("layernorm"), json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "c", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "h", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "w", "axis": "threadIdx.x"}])"));
  EXPECT_EQ(loop(s, "Y", "b").axis, GpuAxis::BlockZ);
  EXPECT_EQ(loop(s, "Y", "c").axis, GpuAxis::BlockY);
  EXPECT_EQ(loop(s, "Y", "h").axis, GpuAxis::BlockX);
  EXPECT_EQ(loop(s, "Y", "w").axis, GpuAxis::ThreadX);
  // Other stages are untouched.
  EXPECT_EQ(loop(s, "Moments", "b").axis, GpuAxis::None);
}

TEST(BindErrors, ReductionLoopOnBlockAxis) {
  expect_step_error(problem_context("matmul"),
                    json::parse(R"([{"op": "bind", "stage": "C", "loop": "k", "axis": "blockIdx.x"}])"), 0, "bind",
                    "reduction-loop-on-block-axis");
}

TEST(BindErrors, ReductionLoopOnThreadAxis) {
  expect_step_error(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "bind", "stage": "C", "loop": "ki", "axis": "threadIdx.y"}])"),
                    1, "bind", "reduction-loop-on-thread-axis");
}

TEST(BindErrors, LoopBoundTwice) {
  expect_step_error(vector_add_context(64), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.x"},
    {"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.y"}])"),
                    1, "bind", "loop-already-bound");
}

TEST(BindErrors, AxisBoundTwice) {
  expect_step_error(problem_context("matmul"), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "j", "axis": "blockIdx.x"}])"),
                    1, "bind", "axis-bound-twice");
}

TEST(BindErrors, MarkedLoop) {
  expect_step_error(vector_add_context(64), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 4},
    {"op": "vectorize", "stage": "C", "loop": "ii"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.x"}])"),
                    2, "bind", "bind-marked-loop");
}

TEST(BindErrors, TooManyThreads) {
  expect_step_error(vector_add_context(4096),
                    json::parse(R"([{"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.x"}])"), 0, "bind",
                    "too-many-threads");
  // The thread axes of a stage together make one block of at most 1024 threads.
  expect_step_error(problem_context("matmul"), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "j", "axis": "threadIdx.x"}])"),
                    1, "bind", "too-many-threads");
}

TEST(BindErrors, AxisOutsideTheChoices) {
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "bind", "stage": "C", "loop": "i", "axis": "warp"}])"),
                    0, "bind", "bad-choice");
  expect_step_error(vector_add_context(), json::parse(R"([{"op": "bind", "stage": "C", "loop": "i", "axis": "none"}])"),
                    0, "bind", "bad-choice");
}

}  // namespace
}  // namespace cusched::testing
