// pipeline, tensor_core, precision and launch_bounds: the state they set, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

const char* kStaged = R"(
  {"op": "split", "stage": "C", "loop": "k", "factor": 8},
  {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"})";

json staged(const std::string& rest) { return json::parse(std::string("[") + kStaged + "," + rest + "]"); }

ScheduleContext matmul_64() {
  ScheduleContext c = problem_context("matmul");
  c.sizes = {{"M", 64}, {"N", 64}, {"K", 64}};
  return c;
}

TEST(Pipeline, RecordsLoopDepthAndEngine) {
  Schedule s =
      build(problem_context("matmul"), staged(R"({"op": "pipeline", "stage": "C", "loop": "ko", "depth": 3})"));
  const auto& c = s.state().stage("C");
  EXPECT_EQ(c.pipeline_loop, "ko");
  EXPECT_EQ(c.pipeline_depth, 3);
  EXPECT_EQ(c.pipeline_engine, CopyEngine::CpAsync);
  EXPECT_EQ(s.steps()[2]["engine"], "cp.async");

  Schedule b = build(problem_context("matmul"), staged(R"({"op": "pipeline", "loop": "ko", "engine": "bulk"})"));
  EXPECT_EQ(b.state().stage("C").pipeline_engine, CopyEngine::Bulk);
  EXPECT_EQ(b.state().stage("C").pipeline_depth, 2);  // the declared default
  EXPECT_EQ(b.steps()[2]["stage"], "C");

  Schedule t = build(problem_context("matmul"), staged(R"({"op": "pipeline", "loop": "ko", "engine": "tensor"})"));
  EXPECT_EQ(t.state().stage("C").pipeline_engine, CopyEngine::Tensor);
  EXPECT_EQ(t.steps()[2]["engine"], "tensor");
}

TEST(PipelineErrors, EachError) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx, staged(R"({"op": "pipeline", "stage": "C", "loop": "ko", "depth": 1})"), 2, "pipeline",
                    "bad-pipeline-depth");
  expect_step_error(ctx, staged(R"({"op": "pipeline", "stage": "C", "loop": "ko", "depth": 9})"), 2, "pipeline",
                    "bad-pipeline-depth");
  // Deeper than the loop's trip count (K / 8 = 5) is legal: the extra buffers stay unused.
  EXPECT_EQ(build(ctx, staged(R"({"op": "pipeline", "stage": "C", "loop": "ko", "depth": 6})"))
                .state()
                .stage("C")
                .pipeline_depth,
            6);
  expect_step_error(ctx, staged(R"({"op": "unroll", "stage": "C", "loop": "ko"},
                                   {"op": "pipeline", "stage": "C", "loop": "ko"})"),
                    3, "pipeline", "pipeline-loop-not-serial");
  expect_step_error(ctx, json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "pipeline", "stage": "C", "loop": "ko"}])"),
                    1, "pipeline", "pipeline-no-staging");
  // A register copy is not an asynchronous shared-memory copy.
  expect_step_error(ctx, json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "register", "at": "ko"},
    {"op": "pipeline", "stage": "C", "loop": "ko"}])"),
                    2, "pipeline", "pipeline-no-staging");
  expect_step_error(ctx, staged(R"({"op": "pipeline", "stage": "C", "loop": "ko", "engine": "tma"})"), 2, "pipeline",
                    "bad-choice");
  // A pipelined loop stays: fusing it away afterwards is refused.
  expect_step_error(ctx, staged(R"({"op": "pipeline", "stage": "C", "loop": "ko"},
                                   {"op": "fuse", "stage": "C", "outer": "ko", "inner": "ki"})"),
                    3, "fuse", "loop-in-use");
}

TEST(TensorCore, Tf32OnTheInnermostTile) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 8},
    {"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}])"));
  EXPECT_EQ(s.state().stage("C").tensor_core_shape, "m16n8k8");
  EXPECT_EQ(s.state().stage("C").precision, Precision::tf32);
}

TEST(TensorCore, Bf16WithK16) {
  Schedule s = build(matmul_64(),
                     json::parse(R"([{"op": "tensor_core", "stage": "C", "shape": "m16n8k16", "precision": "bf16"}])"));
  EXPECT_EQ(s.state().stage("C").tensor_core_shape, "m16n8k16");
  EXPECT_EQ(s.state().stage("C").precision, Precision::bf16);
}

TEST(TensorCoreErrors, EachError) {
  expect_step_error(problem_context("softmax"),
                    json::parse(R"([{"op": "tensor_core", "stage": "S", "shape": "m16n8k8", "precision": "tf32"}])"), 0,
                    "tensor_core", "tensor-core-not-matmul");
  expect_step_error(matmul_64(),
                    json::parse(R"([{"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "bf16"}])"), 0,
                    "tensor_core", "tensor-core-shape-precision");
  expect_step_error(matmul_64(),
                    json::parse(R"([{"op": "tensor_core", "stage": "C", "shape": "m16n8k16", "precision": "tf32"}])"),
                    0, "tensor_core", "tensor-core-shape-precision");
  // One pure loop only.
  expect_step_error(matvec_context(),
                    json::parse(R"([{"op": "tensor_core", "stage": "y", "shape": "m16n8k8", "precision": "tf32"}])"), 0,
                    "tensor_core", "tensor-core-shape-does-not-tile");
  // K = 40 is not a multiple of 16.
  expect_step_error(problem_context("matmul"),
                    json::parse(R"([{"op": "tensor_core", "stage": "C", "shape": "m16n8k16", "precision": "f16"}])"), 0,
                    "tensor_core", "tensor-core-shape-does-not-tile");
  // The innermost pure loop has extent 4, not a multiple of 8.
  expect_step_error(problem_context("matmul"), json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 4},
    {"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}])"),
                    1, "tensor_core", "tensor-core-shape-does-not-tile");
  expect_step_error(problem_context("matmul", true),
                    json::parse(R"([{"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}])"), 0,
                    "tensor_core", "precision-exceeds-tolerance");
}

TEST(Precision, AdmittedByTheDefaultTolerance) {
  for (const char* p : {"f32", "tf32", "bf16", "f16"}) {
    Schedule s = build(problem_context("matmul"),
                       json::parse(std::string(R"([{"op": "precision", "stage": "C", "operands": ")") + p + "\"}]"));
    EXPECT_EQ(precision_name(s.state().stage("C").precision), p);
  }
  Schedule strict =
      build(problem_context("matmul", true), json::parse(R"([{"op": "precision", "stage": "C", "operands": "f32"}])"));
  EXPECT_EQ(strict.state().stage("C").precision, Precision::f32);
}

TEST(Precision, FastMathIsRecordedPerStageAndExactByDefault) {
  Schedule s = build(problem_context("softmax", true), json::parse(R"([
    {"op": "precision", "stage": "Y", "operands": "f32", "math": "fast"},
    {"op": "precision", "stage": "S", "operands": "f32"}])"));
  EXPECT_EQ(s.state().stage("Y").math, "fast");
  EXPECT_EQ(s.state().stage("S").math, "exact");
  EXPECT_EQ(s.state().stage("M").math, "exact");
  expect_step_error(problem_context("softmax"),
                    json::parse(R"([{"op": "precision", "stage": "Y", "operands": "f32", "math": "approximate"}])"), 0,
                    "precision", "bad-choice");
}

TEST(PrecisionErrors, StrictToleranceForbidsLowerPrecision) {
  for (const char* p : {"tf32", "bf16", "f16"})
    expect_step_error(problem_context("matmul", true),
                      json::parse(std::string(R"([{"op": "precision", "stage": "C", "operands": ")") + p + "\"}]"), 0,
                      "precision", "precision-exceeds-tolerance");
}

TEST(PrecisionErrors, LowerOperandPrecisionOnlyForContractions) {
  // softmax's S = sum(exp(X - M)): rounding X to tf32 before the subtraction loses it.
  expect_step_error(problem_context("softmax"),
                    json::parse(R"([{"op": "precision", "stage": "S", "operands": "tf32"}])"), 0, "precision",
                    "precision-needs-products");
  Schedule s = build(problem_context("softmax"),
                     json::parse(R"([{"op": "precision", "stage": "S", "operands": "f32", "math": "fast"}])"));
  EXPECT_EQ(s.state().stage("S").precision, Precision::f32);
}

TEST(PrecisionErrors, ToleranceBetweenTheRoundoffsOfTf32AndBf16) {
  ScheduleContext ctx = problem_context("matmul");
  ctx.atol = ctx.rtol = 5e-3;  // admits tf32 (2^-11 roundoff), not bf16 (2^-8)
  Schedule s = build(ctx, json::parse(R"([{"op": "precision", "stage": "C", "operands": "tf32"}])"));
  EXPECT_EQ(s.state().stage("C").precision, Precision::tf32);
  expect_step_error(ctx, json::parse(R"([{"op": "precision", "stage": "C", "operands": "bf16"}])"), 0, "precision",
                    "precision-exceeds-tolerance");
  expect_step_error(ctx, json::parse(R"([{"op": "precision", "stage": "C", "operands": "fp8"}])"), 0, "precision",
                    "bad-choice");
}

TEST(LaunchBounds, RecordsThreadsAndBlocks) {
  Schedule s = build(problem_context("matmul"),
                     json::parse(R"([{"op": "launch_bounds", "stage": "C", "max_threads": 256, "min_blocks": 2}])"));
  EXPECT_EQ(s.state().stage("C").launch_max_threads, 256);
  EXPECT_EQ(s.state().stage("C").launch_min_blocks, 2);
  Schedule d =
      build(problem_context("matmul"), json::parse(R"([{"op": "launch_bounds", "stage": "C", "max_threads": 128}])"));
  EXPECT_EQ(d.state().stage("C").launch_min_blocks, 1);
}

TEST(LaunchBoundsErrors, EachError) {
  auto ctx = problem_context("matmul");
  for (const char* bad : {R"({"max_threads": 16})", R"({"max_threads": 2048})",
                          R"({"max_threads": 256, "min_blocks": 0})", R"({"max_threads": 256, "min_blocks": 33})"}) {
    json step = json::parse(bad);
    step["op"] = "launch_bounds";
    step["stage"] = "C";
    expect_step_error(ctx, json::array({step}), 0, "launch_bounds", "bad-launch-bounds");
  }
  expect_step_error(ctx, json::parse(R"([{"op": "launch_bounds", "stage": "C", "max_threads": 256.5}])"), 0,
                    "launch_bounds", "mistyped-argument");
}

TEST(BlockRaster, RecordsTheGroupAndRefusesOneOutsideTwoToSixtyFour) {
  auto ctx = problem_context("matmul");
  const json tiles = json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 16, "outer": "io", "inner": "ii"},
    {"op": "split", "stage": "C", "loop": "j", "factor": 16, "outer": "jo", "inner": "ji"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ii", "ji", "k"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"}])");
  auto with_raster = [&](int group) {
    json steps = tiles;
    steps.push_back({{"op", "block_raster"}, {"stage", "C"}, {"group", group}});
    return steps;
  };
  EXPECT_EQ(build(ctx, with_raster(8)).state().stage("C").raster_group, 8);
  for (int bad : {0, 1, 65, -4}) expect_step_error(ctx, with_raster(bad), 5, "block_raster", "bad-raster-group");
}

}  // namespace
}  // namespace cusched::testing
