// Padded loads (dsl/padded_load.h) lowered and run in the CPU interpreter against the
// float64 reference: a convolution with zero padding read from memory, through a
// shared copy (synchronous, cp.async-pipelined, per-thread registers) and on mma.sync
// tensor cores with both operands staged; a max pooling padded with -inf; an inlined
// stage read through padded(...), and a stage at root read through it on tensor cores.
// And the schedules that legality refuses for them.
#include <gtest/gtest.h>

#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

// Y = conv2d(X, weight, padding=1) over (N, CI, H, W) -> (N, CO, H, W); with `relu_input`
// the convolution reads R = max(X, 0), a stage of its own.
Problem padded_conv(bool relu_input = false) {
  const std::string source = relu_input ? "R" : "X";
  nlohmann::json j = {{"name", "padded_conv"},
                      {"title", "Conv2d 3x3 with padding 1"},
                      {"sizes", {{"small", {{"N", 2}, {"CI", 16}, {"CO", 32}, {"H", 5}, {"W", 16}}}}},
                      {"inputs",
                       {{{"name", "X"},
                         {"dtype", "f32"},
                         {"shape", {"N", "CI", "H", "W"}},
                         {"distribution", {{"kind", "uniform"}, {"a", -1}, {"b", 1}}}},
                        {{"name", "weight"},
                         {"dtype", "f32"},
                         {"shape", {"CO", "CI", 3, 3}},
                         {"distribution", {{"kind", "uniform"}, {"a", -0.1}, {"b", 0.1}}}}}},
                      {"stages", nlohmann::json::array()},
                      {"outputs", {"Y"}},
                      {"tolerance", {{"atol", 0.01}, {"rtol", 0.01}, {"strict_atol", 0.0001}, {"strict_rtol", 0.0001}}},
                      {"flops", "2.0 * N * CO * H * W * CI * 9"}};
  if (relu_input) j["stages"].push_back("R(n in N, c in CI, h in H, w in W) = max(X(n, c, h, w), 0.0f)");
  j["stages"].push_back("Y(n in N, o in CO, oh in H, ow in W) = sum(rc in CI, kh in 3, kw in 3: padded(" + source +
                        "(n, rc, oh + kh - 1, ow + kw - 1)) * weight(o, rc, kh, kw))");
  return problem_from_json(j, "padded_conv.json");
}

Problem padded_max_pool() {
  nlohmann::json j = {{"name", "padded_max_pool"},
                      {"title", "MaxPool2d 3x3, stride 2, padding 1"},
                      {"sizes", {{"small", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 12}}}}},
                      {"inputs",
                       {{{"name", "X"},
                         {"dtype", "f32"},
                         {"shape", {"N", "C", "H", "W"}},
                         {"distribution", {{"kind", "normal"}, {"a", 0}, {"b", 1}}}}}},
                      {"stages",
                       {"Y(n in N, c in C, oh in (H - 1) / 2 + 1, ow in (W - 1) / 2 + 1) = maximum(kh in 3, kw in 3: "
                        "padded(X(n, c, oh * 2 + kh - 1, ow * 2 + kw - 1), -inf))"}},
                      {"outputs", {"Y"}},
                      {"flops", "9.0 * N * C * H * W / 4"}};
  return problem_from_json(j, "padded_max_pool.json");
}

// The stage Y of `padded_conv` as an implicit GEMM on mma.sync: per block one output row
// (16 columns) x 32 channels, 2 x 2 warps of 16 (o) x 8 (ow); the reduction over rc in
// two chunks of 8 with kh and kw serial, and at each (kh, kw) the shifted input rows and
// the tap's weights staged in shared memory (pipelined with cp.async at kw when `depth`).
nlohmann::json implicit_gemm(int depth) {
  nlohmann::json s = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "ow", "factor": 8, "outer": "oww", "inner": "own"},
    {"op": "split", "stage": "Y", "loop": "o", "factor": 16, "outer": "o_w", "inner": "om"},
    {"op": "split", "stage": "Y", "loop": "rc", "factor": 8, "outer": "rco", "inner": "rci"},
    {"op": "reorder", "stage": "Y", "loops": ["n", "oh", "rco", "kh", "kw", "o_w", "oww", "om", "own", "rci"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "o_w", "axis": "threadIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "oww", "axis": "threadIdx.y"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "kw", "pad": 0},
    {"op": "cache_read", "stage": "Y", "source": "weight", "scope": "shared", "at": "kw", "pad": 0},
    {"op": "tensor_core", "stage": "Y", "shape": "m16n8k8", "precision": "tf32"}
  ])");
  if (depth > 0) s.push_back({{"op", "pipeline"}, {"stage", "Y"}, {"loop", "kw"}, {"depth", depth}});
  return s;
}

void expect_verifies(const Problem& p, const nlohmann::json& steps) {
  SCOPED_TRACE(steps.dump());
  const auto r = testing::verify_small(p, steps, 5);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
}

TEST(PaddedLoad, ConvolutionReadFromMemoryVerifies) {
  const Problem p = padded_conv();
  expect_verifies(p, automatic_baseline(p.pipeline));
  expect_verifies(p, nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"}])"));
}

TEST(PaddedLoad, SharedCopyHoldsThePaddingAndVerifies) {
  const Problem p = padded_conv();
  // The block's copy of X at o covers the whole plane of one image plus its border of 1.
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "reorder", "stage": "Y", "loops": ["n", "o", "oh", "ow", "rc", "kh", "kw"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "o", "pad": 0}])");
  expect_verifies(p, steps);
  const std::string ir = testing::ir_of(p, steps);
  // CI x (H + 2) x (W + 2) = 16 x 7 x 18 elements: the region is the plane with its
  // border, and the elements of the border are written as zeros.
  EXPECT_NE(ir.find("< 2016"), std::string::npos) << ir;
  EXPECT_NE(ir.find("] = 0.0"), std::string::npos) << ir;
}

TEST(PaddedLoad, RegisterCopyAndCopyAtAReductionLoopVerify) {
  const Problem p = padded_conv();
  expect_verifies(p, nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "register", "at": "rc"}])"));
  expect_verifies(p, nlohmann::json::parse(R"([
    {"op": "reorder", "stage": "Y", "loops": ["n", "o", "rc", "oh", "ow", "kh", "kw"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "rc", "pad": 0, "registers": 2}])"));
}

TEST(PaddedLoad, PaddedConvolutionRunsOnTensorCores) {
  const Problem p = padded_conv();
  ASSERT_TRUE(p.pipeline.stages().back()->is_sum_of_load_products());
  for (int depth : {0, 2}) {
    const nlohmann::json steps = implicit_gemm(depth);
    expect_verifies(p, steps);
    const std::string ir = testing::ir_of(p, steps);
    EXPECT_NE(ir.find("mma"), std::string::npos) << ir;
    // Both operands come from shared memory: no read of X outside the copy.
    EXPECT_NE(ir.find("X_shared"), std::string::npos) << ir;
  }
}

TEST(PaddedLoad, MaxPoolingPaddedWithMinusInfinityVerifies) {
  const Problem p = padded_max_pool();
  expect_verifies(p, automatic_baseline(p.pipeline));
  expect_verifies(p, nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "c", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "c", "pad": 0}])"));
}

TEST(PaddedLoad, InlinedStageReadThroughPaddedVerifies) {
  const Problem p = padded_conv(/*relu_input=*/true);
  expect_verifies(p, automatic_baseline(p.pipeline));
  expect_verifies(p, nlohmann::json::parse(R"([
    {"op": "compute_inline", "stage": "R"},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"}])"));
  // R at root, copied with its padding.
  nlohmann::json gemm = implicit_gemm(2);
  gemm[8]["source"] = "R";
  expect_verifies(p, gemm);
}

TEST(PaddedLoad, LegalityRefusesPlacedProducersAndBulkCopies) {
  const Problem relu = padded_conv(/*relu_input=*/true);
  const auto placed = testing::lowering_failure(relu, nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "R", "consumer": "Y", "loop": "o"}])"));
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->code, "padded-read-of-placed-stage");
  EXPECT_EQ(placed->step, 2) << placed->message;

  nlohmann::json bulk = implicit_gemm(2);
  bulk.back()["engine"] = "bulk";
  const auto refused = testing::lowering_failure(padded_conv(), bulk);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code, "bulk-copy-padded") << refused->message;
}

// The output's rows and columns fused and split into blocks of 8 (blocks start inside a
// row): the copy of the block's window is bounded through the division and modulus of
// the fused loop, padding included, and verifies. A window index whose modulus divides a
// square of the output's column (a dividend with no range the lowering derives) has no
// bound: the lowering refuses the copy instead of assuming the whole row.
TEST(PaddedLoad, AWindowOverFusedRowsAndColumnsIsBoundedOrRefused) {
  const Problem p = padded_max_pool();
  const auto fused = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "oh", "inner": "ow", "fused": "colf"},
    {"op": "split", "stage": "Y", "loop": "colf", "factor": 8, "outer": "colb", "inner": "colt"},
    {"op": "fuse", "stage": "Y", "outer": "n", "inner": "c", "fused": "nc"},
    {"op": "fuse", "stage": "Y", "outer": "nc", "inner": "colb", "fused": "blk"},
    {"op": "bind", "stage": "Y", "loop": "blk", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "colt", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "blk", "pad": 0}])");
  expect_verifies(p, fused);
  nlohmann::json j = {{"name", "square_window"},
                      {"sizes", {{"small", {{"W", 12}}}}},
                      {"inputs", {{{"name", "X"}, {"dtype", "f32"}, {"shape", {"W"}}}}},
                      {"stages", {"Y(ow in W) = maximum(kw in 3: padded(X(ow * ow % W + kw - 1), -inf))"}},
                      {"outputs", {"Y"}}};
  const Problem square = problem_from_json(j, "square_window.json");
  const auto refused = testing::lowering_failure(square, nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "ow", "factor": 4, "outer": "wb", "inner": "wt"},
    {"op": "bind", "stage": "Y", "loop": "wb", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "wt", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "wb"}])"));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code, "padded-region-unbounded") << refused->message;
}

}  // namespace
}  // namespace cusched
