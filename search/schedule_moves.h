#pragma once
// The moves of the built-in proposer: edits of a schedule's JSON steps, each
// trying one optimisation idea (another split factor, a vectorized inner loop,
// producers fused into their consumer, a shared-memory copy, a register tile,
// unrolling, a lower operand precision, fast-math intrinsics). A move may produce an illegal schedule;
// the caller validates every result before evaluating it.
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/schedule_state.h"

namespace cusched::search {

struct MoveResult {
  std::string move;         // the move's name, e.g. "vectorize"
  std::string idea;         // what it does, in words: "vectorize the innermost loop of Y by 4"
  nlohmann::json schedule;  // the edited steps, not yet validated
};

// Every move's name: retile, vectorize, fuse_producers, stage_shared, register_tile,
// unroll, precision, fast_math, pipeline, l2_keep, random.
const std::vector<std::string>& move_names();

// Applies move `name` to `steps`, a legal schedule whose state is `state`, drawing
// its parameters from `rng`. nullopt when the move finds nothing to work on.
std::optional<MoveResult> apply_move(const std::string& name, const nlohmann::json& steps, const ScheduleState& state,
                                     std::mt19937_64& rng);

// The step edits the moves are made of.

// The name of the stage a step acts on: its "stage" argument (every normalised
// step that acts on one stage has it).
std::string step_stage_name(const nlohmann::json& step);

// Replaces every use of loop `from` of `stage` in steps[begin..] by `to`: as a
// loop argument, a fused or tiled loop, in a reorder list, as the site of a
// cache_read, and as the consumer loop of a compute_at into `stage`.
void rename_loop_uses(nlohmann::json& steps, size_t begin, const std::string& stage, const std::string& from,
                      const std::string& to);

// Splits loop `loop` of `stage` by `factor` before the first step that uses it, so
// that the later steps act on the outer part (renamed). The split is appended
// when no step uses the loop. Returns the inner loop's name; names are made fresh
// against `used` (the stage's used names), which gains them.
std::string split_before_use(nlohmann::json& steps, const std::string& stage, const std::string& loop, int64_t factor,
                             std::set<std::string>& used);

// A loop name starting with `base` that is not in `used`; it is added to `used`.
std::string fresh_loop_name(const std::string& base, std::set<std::string>& used);

}  // namespace cusched::search
