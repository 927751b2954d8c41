// On the GPU: reductions combined across the blocks of a thread-block cluster verify
// at the small size (softmax over clusters of 2, 4 and 8 blocks; an argmax with ties
// across blocks) and at the benchmark size (softmax rows over clusters of 8 blocks of
// 1024 threads, the launch a real run makes; softmax's best schedule, whose slices keep
// 2 float4 per thread in registers).
#include <iostream>

#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "runtime/cuda_driver.h"
#include "tests/gpu_property/gpu_candidate.h"
#include "tests/property/cluster_test_schedules.h"

namespace cusched {
namespace {

using testing::run_on_gpu;

TEST(GpuClusterReduction, SoftmaxOverClustersVerifiesAtTheSmallSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (int64_t cluster : {2, 4, 8}) {
    auto out = run_on_gpu("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", cluster, 64), "small",
                          worker);
    EXPECT_EQ(out.verdict_text(), "ok") << "cluster " << cluster << ": " << out.reason;
  }
}

TEST(GpuClusterReduction, SlicesSharedWithTheReductionsVerifyUpToSixteenBlocks) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  // 16 blocks is a non-portable cluster size: the runtime allows it for the kernel.
  for (int64_t cluster : {2, 8, 16}) {
    auto out = run_on_gpu("softmax", cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", cluster, 64),
                          "small", worker);
    EXPECT_EQ(out.verdict_text(), "ok") << "cluster " << cluster << ": " << out.reason;
  }
}

TEST(GpuClusterReduction, ArgmaxTiesAcrossBlocksVerify) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  auto out = run_on_gpu("argmax_dim1", testing::argmax_over_a_cluster_steps(), "small", worker);
  EXPECT_EQ(out.verdict_text(), "ok") << out.reason;
}

TEST(GpuClusterReduction, SoftmaxOverClustersVerifiesAtTheBenchSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  auto out =
      run_on_gpu("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 8, 1024), "bench", worker);
  EXPECT_EQ(out.verdict_text(), "ok") << out.reason;
  std::cout << "softmax (4096, 65536), clusters of 8 blocks: " << out.reason << "\n";
}

TEST(GpuClusterReduction, SoftmaxBestWithARegisterTailVerifiesAtTheBenchSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  // At the small size the slices do not divide over the threads and stay shared; at the
  // bench size the last 2 of each thread's 8 float4 are in registers.
  auto out = run_on_gpu("softmax", find_problem("softmax").best_schedule, "bench", worker);
  EXPECT_EQ(out.verdict_text(), "ok") << out.reason;
  std::cout << "softmax (4096, 65536), best schedule: " << out.reason << "\n";
}

}  // namespace
}  // namespace cusched
