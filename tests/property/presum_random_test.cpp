// Random legal schedules of the KernelBench problems that sum a GEMM's output along a row
// (level 2 #14, #18): some take the sum through the GEMM (presum), and every one that
// lowers computes the problem in the CPU interpreter.
#include <random>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"

namespace cusched {
namespace {

TEST(PresumProperty, RandomSchedulesWithPresumKeepTheirMeaning) {
  for (const char* file : {"14_Gemm_Divide_Sum_Scaling", "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp"}) {
    SCOPED_TRACE(file);
    const Problem p =
        load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/level2/" + file + ".json");
    const ScheduleContext ctx = p.context("small");
    std::mt19937_64 rng(29);
    int with_presum = 0, verified = 0;
    for (int n = 0; n < 60; ++n) {
      const nlohmann::json steps = random_schedule(ctx, rng);
      const bool presum = steps.dump().find("\"presum\"") != std::string::npos;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, steps), "small", 5 + n, 1);
      if (r.verdict == runtime::Verdict::rejected) {
        EXPECT_FALSE(r.error.message.empty()) << steps.dump();
        continue;
      }
      ASSERT_EQ(r.verdict, runtime::Verdict::ok) << r.message << "\nschedule: " << steps.dump();
      ++verified;
      with_presum += presum;
    }
    EXPECT_GE(with_presum, 8) << "verified " << verified;
  }
}

}  // namespace
}  // namespace cusched
