// On the GPU: the built-in proposer's sketches for shapes that need more than one tile per
// point verify at a reduced shape of their KernelBench problem (the sketch chosen at the
// bench size, applied at the reduced one): split-K of a GEMM over a long reduction (level 1
// #6; the reduced k of 9000 ends in a short part that reads zero past the end), the
// implicit GEMM with warps of 16 channels (level 1 #61, 48 channels), tensor-core tiles of
// attention's two products over its batch and heads fused (level 1 #97), register tiles
// over the last two output loops fused (level 1 #59, rows of 10), and BatchNorm's
// statistics over clusters of blocks (level 1 #33).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "search/class_sketches.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

struct SketchCase {
  std::string file;  // under problems/kernelbench/
  search::ProblemClass problem_class;
  std::string idea;  // a part of the sketch's idea
  SizeBindings sizes;
};

TEST(GpuSketches, SketchesForShapesThatNeedSeveralTilesVerifyAtAReducedShape) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  const std::vector<SketchCase> cases = {
      {"level1/6_Matmul_with_large_K_dimension_.json",
       search::ProblemClass::matmul,
       "split-K",
       {{"M", 200}, {"N", 136}, {"K", 9000}}},
      {"level1/61_conv_transposed_3D__square_input__square_kernel.json",
       search::ProblemClass::convolution,
       "implicit GEMM on tensor cores (mma.sync tf32): 16 channels",
       {{"N", 2}, {"CI", 16}, {"CO", 48}, {"D", 6}, {"H", 7}, {"W", 9}}},
      {"level1/97_ScaledDotProductAttention.json",
       search::ProblemClass::matmul,
       "Hopper warpgroup MMA",
       {{"BATCH", 2}, {"HEADS", 3}, {"S", 256}, {"E", 64}}},
      {"level1/59_conv_standard_3D__asymmetric_input__square_kernel.json",
       search::ProblemClass::convolution,
       "over oh and ow fused",
       {{"N", 2}, {"CI", 3}, {"CO", 16}, {"D", 9}, {"H", 11}, {"W", 10}}},
      {"level1/33_BatchNorm.json",
       search::ProblemClass::normalisation,
       "statistics on grids of their own",
       {{"N", 4}, {"C", 5}, {"H", 67}, {"W", 129}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    Problem p = load_problem_file(source_tree() + "/problems/kernelbench/" + c.file);
    p.sizes["gpu"] = c.sizes;
    int tried = 0;
    for (const auto& s : search::class_sketches(p, c.problem_class)) {
      if (s.idea.find(c.idea) == std::string::npos || tried == 2) continue;
      ++tried;
      auto out = search::evaluate_candidate(p, s.schedule, gpu_eval_config("gpu", 5), &worker);
      EXPECT_EQ(out.verdict_text(), "ok") << s.idea << ": " << out.reason;
    }
    EXPECT_GT(tried, 0) << "no sketch with " << c.idea;
  }
}

// The warpgroup implicit GEMM with its data copied channels last (level 2 #1 at a reduced
// shape whose rows of 130 end in a tail of two columns past a block's 128): the transposing
// copy, the 16-byte data copies, the A fragments by ldmatrix and a row's taps sharing each
// step's data all verify on the tensor cores.
TEST(GpuSketches, ChannelsLastImplicitGemmsVerifyOnTheTensorCores) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  Problem p = load_problem_file(source_tree() + "/problems/kernelbench/level2/1_Conv2D_ReLU_BiasAdd.json");
  p.sizes["gpu"] = {{"N", 2}, {"CI", 64}, {"CO", 128}, {"H", 9}, {"W", 132}};
  int tried = 0, shared_taps = 0;
  for (const auto& s : search::class_sketches(p, search::ProblemClass::convolution)) {
    if (s.idea.find("channels last") == std::string::npos) continue;
    ++tried;
    shared_taps += s.idea.find("once for every") != std::string::npos;
    auto out = search::evaluate_candidate(p, s.schedule, gpu_eval_config("gpu", 5), &worker);
    EXPECT_EQ(out.verdict_text(), "ok") << s.idea << ": " << out.reason;
  }
  EXPECT_GE(tried, 5);
  EXPECT_GE(shared_taps, 2);
}

}  // namespace
}  // namespace cusched
