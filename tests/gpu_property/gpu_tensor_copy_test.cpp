// On the GPU: pipelines on the tensor memory accelerator (pipeline engine "tensor", the
// runtime encoding a tensor map per staged source). The matmul on warpgroup tensor cores
// with its A tiles in the 128-byte swizzle verifies at the small size, where every tile
// hangs over the operands (the accelerator's zeros), at three pipeline depths; a padded
// convolution whose boxes start in the padding verifies; and the matmul at the bench size
// verifies and is timed next to the matmul best, the same tile on cp.async (both medians
// printed); the bf16 matmul's best (bf16 wgmma on tensor copies) verifies and is timed.
#include <iostream>

#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "tests/gpu_property/gpu_candidate.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/padded_conv_steps.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

// The matmul best's tile (256 x 128, two warpgroups, K staged 32 at a time) with its
// copies unpadded on the tensor engine.
nlohmann::json wgmma_tile(int depth) {
  return wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 256, 2, depth, "tf32", "tensor");
}

TEST(GpuTensorCopy, WgmmaMatmulTilesWithTailsVerify) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* name : {"matmul", "matmul_rect"}) {
    // The small size with every extent rounded up to a multiple of 4, so that rows are whole
    // 16-byte multiples (a tensor map's strides must be); tiles still hang over every edge.
    Problem p = find_problem(name);
    const std::string size = p.add_16_byte_rows_size("small");
    for (int depth : {4, 3, 2}) {
      auto out = search::evaluate_candidate(p, wgmma_tile(depth), gpu_eval_config(size, 13), &worker);
      EXPECT_EQ(out.verdict_text(), "ok") << name << ", pipeline depth " << depth << ": " << out.reason;
    }
  }
}

TEST(GpuTensorCopy, PaddedConvolutionBoxesVerify) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  Problem p = load_problem_file(test::padded_conv_file());
  auto out = search::evaluate_candidate(p, test::padded_conv_tensor_steps(), gpu_eval_config("small", 5), &worker);
  EXPECT_EQ(out.verdict_text(), "ok") << out.reason;
}

TEST(GpuTensorCopy, MatmulAtTheBenchSizeVerifiesAndIsTimed) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  auto tensor = testing::run_on_gpu("matmul", wgmma_tile(4), "bench", worker);
  EXPECT_EQ(tensor.verdict_text(), "ok") << tensor.reason;
  auto best = testing::run_on_gpu("matmul", find_problem("matmul").best_schedule, "bench", worker);
  if (tensor.gpu && best.gpu)
    std::cout << "| matmul best tile, 4 deep | tensor engine " << tensor.gpu->median_ms << " ms | best (cp.async) "
              << best.gpu->median_ms << " ms |\n";
}

// The bf16 matmul best (bf16 wgmma on tensor copies) verifies at the small size and at the
// bench size, where its median and rate are printed.
TEST(GpuTensorCopy, Bf16MatmulBestVerifiesAndIsTimed) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  const nlohmann::json& best = find_problem("matmul_bf16").best_schedule;
  auto small = testing::run_on_gpu("matmul_bf16", best, "small", worker, 17);
  EXPECT_EQ(small.verdict_text(), "ok") << small.reason;
  auto bench = testing::run_on_gpu("matmul_bf16", best, "bench", worker);
  EXPECT_EQ(bench.verdict_text(), "ok") << bench.reason;
  if (bench.gpu)
    std::cout << "| matmul_bf16 best | " << bench.gpu->median_ms << " ms | "
              << 2.0 * 4096.0 * 4096.0 * 4096.0 / (bench.gpu->median_ms * 1e-3) / 1e12 << " TFLOP/s |\n";
}

}  // namespace
}  // namespace cusched
