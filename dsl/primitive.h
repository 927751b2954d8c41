#pragma once
// A schedule primitive as the registry declares it: its name, typed arguments,
// documentation with a before/after example, and its apply + legality check.
// Everything else (JSON parsing and printing, the text form, the JSON Schema, the
// reference in docs/, the LLM prompt) is derived from these declarations.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/schedule_state.h"

namespace cusched {

enum class ArgType { Int, Name, NameList, IntList, Enum, Bool };

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::Name;
  bool required = true;
  nlohmann::json default_value;      // used when not required; null = derived by the primitive
  std::vector<std::string> choices;  // Enum only
  std::string doc;
  std::string one_of;  // arguments with the same non-empty group: exactly one is given
};

using StepJson = nlohmann::json;

struct PrimitiveDef {
  std::string name;
  std::string summary;  // one paragraph: what it does and when to use it
  std::vector<ArgSpec> args;
  std::string before, after;  // loop nests before and after, as pseudo-code
  std::string example;        // one JSON step
  // Fills derived defaults (e.g. new loop names) into `step`, checks legality and
  // updates `state`. Throws UserError with a stable code on an illegal step.
  std::function<void(ScheduleState& state, StepJson& step)> apply;
};

const std::vector<PrimitiveDef>& primitives();
const PrimitiveDef* find_primitive(const std::string& name);

// Helpers shared by the primitives.
std::string step_stage(const ScheduleState& st, const StepJson& step, const std::string& loop_key);
void require_fresh_loop_name(const StageSchedule& s, const std::string& name);
// Fails with loop-in-use when another part of the schedule refers to `loop` of
// `stage` (a producer computed at it, a staged copy made at it, the pipelined loop),
// so that a step that removes the loop (split, tile, fuse) cannot leave it dangling.
void require_loop_not_referenced(const ScheduleState& st, const std::string& stage, const std::string& loop,
                                 const std::string& op);
// Fails with bad-name unless `name` is a C identifier ([A-Za-z_][A-Za-z0-9_]*).
void require_identifier(const std::string& name, const std::string& what);
// Fails with bad-name or duplicate-name unless `name` can name a new stage: an identifier
// that no stage or input of the schedule's pipeline has (rfactor, relayout, presum).
void require_new_stage_name(const ScheduleState& st, const std::string& name);
LoopInfo& require_loop(StageSchedule& s, const std::string& name);
void require_unbound(const LoopInfo& l, const std::string& op);
bool is_power_of_two(int64_t v);

// Each primitive's declaration, one per file under dsl/primitives/.
PrimitiveDef split_primitive();
PrimitiveDef tile_primitive();
PrimitiveDef reorder_primitive();
PrimitiveDef fuse_primitive();
PrimitiveDef reverse_primitive();
PrimitiveDef bind_primitive();
PrimitiveDef unroll_primitive();
PrimitiveDef vectorize_primitive();
PrimitiveDef compute_at_primitive();
PrimitiveDef compute_inline_primitive();
PrimitiveDef fuse_epilogue_primitive();
PrimitiveDef sum_with_variance_primitive();
PrimitiveDef compute_root_primitive();
PrimitiveDef cache_read_primitive();
PrimitiveDef cache_write_primitive();
PrimitiveDef rfactor_primitive();
PrimitiveDef relayout_primitive();
PrimitiveDef presum_primitive();
PrimitiveDef cross_thread_reduce_primitive();
PrimitiveDef cross_thread_scan_primitive();
PrimitiveDef pipeline_primitive();
PrimitiveDef tensor_core_primitive();
PrimitiveDef precision_primitive();
PrimitiveDef launch_bounds_primitive();
PrimitiveDef block_raster_primitive();
PrimitiveDef l2_hint_primitive();

}  // namespace cusched
