// The property that makes every schedule trustworthy: random legal schedules, lowered
// and run in the CPU interpreter at the small size, match the unscheduled float64
// evaluation; random illegal ones are rejected with a structured error, never a crash.
//
// CUSCHED_PROPERTY_SEED (default 1) and CUSCHED_PROPERTY_COUNT (default 200 per
// algorithm) run it longer with another seed. A failure prints the schedule JSON.
#include <cstdlib>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"

namespace cusched {
namespace {

uint64_t env_or(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : def;
}

class ScheduleProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(ScheduleProperty, RandomLegalSchedulesKeepTheirMeaning) {
  const Problem& p = find_problem(GetParam());
  uint64_t seed = env_or("CUSCHED_PROPERTY_SEED", 1);
  int count = static_cast<int>(env_or("CUSCHED_PROPERTY_COUNT", 200));
  std::mt19937_64 rng(seed * 1000003 + std::hash<std::string>{}(p.name));
  ScheduleContext ctx = p.context("small");
  int verified = 0, rejected = 0, tensor_core = 0, wgmma = 0, cluster = 0, vector_reduction = 0, l2_hint = 0,
      tensor_copies = 0, transposed_copies = 0, relaid = 0;
  for (int n = 0; n < count; ++n) {
    nlohmann::json steps = random_schedule(ctx, rng);
    Schedule s = Schedule::from_json(ctx, steps);  // every step was accepted once: must replay
    ASSERT_EQ(Schedule::from_json(ctx, s.to_json()).to_json(), s.to_json());
    auto r = runtime::verify_with_interpreter(p, s, "small", seed + n, 1);
    if (r.verdict == cusched::runtime::Verdict::rejected) {
      ++rejected;
      if (std::getenv("CUSCHED_PROPERTY_VERBOSE"))
        std::cerr << "rejected: " << r.error.code << ": " << r.error.message << "\n  " << steps.dump() << "\n";
      EXPECT_FALSE(r.error.code.empty()) << steps.dump();
      EXPECT_FALSE(r.error.message.empty()) << steps.dump();
      continue;
    }
    ASSERT_EQ(r.verdict, cusched::runtime::Verdict::ok)
        << r.message << "\nschedule: " << steps.dump() << "\nreproduce with CUSCHED_PROPERTY_SEED=" << seed;
    ++verified;
    if (steps.dump().find("\"tensor_core\"") != std::string::npos) ++tensor_core;
    if (steps.dump().find("\"m64nNk8\"") != std::string::npos) ++wgmma;
    if (steps.dump().find("\"l2_hint\"") != std::string::npos) ++l2_hint;
    if (steps.dump().find("\"engine\":\"tensor\"") != std::string::npos) ++tensor_copies;
    for (const auto& step : s.to_json())
      if (step["op"] == "cache_read" && step.value("innermost", -1) >= 0) {
        ++transposed_copies;
        break;
      }
    for (const auto& step : s.to_json())
      if (step["op"] == "relayout") {
        ++relaid;
        break;
      }
    if (steps.dump().find("\"cluster\"") != std::string::npos) ++cluster;
    for (const auto& [stage, ss] : s.state().schedules)
      for (const auto& [name, l] : ss.loops)
        if (l.reduction && l.kind == LoopKind::Vectorized) {
          ++vector_reduction;
          goto counted;
        }
  counted:;
  }
  // Most generated schedules must lower and run, or the property says little.
  EXPECT_GE(verified, count * 7 / 10) << "only " << verified << " of " << count << " verified, " << rejected
                                      << " rejected";
  // The matmul-like algorithms' schedules include tensor-core tiles, emulated warp by warp,
  // warpgroup tiles (wgmma) among them.
  if (p.name == "matmul" || p.name == "gemm_add_relu") {
    EXPECT_GE(tensor_core, count / 20) << "too few tensor-core schedules verified";
    EXPECT_GE(wgmma, count / 100) << "too few warpgroup tensor-core schedules verified";
  }
  // Some matmul tiles are pipelined on the tensor memory accelerator; some stage a source
  // transposed (cache_read innermost).
  if (p.name == "matmul") {
    EXPECT_GE(tensor_copies, 1) << "no schedule pipelined on the tensor memory accelerator verified";
    EXPECT_GE(transposed_copies, count / 50) << "too few schedules with a transposed copy verified";
  }
  // Stages sometimes read an input through a copy in another dimension order (relayout).
  EXPECT_GE(relaid, count / 50) << "too few schedules with a relaid-out input verified";
  // Kernels' input loads sometimes carry an L2 eviction priority (the values must not change).
  EXPECT_GE(l2_hint, 1) << "no schedule with an L2 hint verified";
  // Reductions are sometimes combined across a thread-block cluster, or vectorized.
  if (p.name == "sum_dim1" || p.name == "softmax") {
    EXPECT_GE(cluster, 1) << "no cluster reduction verified";
    EXPECT_GE(vector_reduction, 1) << "no vectorized reduction verified";
  }
  RecordProperty("tensor_core", tensor_core);
  RecordProperty("wgmma", wgmma);
  RecordProperty("l2_hint", l2_hint);
  RecordProperty("cluster", cluster);
  RecordProperty("tensor_copies", tensor_copies);
  RecordProperty("vector_reduction", vector_reduction);
  RecordProperty("verified", verified);
  RecordProperty("rejected", rejected);
}

// The generator's warpgroup tiles of the bf16 matmul are 16-bit ones (m64nNk16, k staged
// 64 at a time): the first three it draws keep their meaning in the interpreter.
TEST(ScheduleProperty, RandomBf16WarpgroupTilesKeepTheirMeaning) {
  const Problem& p = find_problem("matmul_bf16");
  std::mt19937_64 rng(env_or("CUSCHED_PROPERTY_SEED", 1) * 7919);
  const ScheduleContext ctx = p.context("small");
  int found = 0;
  for (int n = 0; n < 2000 && found < 3; ++n) {
    const nlohmann::json steps = random_schedule(ctx, rng);
    if (steps.dump().find("m64nNk") == std::string::npos) continue;
    EXPECT_NE(steps.dump().find("m64nNk16"), std::string::npos) << steps.dump();
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, steps), "small", 3 + n, 1);
    if (r.verdict == cusched::runtime::Verdict::rejected) continue;
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << "\nschedule: " << steps.dump();
    ++found;
  }
  EXPECT_EQ(found, 3) << "the generator drew too few warpgroup tiles of the bf16 matmul";
}

TEST_P(ScheduleProperty, RandomIllegalSchedulesAreRejectedWithStructuredErrors) {
  const Problem& p = find_problem(GetParam());
  uint64_t seed = env_or("CUSCHED_PROPERTY_SEED", 1);
  int count = static_cast<int>(env_or("CUSCHED_PROPERTY_COUNT", 200));
  std::mt19937_64 rng(seed * 7919 + std::hash<std::string>{}(p.name));
  ScheduleContext ctx = p.context("small");
  int errors = 0;
  for (int n = 0; n < count; ++n) {
    nlohmann::json bad = random_mutation(random_schedule(ctx, rng), rng);
    ValidationResult v = validate_schedule(ctx, bad);
    if (!v.ok) {
      ++errors;
      EXPECT_FALSE(v.error.code.empty()) << bad.dump();
      EXPECT_FALSE(v.error.message.empty()) << bad.dump();
      EXPECT_GE(v.error.step, 0) << bad.dump();
      continue;
    }
    // A mutation that is still legal must still be correct.
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, bad), "small", seed + n, 1);
    EXPECT_TRUE(r.verdict == cusched::runtime::Verdict::ok || r.verdict == cusched::runtime::Verdict::rejected)
        << r.message << "\nschedule: " << bad.dump();
  }
  EXPECT_GE(errors, count / 2);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ScheduleProperty,
                         ::testing::Values("relu", "sum_dim1", "softmax", "layernorm", "matmul", "conv2d",
                                           "gemm_add_relu", "cross_entropy"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cusched
