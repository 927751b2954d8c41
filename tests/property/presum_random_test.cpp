// Random legal schedules of the KernelBench problems that sum a GEMM's output along a row
// (level 2 #14, #18): some take the sum through the GEMM (presum), and every one that
// lowers computes the problem in the CPU interpreter.
#include <gtest/gtest.h>

#include "problems/problem_file.h"
#include "tests/property/random_schedules_with_op.h"

namespace cusched {
namespace {

TEST(PresumProperty, RandomSchedulesWithPresumKeepTheirMeaning) {
  for (const char* file : {"14_Gemm_Divide_Sum_Scaling", "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp"}) {
    SCOPED_TRACE(file);
    const Problem p =
        load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/level2/" + file + ".json");
    const RandomScheduleCounts c = verify_random_schedules(p, "presum", 60, 29, 5);
    EXPECT_GE(c.with_op, 8) << "verified " << c.verified;
  }
}

}  // namespace
}  // namespace cusched
