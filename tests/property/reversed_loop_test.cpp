// reverse, lowered from the DSL and run in the interpreter at the small size: a block
// loop issued from its last iteration to its first still computes every element once.
#include <gtest/gtest.h>

#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::ir_of;
using testing::verify_small;

TEST(ReversedLoop, BlocksIssuedLastFirstVerifyAndBlockZeroTakesTheTail) {
  // relu_large at the small size is 7 x 301 = 2107 elements: 33 blocks of 64, the last
  // one partial. Reversed, block 0 takes elements 2048 .. 2111 (guarded past 2106).
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "i", "inner": "j", "fused": "f"},
    {"op": "split", "stage": "Y", "loop": "f", "factor": 64},
    {"op": "reverse", "stage": "Y", "loop": "fo"},
    {"op": "bind", "stage": "Y", "loop": "fo_rev", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "fi", "axis": "threadIdx.x"}])");
  for (uint64_t seed : {1u, 2u}) {
    const auto v = verify_small("relu_large", steps, seed);
    EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << v.message;
  }
  const std::string ir = ir_of("relu_large", steps);
  EXPECT_NE(ir.find("(Y_fi + (Y_fo_rev * -64)) + 2048"), std::string::npos) << ir;
  EXPECT_NE(ir.find("< 2107"), std::string::npos) << ir;
}

}  // namespace
}  // namespace cusched
