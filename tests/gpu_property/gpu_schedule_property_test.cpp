// On the GPU: the random schedules that the interpreter property test accepts also
// verify on the device at the small size (same generator, same seeds), and random
// schedules legal at the bench size verify there, where numerics that depend on the
// size (long sequential sums, say) show.
#include <cstdlib>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"

namespace cusched {
namespace {

uint64_t env_or(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : def;
}

// An untimed, unaudited GPU evaluation at `size` with inputs from `seed`.
search::EvalConfig gpu_check_config(const std::string& size, uint64_t seed) {
  search::EvalConfig cfg;
  cfg.backend = "gpu";
  cfg.size = size;
  cfg.seed = seed;
  cfg.time_it = false;
  cfg.audit = false;
  return cfg;
}

const auto kProblems = ::testing::Values("relu", "sum_dim1", "softmax", "layernorm", "matmul", "matmul_bf16", "conv2d",
                                         "gemm_add_relu", "cross_entropy");

class GpuScheduleProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuScheduleProperty, InterpreterAcceptedSchedulesVerifyOnTheGpu) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  const Problem& p = find_problem(GetParam());
  uint64_t seed = env_or("CUSCHED_PROPERTY_SEED", 1);
  int count = static_cast<int>(env_or("CUSCHED_GPU_PROPERTY_COUNT", 25));
  std::mt19937_64 rng(seed * 1000003 + std::hash<std::string>{}(p.name));
  ScheduleContext ctx = p.context("small");
  runtime::Worker worker(0);
  int checked = 0;
  for (int n = 0; n < count; ++n) {
    nlohmann::json steps = random_schedule(ctx, rng);
    Schedule s = Schedule::from_json(ctx, steps);
    auto interp = runtime::verify_with_interpreter(p, s, "small", seed + n, 1);
    if (interp.verdict != cusched::runtime::Verdict::ok) continue;
    search::EvalConfig cfg = gpu_check_config("small", seed + n);
    cfg.check_bench = false;  // the schedules are generated for the small size
    auto out = search::evaluate_candidate(p, steps, cfg, &worker);
    EXPECT_EQ(out.verdict_text(), "ok") << out.reason << "\nschedule: " << steps.dump();
    ++checked;
  }
  std::cout << p.name << ": " << checked << " interpreter-accepted schedules checked on the GPU\n";
  EXPECT_GT(checked, 0);
}

class GpuBenchSizeScheduleProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuBenchSizeScheduleProperty, LegalSchedulesVerifyAtTheBenchSize) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  const Problem& p = find_problem(GetParam());
  uint64_t seed = env_or("CUSCHED_PROPERTY_SEED", 1);
  int count = static_cast<int>(env_or("CUSCHED_GPU_BENCH_PROPERTY_COUNT", 3));
  std::mt19937_64 rng(seed * 7919 + std::hash<std::string>{}(p.name));
  ScheduleContext ctx = p.context("bench");
  runtime::Worker worker(0);
  int checked = 0;
  for (int n = 0; n < count; ++n) {
    nlohmann::json steps = random_schedule(ctx, rng);
    auto out = search::evaluate_candidate(p, steps, gpu_check_config("bench", seed + n), &worker);
    // Refusals with a structured error (shared memory or a register array beyond the
    // device at this size) and schedules too slow for the watchdog are not verdicts on
    // the numerics; a failure inside lowering is.
    const bool refused =
        out.verdict == runtime::Verdict::invalid_schedule ||
        (out.verdict == runtime::Verdict::lowering_error && out.error.code != "internal-lowering-failure");
    if (refused || out.verdict == runtime::Verdict::timeout) continue;
    EXPECT_EQ(out.verdict_text(), "ok") << out.reason << "\nschedule: " << steps.dump();
    ++checked;
  }
  std::cout << p.name << ": " << checked << " bench-size schedules checked on the GPU\n";
}

INSTANTIATE_TEST_SUITE_P(Algorithms, GpuBenchSizeScheduleProperty, kProblems,
                         [](const auto& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(Algorithms, GpuScheduleProperty, kProblems, [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cusched
