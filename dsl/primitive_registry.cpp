#include "dsl/error.h"
#include "dsl/primitive.h"

namespace cusched {

// The registry: every schedule primitive, in the order the reference lists them.
const std::vector<PrimitiveDef>& primitives() {
  static const std::vector<PrimitiveDef> all = {
      split_primitive(),       tile_primitive(),          reorder_primitive(),
      fuse_primitive(),        bind_primitive(),          unroll_primitive(),
      vectorize_primitive(),   compute_at_primitive(),    compute_inline_primitive(),
      compute_root_primitive(), cache_read_primitive(),   cache_write_primitive(),
      rfactor_primitive(),     cross_thread_reduce_primitive(), pipeline_primitive(),
      tensor_core_primitive(), precision_primitive(),     launch_bounds_primitive(),
  };
  return all;
}

const PrimitiveDef* find_primitive(const std::string& name) {
  for (const auto& p : primitives())
    if (p.name == name) return &p;
  return nullptr;
}

std::string step_stage(const ScheduleState& st, const StepJson& step, const std::string& loop_key) {
  std::string hint = step.contains("stage") && step["stage"].is_string() ? step["stage"].get<std::string>() : "";
  return st.stage_of_loop(step.at(loop_key).get<std::string>(), hint);
}

void require_fresh_loop_name(const StageSchedule& s, const std::string& name) {
  if (name.empty()) fail("bad-name", "A loop name is empty.", "Give every new loop a non-empty name.");
  if (s.used_names.count(name))
    fail("loop-used-twice", "Stage '" + s.stage + "' already has (or had) a loop named '" + name + "'.",
         "Choose a new name for the loop this step creates.");
}

LoopInfo& require_loop(StageSchedule& s, const std::string& name) {
  auto it = s.loops.find(name);
  if (it == s.loops.end()) {
    std::string names;
    for (const auto& n : s.order) names += (names.empty() ? "" : ", ") + n;
    fail("unknown-loop", "Stage '" + s.stage + "' has no loop named '" + name + "'.", "Its loops are now: " + names + ".");
  }
  return it->second;
}

void require_unbound(const LoopInfo& l, const std::string& op) {
  if (l.axis != GpuAxis::None)
    fail("loop-already-bound", "Loop '" + l.name + "' is bound to " + gpu_axis_name(l.axis) + "; " + op + " needs an unbound loop.",
         "Apply " + op + " before bind, or to another loop.");
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace cusched
