// compute_at, compute_inline and compute_root: where stages are computed, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(ComputeAt, PlacesTheProducerInsideTheConsumerLoop) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "i"}])"));
  const auto& st = s.state().stage("S");
  EXPECT_EQ(st.location, ComputeLocation::At);
  EXPECT_EQ(st.at_stage, "Y");
  EXPECT_EQ(st.at_loop, "i");
  EXPECT_EQ(s.state().stage("M").location, ComputeLocation::Root);
}

TEST(ComputeAt, ComputeRootUndoesIt) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "j"},
    {"op": "compute_root", "stage": "S"}])"));
  const auto& st = s.state().stage("S");
  EXPECT_EQ(st.location, ComputeLocation::Root);
  EXPECT_EQ(st.at_stage, "");
  EXPECT_EQ(st.at_loop, "");
}

TEST(ComputeAtErrors, OutputStage) {
  expect_step_error(problem_context("softmax"),
                    json::parse(R"([{"op": "compute_at", "stage": "Y", "consumer": "S", "loop": "i"}])"), 0,
                    "compute_at", "compute-at-output");
}

TEST(ComputeAtErrors, IllegalSites) {
  auto ctx = problem_context("softmax");
  // M does not read S.
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "S", "consumer": "M", "loop": "i"}])"), 0,
                    "compute_at", "illegal-compute-at");
  // An inlined consumer has no loops.
  expect_step_error(pointwise_chain_context(), json::parse(R"([
    {"op": "compute_inline", "stage": "T"},
    {"op": "compute_at", "stage": "P", "consumer": "T", "loop": "i"}])"),
                    1, "compute_at", "illegal-compute-at");
}

TEST(ComputeAtErrors, UnknownNames) {
  auto ctx = problem_context("softmax");
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "k"}])"), 0,
                    "compute_at", "unknown-loop");
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "S", "consumer": "Z", "loop": "i"}])"), 0,
                    "compute_at", "unknown-stage");
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "X", "consumer": "Y", "loop": "i"}])"), 0,
                    "compute_at", "unknown-stage");
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "S", "loop": "i"}])"), 0, "compute_at",
                    "missing-argument");
}

TEST(ComputeAtErrors, HostLoopCannotBeRemovedAfterwards) {
  expect_step_error(problem_context("softmax"), json::parse(R"([
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "i"},
    {"op": "split", "stage": "Y", "loop": "i", "factor": 2}])"),
                    1, "split", "loop-in-use");
  expect_step_error(problem_context("softmax"), json::parse(R"([
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "j"},
    {"op": "fuse", "stage": "Y", "outer": "i", "inner": "j"}])"),
                    1, "fuse", "loop-in-use");
  // Splitting first and computing at the new loop is the legal order.
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "i", "factor": 2},
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "io"},
    {"op": "split", "stage": "Y", "loop": "j", "factor": 4}])"));
  EXPECT_EQ(s.state().stage("S").at_loop, "io");
}

TEST(ComputeInline, MarksAPointwiseStageInlined) {
  Schedule s = build(pointwise_chain_context(), json::parse(R"([
    {"op": "compute_inline", "stage": "P"},
    {"op": "compute_inline", "stage": "T"}])"));
  EXPECT_EQ(s.state().stage("P").location, ComputeLocation::Inline);
  EXPECT_EQ(s.state().stage("T").location, ComputeLocation::Inline);
  EXPECT_EQ(s.state().stage("Y").location, ComputeLocation::Root);
}

TEST(ComputeInlineErrors, EachError) {
  expect_step_error(problem_context("softmax"), json::parse(R"([{"op": "compute_inline", "stage": "S"}])"), 0,
                    "compute_inline", "inline-reduction");
  expect_step_error(pointwise_chain_context(), json::parse(R"([{"op": "compute_inline", "stage": "Y"}])"), 0,
                    "compute_inline", "inline-output");
  expect_step_error(pointwise_chain_context(), json::parse(R"([
    {"op": "compute_at", "stage": "P", "consumer": "T", "loop": "i"},
    {"op": "compute_inline", "stage": "T"}])"),
                    1, "compute_inline", "inline-hosts-producer");
  expect_step_error(pointwise_chain_context(), json::parse(R"([{"op": "compute_inline", "stage": "A"}])"), 0,
                    "compute_inline", "unknown-stage");
}

TEST(ComputeRootErrors, UnknownStage) {
  expect_step_error(pointwise_chain_context(), json::parse(R"([{"op": "compute_root", "stage": "Q"}])"), 0,
                    "compute_root", "unknown-stage");
}

}  // namespace
}  // namespace cusched::testing
