#pragma once
// Random legal schedules of a problem file that some draws give one primitive: each that
// lowers must compute the problem in the CPU interpreter (a rejection must say why).
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"

namespace cusched {

struct RandomScheduleCounts {
  int verified = 0;  // schedules that lowered and verified
  int with_op = 0;   // of those, the ones with a step of the primitive
};

// `count` random schedules of `p` at its small size from `seed` (verification seeds
// `first_input_seed` + n); a wrong output fails the calling test.
inline RandomScheduleCounts verify_random_schedules(const Problem& p, const std::string& op, int count, uint64_t seed,
                                                    uint64_t first_input_seed) {
  const ScheduleContext ctx = p.context("small");
  std::mt19937_64 rng(seed);
  RandomScheduleCounts c;
  for (int n = 0; n < count; ++n) {
    const nlohmann::json steps = random_schedule(ctx, rng);
    const bool has_op = steps.dump().find("\"" + op + "\"") != std::string::npos;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, steps), "small", first_input_seed + n, 1);
    if (r.verdict == runtime::Verdict::rejected) {
      EXPECT_FALSE(r.error.message.empty()) << steps.dump();
      continue;
    }
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << "\nschedule: " << steps.dump();
    if (r.verdict != runtime::Verdict::ok) break;
    ++c.verified;
    c.with_op += has_op;
  }
  return c;
}

}  // namespace cusched
