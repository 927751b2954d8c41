// Random legal schedules of KernelBench files that define a sum and the variance of the
// same values (level 1 BatchNorm and LayerNorm, level 2 #52's BatchNorm after a
// convolution): some store the sum from the variance's kernel (sum_with_variance), and
// every one that lowers computes the problem in the CPU interpreter.
#include <random>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"

namespace cusched {
namespace {

TEST(SumWithVarianceProperty, RandomSchedulesThatPairTheStatisticsKeepTheirMeaning) {
  for (const char* file : {"level1/33_BatchNorm", "level1/40_LayerNorm", "level2/52_Conv2d_Activation_BatchNorm"}) {
    SCOPED_TRACE(file);
    const Problem p = load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/" + file + ".json");
    const ScheduleContext ctx = p.context("small");
    std::mt19937_64 rng(31);
    int paired = 0, verified = 0;
    for (int n = 0; n < 60; ++n) {
      const nlohmann::json steps = random_schedule(ctx, rng);
      const bool pairs = steps.dump().find("\"sum_with_variance\"") != std::string::npos;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, steps), "small", 3 + n, 1);
      if (r.verdict == runtime::Verdict::rejected) {
        EXPECT_FALSE(r.error.message.empty()) << steps.dump();
        continue;
      }
      ASSERT_EQ(r.verdict, runtime::Verdict::ok) << r.message << "\nschedule: " << steps.dump();
      ++verified;
      paired += pairs;
    }
    EXPECT_GE(paired, 3) << "verified " << verified;
  }
}

}  // namespace
}  // namespace cusched
