#include "dsl/schedule_legality.h"

#include <algorithm>

#include "dsl/error.h"
#include "dsl/legality/legality_rules.h"

namespace cusched {
namespace legality {

void Rules::refuse(int step, const std::string& code, const std::string& message, const std::string& hint) const {
  Error e;
  e.step = step;
  if (step >= 0 && step < static_cast<int>(steps.size()) && steps[step].contains("op")) e.op = steps[step]["op"];
  e.code = code;
  e.message = message;
  e.hint = hint;
  e.phase = "schedule";
  throw UserError(e);
}

bool Rules::built(const std::string& stage) const {
  std::string name = stage;
  for (size_t depth = 0; depth <= st.schedules.size(); ++depth) {
    auto it = st.schedules.find(name);
    if (it == st.schedules.end()) return false;
    const StageSchedule& s = it->second;
    if (s.location == ComputeLocation::Root || st.is_output(name)) return true;
    if (s.location == ComputeLocation::Inline) return false;
    auto host = st.schedules.find(s.at_stage);
    if (host == st.schedules.end() || host->second.position(s.at_loop) < 0) return false;
    name = s.at_stage;
  }
  return false;
}

std::optional<int> Rules::inside_thread_loop(const std::string& stage, int p) const {
  std::string name = stage;
  for (size_t depth = 0; depth <= st.schedules.size(); ++depth) {
    auto it = st.schedules.find(name);
    if (it == st.schedules.end()) return std::nullopt;
    const StageSchedule& s = it->second;
    for (int q = 0; q <= p && q < static_cast<int>(s.order.size()); ++q)
      if (is_thread_axis(s.loops.at(s.order[q]).axis))
        return latest({s.provenance.binding_of(s.order[q]), s.provenance.order});
    if (s.location != ComputeLocation::At || st.is_output(name)) return std::nullopt;
    auto host = st.schedules.find(s.at_stage);
    if (host == st.schedules.end()) return std::nullopt;
    p = host->second.position(s.at_loop);
    name = s.at_stage;
  }
  return std::nullopt;
}

int latest(std::initializer_list<int> steps) { return steps.size() == 0 ? -1 : std::max(steps); }

}  // namespace legality

void check_schedule_legality(const ScheduleState& state, const std::vector<StepJson>& steps) {
  const legality::Rules rules{state, steps};
  legality::check_kernel_rules(rules);
  legality::check_tensor_core_rules(rules);
  legality::check_output_tile_rules(rules);
  legality::check_placement_rules(rules);
  legality::check_copy_rules(rules);
  legality::check_scan_rules(rules);
  legality::check_epilogue_rules(rules);
  legality::check_sum_with_variance_rules(rules);
}

}  // namespace cusched
