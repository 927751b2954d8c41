// The l2_hint primitive: it records an eviction priority for the stage's loads of one
// input, with percent defaulting to 100, and refuses inputs the stage does not read,
// names that are not inputs, non-f32 inputs, percentages outside 1..100 and unknown
// policies, each with its structured error.
#include <gtest/gtest.h>

#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(L2Hint, RecordsThePolicyAndShareOfAnInput) {
  Schedule s =
      build(problem_context("layernorm"),
            json::parse(R"([{"op": "l2_hint", "stage": "Y", "source": "X", "policy": "evict_last", "percent": 5},
                                     {"op": "l2_hint", "stage": "Y", "source": "weight", "policy": "evict_first"}])"));
  const auto& hints = s.state().stage("Y").l2_hints;
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints.at("X").policy, "evict_last");
  EXPECT_EQ(hints.at("X").percent, 5);
  EXPECT_EQ(hints.at("weight").policy, "evict_first");
  EXPECT_EQ(hints.at("weight").percent, 100);
}

TEST(L2HintErrors, EachError) {
  auto ln = problem_context("layernorm");
  expect_step_error(ln,
                    json::parse(R"([{"op": "l2_hint", "stage": "Y", "source": "Moments", "policy": "evict_last"}])"), 0,
                    "l2_hint", "l2-hint-not-input");
  expect_step_error(
      ln, json::parse(R"([{"op": "l2_hint", "stage": "Moments", "source": "weight", "policy": "evict_last"}])"), 0,
      "l2_hint", "l2-hint-not-read");
  for (int percent : {0, 101})
    expect_step_error(
        ln,
        json::array(
            {{{"op", "l2_hint"}, {"stage", "Y"}, {"source", "X"}, {"policy", "evict_last"}, {"percent", percent}}}),
        0, "l2_hint", "bad-l2-hint-percent");
  expect_step_error(ln, json::parse(R"([{"op": "l2_hint", "stage": "Y", "source": "X", "policy": "keep"}])"), 0,
                    "l2_hint", "bad-choice");
  expect_step_error(half_scale_context(),
                    json::parse(R"([{"op": "l2_hint", "stage": "H", "source": "X", "policy": "evict_first"}])"), 0,
                    "l2_hint", "l2-hint-dtype");
}

}  // namespace
}  // namespace cusched::testing
