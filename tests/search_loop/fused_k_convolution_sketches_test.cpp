// Convolutions over 3 input channels (KernelBench's 3-D convolutions of RGB volumes, level
// 1 #54 and level 2 #27): the channel sum is too short for tensor cores' k steps of 8, so
// the implicit GEMM sketches fuse the taps and the channel sum into one reduction loop
// (taps outside, channels inside) that they walk in chunks of 8 on tensor cores. Such
// sketches (but for folds the chain does not allow) are legal at KernelBench's shapes,
// use tensor cores, estimate below the sketches without tensor cores, verify in the
// interpreter and compile with NVRTC for sm_90a; a channel sum that is a multiple of 8
// keeps its own chunks and gets none.
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "runtime/nvrtc_compiler.h"
#include "search/cost_model.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

constexpr const char* kFusedK = "the taps and the channel sum fused into one reduction";

double estimated_ms(const Problem& p, const Sketch& s) {
  return estimate_cost(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name)).ms;
}

TEST(FusedKConvolutionSketches, ThreeInputChannelsGetTensorCoresOverTapsAndChannels) {
  // (file, the fused reduction's extent: 3 channels times the taps, 3^3 and 4^3)
  for (const auto& [file, extent] :
       std::vector<std::pair<std::string, int>>{{"level1/54_conv_standard_3D__square_input__square_kernel.json", 81},
                                                {"level2/27_Conv3d_HardSwish_GroupNorm_Mean.json", 192}}) {
    SCOPED_TRACE(file);
    const Problem p = kernelbench(file);
    int fused = 0, verified = 0;
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
      EXPECT_TRUE(contains(s.idea, "one reduction of " + std::to_string(extent) + " in chunks of 8")) << s.idea;
      best_fused = std::min(best_fused, ms);
      if (verified++ < 2) {
        expect_verifies_at_small_size(p, s);
        // Its CUDA at the bench size compiles for sm_90a.
        runtime::CompileOptions o;
        o.arch = "sm_90a";
        const runtime::CompiledModule m =
            runtime::compile_bundle(make_bundle(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name)), o);
        EXPECT_FALSE(m.ptx.empty()) << m.log;
      }
    }
    EXPECT_GE(fused, 4);
    EXPECT_LT(best_fused, best_other);
  }
}

TEST(FusedKConvolutionSketches, AChannelSumOfWholeChunksKeepsItsOwnChunks) {
  const Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) EXPECT_FALSE(contains(s.idea, kFusedK)) << s.idea;
}

}  // namespace
}  // namespace cusched::search
