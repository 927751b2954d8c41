#pragma once
// Random schedules: legal ones built step by step through the registry (each step
// the registry or the whole-schedule legality rejects is dropped), and mutations that are mostly illegal. The
// property tests and the search's built-in proposer use them.
#include <random>

#include <nlohmann/json.hpp>

#include "dsl/schedule_state.h"

namespace cusched {

// A random schedule that the registry accepts at every step and that passes the
// whole-schedule legality (a step that breaks a whole-schedule rule is dropped).
nlohmann::json random_schedule(const ScheduleContext& ctx, std::mt19937_64& rng);

// One random change to `schedule` (a bad factor, a wrong loop name, a reduction loop
// bound to a block, a dropped argument, ...); most results are illegal.
nlohmann::json random_mutation(const nlohmann::json& schedule, std::mt19937_64& rng);

}  // namespace cusched
