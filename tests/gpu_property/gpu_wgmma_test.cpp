// On the GPU: warpgroup tensor-core tiles (tensor_core m64nNk8) verify at the small size,
// where every tile loop of the matmul problems has a tail (zero-filled staged rows,
// unwritten accumulators), with one k-step in flight (pipeline 4 deep), with each
// k-step waited for (pipeline 2 deep) and without a pipeline, in tf32 and in 3xtf32 at
// the strict tolerance; the matmul best rastered (block_raster) at the bench size; and
// the gemm whose operands both run along k.
#include <iostream>

#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "runtime/cuda_driver.h"
#include "tests/gpu_property/gpu_candidate.h"

namespace cusched {
namespace {

search::CandidateOutcome run_small(const std::string& problem, const nlohmann::json& steps, runtime::Worker& worker) {
  return testing::run_on_gpu(problem, steps, "small", worker, 11);
}

TEST(GpuWgmma, MatmulTilesWithTailsVerify) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* problem : {"matmul", "matmul_rect"})
    for (int depth : {4, 2, 0}) {
      auto out = run_small(problem, wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 256, 2, depth), worker);
      EXPECT_EQ(out.verdict_text(), "ok") << problem << ", pipeline depth " << depth << ": " << out.reason;
    }
  auto out = run_small("bmm", wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "b"), worker);
  EXPECT_EQ(out.verdict_text(), "ok") << "bmm: " << out.reason;
}

// 3xtf32 tiles verify on the GPU at the problems' strict tolerance (1e-4).
TEST(GpuWgmma, ThreeTf32TilesVerifyAtTheStrictTolerance) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* problem : {"matmul", "matmul_rect"})
    for (int depth : {4, 3, 2, 0}) {
      auto out = testing::run_on_gpu(
          problem, wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 128, 2, depth, "3xtf32"), "small", worker, 11,
          /*strict=*/true);
      EXPECT_EQ(out.verdict_text(), "ok") << problem << ", pipeline depth " << depth << ": " << out.reason;
    }
}

// The matmul best with its tiles launched in groups of 8 along blockIdx.x (block_raster)
// verifies at the bench size; both medians are printed.
TEST(GpuWgmma, RasteredMatmulBestVerifiesAtTheBenchSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  nlohmann::json steps = find_problem("matmul").best_schedule;
  auto plain = testing::run_on_gpu("matmul", steps, "bench", worker);
  steps.push_back({{"op", "block_raster"}, {"stage", "C"}, {"group", 8}});
  auto rastered = testing::run_on_gpu("matmul", steps, "bench", worker);
  EXPECT_EQ(rastered.verdict_text(), "ok") << rastered.reason;
  if (plain.gpu && rastered.gpu)
    std::cout << "| matmul best | " << plain.gpu->median_ms << " ms | rastered by 8 | " << rastered.gpu->median_ms
              << " ms |\n";
}

TEST(GpuWgmma, GemmWithBothOperandsAlongKVerifies) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* problem : {"gemm_add_relu", "gemm_gelu_softmax"}) {
    auto out = run_small(problem, find_problem(problem).best_schedule, worker);
    EXPECT_EQ(out.verdict_text(), "ok") << problem << ": " << out.reason;
  }
}

}  // namespace
}  // namespace cusched
