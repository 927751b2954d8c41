// Random legal schedules of KernelBench files that define a sum and the variance of the
// same values (level 1 BatchNorm and LayerNorm, level 2 #52's BatchNorm after a
// convolution): some store the sum from the variance's kernel (sum_with_variance), and
// every one that lowers computes the problem in the CPU interpreter; a sum that is itself
// an output is stored the same way.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "problems/problem_json.h"
#include "runtime/interp_verification.h"
#include "tests/property/random_schedules_with_op.h"

namespace cusched {
namespace {

TEST(SumWithVarianceProperty, RandomSchedulesThatPairTheStatisticsKeepTheirMeaning) {
  for (const char* file : {"level1/33_BatchNorm", "level1/40_LayerNorm", "level2/52_Conv2d_Activation_BatchNorm"}) {
    SCOPED_TRACE(file);
    const Problem p = load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/" + file + ".json");
    const RandomScheduleCounts c = verify_random_schedules(p, "sum_with_variance", 60, 31, 3);
    EXPECT_GE(c.with_op, 3) << "verified " << c.verified;
  }
}

}  // namespace
}  // namespace cusched

namespace cusched {
namespace {

// Both statistics as outputs of the pipeline (a row's sum and variance): the sum, stored by
// the variance's kernel, is an output buffer like any other and verifies at large means.
TEST(SumWithVarianceProperty, ASumThatIsAnOutputIsStoredByTheVariancesKernel) {
  const Problem p = problem_from_json(nlohmann::json::parse(R"json({
    "name": "row_sum_and_variance", "title": "a row's sum and variance",
    "sizes": {"small": {"R": 5, "D": 37}, "bench": {"R": 4096, "D": 8192}},
    "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "D"],
                "distribution": {"kind": "normal", "a": 1000, "b": 0.1}}],
    "stages": ["S(i in R) = sum(k in D: X(i, k))", "Q(i in R) = variance(k in D: X(i, k))"],
    "outputs": ["S", "Q"]})json"),
                                      "sum_with_variance_test");
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "sum_with_variance", "stage": "S", "variance": "Q"},
    {"op": "bind", "stage": "Q", "loop": "i", "axis": "blockIdx.x"},
    {"op": "split", "stage": "Q", "loop": "k", "factor": 32, "outer": "ko", "inner": "ki"},
    {"op": "cross_thread_reduce", "stage": "Q", "loop": "ki", "kind": "warp"}])");
  const Schedule s = Schedule::from_json(p.context("small"), steps);
  EXPECT_EQ(lower(s, p.name).kernels.size(), 1u);
  const auto r = runtime::verify_with_interpreter(p, s, "small", 5, 2);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
}

}  // namespace
}  // namespace cusched
