// The grid of a pointwise stage that the class sketches do not tile themselves
// (pointwise_grid): float4 where its rows allow, else 4 points a thread a block's width
// apart, so that a warp's accesses stay neighbouring (the interleave of a transposed
// convolution's phases, rows of odd length).
#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "search/sketch_steps.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

// The steps of `schedule` on `stage`.
std::vector<nlohmann::json> steps_on(const nlohmann::json& schedule, const std::string& stage) {
  std::vector<nlohmann::json> out;
  for (const auto& s : schedule)
    if (s.value("stage", "") == stage) out.push_back(s);
  return out;
}

bool has_op(const std::vector<nlohmann::json>& steps, const std::string& op) {
  for (const auto& s : steps)
    if (s.value("op", "") == op) return true;
  return false;
}

// Whether `steps` split a loop into strided lanes (strided_flat_grid_steps' chunk loop).
bool has_strided_lanes(const std::vector<nlohmann::json>& steps) {
  for (const auto& s : steps)
    if (s.value("loop", "") == cusched::FlatGridNames::chunk) return true;
  return false;
}

TEST(PointwiseGrid, RowsOfFloat4sAndContiguousReadsGetFloat4) {
  const Problem relu = kernelbench("level1/19_ReLU.json");
  const FuncDef* y = relu.pipeline.find_stage(relu.pipeline.outputs()[0]);
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(float4_rows(relu, *y));
  nlohmann::json steps = nlohmann::json::array();
  pointwise_grid(steps, relu, *y, 256);
  EXPECT_TRUE(has_op(steps_on(steps, y->name), "vectorize")) << steps.dump();
}

TEST(PointwiseGrid, ATransposedConvolutionsInterleaveGetsStridedLanesThatVerify) {
  // Level 2 #5: the output interleaves the phases (reads x / 2 of each) over rows of 513.
  const Problem p = kernelbench("level2/5_ConvTranspose2d_Subtract_Tanh.json");
  const FuncDef* out = p.pipeline.find_stage(p.pipeline.outputs()[0]);
  ASSERT_NE(out, nullptr);
  EXPECT_FALSE(float4_rows(p, *out));
  int strided = 0;
  for (const auto& s : legal_sketches(p)) {
    auto on_out = steps_on(s.schedule, out->name);
    if (has_op(on_out, "fuse_epilogue")) continue;
    EXPECT_FALSE(has_op(on_out, "vectorize")) << s.idea;
    EXPECT_TRUE(has_strided_lanes(on_out)) << s.idea << ": " << nlohmann::json(on_out).dump();
    if (strided++ == 0) expect_verifies_at_small_size(p, s);
  }
  EXPECT_GT(strided, 0);
}

TEST(PointwiseGrid, ANormalisationOverOddRowsGetsStridedLanesNotFloat4) {
  // Level 1 #39 (L2 norm over rows of 65535): its output's flat grids cannot be float4s.
  const Problem p = kernelbench("level1/39_L2Norm_.json");
  const FuncDef* y = p.pipeline.find_stage(p.pipeline.outputs()[0]);
  ASSERT_NE(y, nullptr);
  EXPECT_FALSE(float4_rows(p, *y));
  int strided = 0;
  for (const auto& s : class_sketches(p, classify_pipeline(p.pipeline))) {
    auto on_y = steps_on(s.schedule, y->name);
    // No flat grid of float4s (rows of their own may still take float4s with scalar tails).
    for (const auto& step : on_y)
      EXPECT_FALSE(step.value("op", "") == "vectorize" && step.value("loop", "") == cusched::FlatGridNames::lanes)
          << s.idea;
    if (!has_strided_lanes(on_y)) continue;
    EXPECT_NE(s.idea.find("apart"), std::string::npos) << s.idea;
    if (strided++ == 0) expect_verifies_at_small_size(p, s);
  }
  EXPECT_GT(strided, 0);
}

TEST(PointwiseGrid, StridedLanesCoverATailThatIsNotAWholeBlock) {
  // ReLU's small size is not a multiple of 4 x 256 points: the strided grid's guard.
  const Problem relu = kernelbench("level1/19_ReLU.json");
  const FuncDef* y = relu.pipeline.find_stage(relu.pipeline.outputs()[0]);
  nlohmann::json steps = cusched::strided_flat_grid_steps(y->name, y->vars, 64, 4);
  auto r = runtime::verify_with_interpreter(relu, Schedule::from_json(relu.context("small"), steps), "small", 2, 1);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
}

}  // namespace
}  // namespace cusched::search
