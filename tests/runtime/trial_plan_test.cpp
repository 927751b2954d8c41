// The trials a request plans (runtime/trial_plan.h): a trial per seed (at least three),
// the adversarial one where an input has an adversarial distribution, the folder's
// inputs first where there is one, and trial_limit cutting the list to its first
// trials. No GPU needed.
#include "runtime/trial_plan.h"

#include <gtest/gtest.h>

namespace cusched::runtime {
namespace {

EvalRequest request_with_adversarial_input() {
  EvalRequest r;
  r.candidate.buffers = {{"A", DType::f32, {256}, BufferRole::Input, false},
                         {"C", DType::f32, {256}, BufferRole::Output, false}};
  r.reference = r.candidate;
  r.inputs = {{"A", {"uniform", -1, 1}, Distribution{"normal", 1000, 0.01}}};
  r.seeds = 3;
  return r;
}

TEST(TrialPlan, SeedsThenTheAdversarialTrial) {
  const std::vector<TrialPlan> plans = plan_trials(request_with_adversarial_input());
  ASSERT_EQ(plans.size(), 4u);
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(plans[static_cast<size_t>(s)].seed, s);
    EXPECT_FALSE(plans[static_cast<size_t>(s)].adversarial);
  }
  EXPECT_TRUE(plans[3].adversarial);
}

TEST(TrialPlan, TrialLimitKeepsTheFirstTrials) {
  EvalRequest r = request_with_adversarial_input();
  r.inputs_dir = "saved";
  r.trial_limit = 2;
  const std::vector<TrialPlan> plans = plan_trials(r);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_TRUE(plans[0].from_dir);
  EXPECT_EQ(plans[1].seed, 0);
  r.trial_limit = 0;  // every trial
  EXPECT_EQ(plan_trials(r).size(), 5u);
  r.trial_limit = 9;  // more than planned: every trial
  EXPECT_EQ(plan_trials(r).size(), 5u);
}

}  // namespace
}  // namespace cusched::runtime
