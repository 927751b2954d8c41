// Convolutions over 3 input channels (KernelBench's 3-D convolutions of RGB volumes, level
// 1 #54 and level 2 #27): the channel sum is too short for tensor cores' k steps of 8, so
// the implicit GEMM sketches fuse the taps and the channel sum into one reduction loop
// (taps outside, channels inside) that they walk in chunks of 8 on tensor cores. Such
// sketches (but for folds the chain does not allow) are legal at KernelBench's shapes,
// use tensor cores, estimate below the sketches without tensor cores, verify in the
// interpreter and compile with NVRTC for sm_90a; a channel sum that is a multiple of 8
// keeps its own chunks and gets none.
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "search/cost_model.h"
#include "tests/runtime/bench_kernel_compile.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

constexpr const char* kFusedK = "and the taps walked as one reduction in chunks of 8";

double estimated_ms(const Problem& p, const Sketch& s) {
  return estimate_cost(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name)).ms;
}

TEST(FusedKConvolutionSketches, ThreeInputChannelsGetTensorCoresOverTapsAndChannels) {
  for (const std::string file : {"level1/54_conv_standard_3D__square_input__square_kernel.json",
                                 "level2/27_Conv3d_HardSwish_GroupNorm_Mean.json"}) {
    SCOPED_TRACE(file);
    const Problem p = kernelbench(file);
    int fused = 0, verified = 0, blocks = 0;
    double best_fused = std::numeric_limits<double>::infinity(), best_other = best_fused;
    for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
      // A chain's sketches come with folds that validation drops (Out reads two stages).
      if (!validate_schedule(p.context("bench"), s.schedule).ok) {
        EXPECT_FALSE(contains(s.idea, kFusedK) && !contains(s.idea, "fuse_epilogue")) << s.idea;
        continue;
      }
      const bool tensor = contains(s.schedule.dump(), "\"tensor_core\"");
      const double ms = estimated_ms(p, s);
      if (!contains(s.idea, kFusedK)) {
        if (!tensor) best_other = std::min(best_other, ms);
        continue;
      }
      ++fused;
      EXPECT_TRUE(tensor) << s.idea;
      EXPECT_TRUE(contains(s.idea, "the channel sum of 3 and the taps")) << s.idea;
      // The fused loop's steps: the taps and the channel sum reordered and fused.
      EXPECT_TRUE(contains(s.schedule.dump(), "\"fused\":\"kk\"")) << s.idea;
      best_fused = std::min(best_fused, ms);
      // The block's data and weights staged once before the reduction: no pipeline.
      const bool per_block = contains(s.idea, "the block's data and weights staged once");
      EXPECT_EQ(contains(s.schedule.dump(), "\"pipeline\""), !per_block) << s.idea;
      blocks += per_block;
      if (verified++ < 2 || (per_block && blocks == 1)) {
        expect_verifies_at_small_size(p, s);
        // Its CUDA at the bench size compiles for sm_90a.
        const runtime::CompiledModule m = runtime::testing::sm90a_module(
            make_bundle(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name)));
        EXPECT_FALSE(m.ptx.empty()) << m.log;
      }
    }
    EXPECT_GE(fused, 6);
    EXPECT_GE(blocks, 2);
    EXPECT_LT(best_fused, best_other);
  }
}

// A 3-D transposed convolution of 3 channels (level 2 #60): its phases' taps move the data's
// index down (qw + 1 - tw), which the staged copy of the fused reduction's last chunk (past
// the end) would read below the data; of the eight phases only the one without taps takes
// the tile, and the chain verifies.
TEST(FusedKConvolutionSketches, OnlyAPhaseWithoutDescendingTapsTakesTheTile) {
  const Problem p = kernelbench("level2/60_ConvTranspose3d_Swish_GroupNorm_HardSwish.json");
  int found = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!contains(s.idea, kFusedK) || !validate_schedule(p.context("bench"), s.schedule).ok) continue;
    std::set<std::string> tensor_core_stages;
    for (const auto& step : s.schedule)
      if (step.value("op", "") == "tensor_core") tensor_core_stages.insert(step.value("stage", ""));
    EXPECT_EQ(tensor_core_stages, (std::set<std::string>{"ConvT_p0_p0_p0"})) << s.idea;
    if (found++ == 0) expect_verifies_at_small_size(p, s);
  }
  EXPECT_GE(found, 2);
}

// The same tile on every phase of level 2 #60 (schedules/fused_k_descending_taps.json, a
// schedule the sketches no longer make): the last chunk of a phase's fused reduction runs
// past the taps' end, where `qw + 1 - tw` reads below the data; its staged copy checks the
// lower bound as well as the upper one, and the chain verifies.
TEST(FusedKConvolutionSketches, ACopyOfAChunkPastDescendingTapsChecksTheLowerBound) {
  const Problem p = kernelbench("level2/60_ConvTranspose3d_Swish_GroupNorm_HardSwish.json");
  nlohmann::json steps;
  std::ifstream(std::string(CUSCHED_SOURCE_DIR) + "/tests/search_loop/schedules/fused_k_descending_taps.json") >> steps;
  ASSERT_TRUE(steps.is_array());
  const auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 2, 1);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(FusedKConvolutionSketches, AChannelSumOfWholeChunksKeepsItsOwnChunks) {
  const Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) EXPECT_FALSE(contains(s.idea, kFusedK)) << s.idea;
}

}  // namespace
}  // namespace cusched::search
