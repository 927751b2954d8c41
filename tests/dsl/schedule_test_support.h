#pragma once
// Helpers shared by the schedule tests: small pipelines, a digest of a schedule
// state, the JSON / text replay check and the structured-error check.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dsl/dsl.h"
#include "dsl/schedule.h"

namespace cusched::testing {

using nlohmann::json;

// C[i] = A[i] + B[i], i in 0..n (f32).
ScheduleContext vector_add_context(int64_t n = 1024);
// The same over f16 tensors: H[i] = X[i] * 2.
ScheduleContext half_scale_context(int64_t n = 1024);
// P[i] = A[i] + 1, T[i] = P[i] * 2 (pointwise, not outputs), Y[i] = max(T[i], 0).
ScheduleContext pointwise_chain_context(int64_t n = 256);
// T[i] = A[i] * 2 read by two stages: U[i] = T[i] + 1, Y[i] = T[i] * U[i].
ScheduleContext shared_producer_context(int64_t n = 256);
// I[i] = argmax_k X[i, k].
ScheduleContext argmax_context(int64_t rows = 8, int64_t cols = 100);
// V[i] = variance_k X[i, k] (a reduction that carries three values).
ScheduleContext variance_context(int64_t rows = 8, int64_t cols = 64);
// y[i] = sum_k A[i, k] * x[k] (one pure loop only).
ScheduleContext matvec_context(int64_t rows = 64, int64_t cols = 64);
// P[i, k] = A[i, k] * 2 (pointwise), R[i] = sum_k P[i, k].
ScheduleContext producer_reduction_context(int64_t rows = 8, int64_t cols = 64);
// S[i] = sum_{r, s} X[i, r, s] (two reduction variables).
ScheduleContext two_rvar_context(int64_t rows = 8, int64_t r = 6, int64_t s = 10);
// A problem's context at its small size (strict: the 1e-4 tolerance).
ScheduleContext problem_context(const std::string& problem, bool strict = false);

// Everything a schedule state says, as JSON: stages, loops in order with extents,
// kinds and bindings, relations, locations, caches, reductions, precision.
json state_digest(const ScheduleState& st);

// Builds a schedule from steps (ASSERT-fails on an error) and checks that it
// replays through JSON and through the text form to the same steps and state.
Schedule build(const ScheduleContext& ctx, const json& steps);
void expect_replays(const Schedule& s);

// Checks that the steps fail at `step` with `op` and `code`, with a full-sentence
// message and a hint, that the legal steps before it replay, and that the
// schedule before the failing step is unchanged by the failed apply.
void expect_step_error(const ScheduleContext& ctx, const json& steps, int step, const std::string& op,
                       const std::string& code);

// Names of a stage's loops, outermost first.
std::vector<std::string> loop_order(const Schedule& s, const std::string& stage);
const LoopInfo& loop(const Schedule& s, const std::string& stage, const std::string& name);

}  // namespace cusched::testing
