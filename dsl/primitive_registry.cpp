#include <cctype>

#include "dsl/error.h"
#include "dsl/primitive.h"

namespace cusched {

// The registry: every schedule primitive, in the order the reference lists them.
const std::vector<PrimitiveDef>& primitives() {
  static const std::vector<PrimitiveDef> all = {
      split_primitive(),
      tile_primitive(),
      reorder_primitive(),
      fuse_primitive(),
      reverse_primitive(),
      bind_primitive(),
      unroll_primitive(),
      vectorize_primitive(),
      compute_at_primitive(),
      compute_inline_primitive(),
      compute_root_primitive(),
      fuse_epilogue_primitive(),
      sum_with_variance_primitive(),
      cache_read_primitive(),
      cache_write_primitive(),
      rfactor_primitive(),
      relayout_primitive(),
      presum_primitive(),
      cross_thread_reduce_primitive(),
      cross_thread_scan_primitive(),
      pipeline_primitive(),
      tensor_core_primitive(),
      precision_primitive(),
      launch_bounds_primitive(),
      block_raster_primitive(),
      l2_hint_primitive(),
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

void require_identifier(const std::string& name, const std::string& what) {
  bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok)
    fail("bad-name", "The " + what + " name '" + name + "' is not an identifier.",
         "Use letters, digits and underscores, starting with a letter or underscore.");
}

void require_new_stage_name(const ScheduleState& st, const std::string& name) {
  require_identifier(name, "stage");
  if (st.stage_def(name) || st.ctx.pipeline.find_input(name))
    fail("duplicate-name", "The name '" + name + "' is already taken.", "Pass another name.");
}

void require_loop_not_referenced(const ScheduleState& st, const std::string& stage, const std::string& loop,
                                 const std::string& op) {
  std::string user;
  for (const auto& [name, other] : st.schedules)
    if (other.location == ComputeLocation::At && other.at_stage == stage && other.at_loop == loop)
      user = "stage '" + name + "' is computed at it";
  const StageSchedule& s = st.stage(stage);
  for (const auto& c : s.cache_reads)
    if (c.at_loop == loop) user = "the copy '" + c.name + "' is made at it";
  if (s.pipeline_loop == loop) user = "it is pipelined";
  if (!user.empty())
    fail("loop-in-use", "Loop '" + loop + "' of stage '" + stage + "' cannot be removed by " + op + ": " + user + ".",
         "Apply " + op + " before the step that refers to the loop.");
}

void require_fresh_loop_name(const StageSchedule& s, const std::string& name) {
  require_identifier(name, "loop");
  if (s.used_names.count(name))
    fail("loop-used-twice", "Stage '" + s.stage + "' already has (or had) a loop named '" + name + "'.",
         "Choose a new name for the loop this step creates.");
}

LoopInfo& require_loop(StageSchedule& s, const std::string& name) {
  auto it = s.loops.find(name);
  if (it == s.loops.end()) {
    std::string names;
    for (const auto& n : s.order) names += (names.empty() ? "" : ", ") + n;
    fail("unknown-loop", "Stage '" + s.stage + "' has no loop named '" + name + "'.",
         "Its loops are now: " + names + ".");
  }
  return it->second;
}

void require_unbound(const LoopInfo& l, const std::string& op) {
  if (l.axis != GpuAxis::None)
    fail("loop-already-bound",
         "Loop '" + l.name + "' is bound to " + gpu_axis_name(l.axis) + "; " + op + " needs an unbound loop.",
         "Apply " + op + " before bind, or to another loop.");
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace cusched
