// On the GPU: the five KernelBench scans verify with their automatic baseline at the
// small size, and the cumsum and reverse cumsum of a (32768, 32768) tensor along dim 1
// verify at the bench size with their timings reported against the copy floor.
#include <iostream>

#include <gtest/gtest.h>

#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

const char* kScanFiles[] = {"89_cumsum", "90_cumprod", "91_cumsum_reverse", "92_cumsum_exclusive", "93_masked_cumsum"};

Problem scan_problem(const std::string& name) {
  return load_problem_file(source_tree() + "/problems/kernelbench/level1/" + name + ".json");
}

search::CandidateOutcome run_baseline(const Problem& p, const std::string& size, runtime::Worker& worker) {
  return search::evaluate_candidate(p, automatic_baseline(p.pipeline), gpu_eval_config(size, 7, size == "bench"),
                                    &worker);
}

TEST(GpuScan, KernelBenchScansVerifyAtTheSmallSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* name : kScanFiles) {
    auto out = run_baseline(scan_problem(name), "small", worker);
    EXPECT_EQ(out.verdict_text(), "ok") << name << ": " << out.reason;
  }
}

// Forward and reverse: the reverse scan's float4s start at their last lane.
TEST(GpuScan, CumsumOfA32768SquareTensorVerifiesAtTheBenchSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  for (const char* name : {"89_cumsum", "91_cumsum_reverse"}) {
    auto out = run_baseline(scan_problem(name), "bench", worker);
    ASSERT_EQ(out.verdict_text(), "ok") << name << ": " << out.reason;
    ASSERT_TRUE(out.gpu.has_value());
    std::cout << name << " (32768, 32768) along dim 1: median " << out.gpu->median_ms << " ms, floor "
              << out.gpu->floor_ms << " ms (" << out.gpu->pct_of_floor << "% of the copy floor)\n";
    EXPECT_GT(out.gpu->median_ms, 0.0);
  }
}

}  // namespace
}  // namespace cusched
