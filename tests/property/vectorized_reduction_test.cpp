// Vectorized reduction loops in the interpreter at the small sizes: the lanes update
// the accumulator in order, so results match the float64 reference as the serial loop
// does, with tails (D = 300 is not a multiple of the vector chunk) and inside a
// cluster reduction.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::ir_of;
using testing::verify_small;

TEST(VectorizedReduction, SerialSumOverVectorLanesVerifies) {
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 4, "outer": "ko", "inner": "kv"},
    {"op": "vectorize", "stage": "S", "loop": "kv"}])");
  EXPECT_EQ(verify_small("softmax", steps, 2).verdict, cusched::runtime::Verdict::ok);
  EXPECT_NE(ir_of("softmax", steps).find("[vectorized]"), std::string::npos) << ir_of("softmax", steps);
}

TEST(VectorizedReduction, ClusterRowsWithFloat4ReductionsVerify) {
  for (int64_t cluster : {2, 4}) {
    const auto v =
        verify_small("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", cluster, 64, true), 4);
    EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << "cluster " << cluster << ": " << v.message;
  }
}

}  // namespace
}  // namespace cusched
