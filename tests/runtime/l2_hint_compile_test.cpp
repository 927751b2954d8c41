// A kernel whose input loads carry an L2 eviction priority (l2_hint) makes its policy once
// (createpolicy) and issues those loads, scalar and float4, as ld.global.nc.L2::cache_hint;
// the other inputs' loads stay plain; a hint on a stage without a kernel of its own is
// refused at lowering. NVRTC for compute_90a and the sm_90a CUBIN; no GPU is needed.
#include <gtest/gtest.h>

#include "dsl/error.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

nlohmann::json with_step(nlohmann::json steps, const nlohmann::json& step) {
  steps.push_back(step);
  return steps;
}

TEST(L2HintCompile, LayerNormStatisticsLoadXUnderAnEvictLastPolicy) {
  nlohmann::json unhinted = nlohmann::json::array();
  for (const auto& s : find_problem("layernorm").best_schedule)
    if (s["op"] != "l2_hint") unhinted.push_back(s);
  const nlohmann::json steps = with_step(
      unhinted,
      {{"op", "l2_hint"}, {"stage", "Moments_rf"}, {"source", "X"}, {"policy", "evict_last"}, {"percent", 5}});
  const KernelBundle b = bench_bundle("layernorm", steps);
  const size_t moments = b.source.find("k0_Moments_rf("), normalise = b.source.find("_Y(", moments);
  ASSERT_NE(moments, std::string::npos);
  ASSERT_NE(normalise, std::string::npos);
  const size_t policy = b.source.find("const unsigned long long cusched_l2_X = cusched::l2_policy_evict_last(0.05f);");
  EXPECT_GT(policy, moments);
  EXPECT_LT(policy, normalise) << "only the hinted stage's kernel makes the policy";
  const size_t hinted = b.source.find("cusched::load_l2(reinterpret_cast<const float4*>(&X[");
  EXPECT_GT(hinted, moments);
  EXPECT_LT(hinted, normalise);
  EXPECT_EQ(b.source.find("cusched::load_l2", normalise), std::string::npos) << "the normalisation's loads stay plain";
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("createpolicy.fractional.L2::evict_last"), std::string::npos);
  EXPECT_NE(ptx.find("ld.global.nc.L2::cache_hint.v4.f32"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(L2HintCompile, ScalarLoadsCarryThePolicyToo) {
  // The baseline's moments kernel reads X one element per thread.
  const nlohmann::json steps =
      with_step(find_problem("layernorm").baseline_schedule,
                {{"op", "l2_hint"}, {"stage", "Moments"}, {"source", "X"}, {"policy", "evict_first"}});
  const KernelBundle b = bench_bundle("layernorm", steps);
  EXPECT_NE(b.source.find("cusched::l2_policy_evict_first(1.00f)"), std::string::npos) << b.source;
  EXPECT_NE(b.source.find("cusched::load_l2(&X["), std::string::npos);
  EXPECT_NE(ptx_of(b).find("ld.global.nc.L2::cache_hint.f32"), std::string::npos);
}

TEST(L2HintCompile, AHintOnAStageWithoutItsOwnKernelIsRefused) {
  const nlohmann::json steps =
      with_step(find_problem("softmax").best_schedule,
                {{"op", "l2_hint"}, {"stage", "M"}, {"source", "X"}, {"policy", "evict_last"}});
  try {
    bench_bundle("softmax", steps);
    FAIL() << "lowered";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "l2-hint-not-root");
  }
}

}  // namespace
}  // namespace cusched::runtime
