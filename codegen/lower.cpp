// Lowering, as the ordered list of its passes.
#include "codegen/lower.h"

#include <sstream>

#include "codegen/passes/passes.h"

namespace cusched {

LoweredProgram lower(const Schedule& schedule, const std::string& problem_name) {
  const ScheduleState& state = schedule.state();
  LoweredProgram p;
  p.problem = problem_name;
  p.schedule_hash = schedule.hash();
  std::istringstream text(schedule.to_text());
  for (std::string line; std::getline(text, line);) p.schedule_text.push_back(line);
  for (const auto& [name, s] : state.schedules) {
    if (s.precision != "f32") p.precision = s.precision;
    if (s.math == "fast") p.math = "fast";
  }

  p.buffers = plan_global_buffers(state);          // 1. inputs, outputs, scratch
  p.kernels = build_kernels(state, p.buffers);     // 2. loop nests, compute_at, cache_read, reductions
  for (auto& k : p.kernels) {
    assign_launch_dims(k);                         // 3. grid, block, barrier placement rule
    drop_covered_copy_guards(k);                   // 4. copy loops that no thread overruns
    simplify_divisions(k);                         // 5. divisions through the indices' ranges
    resolve_register_tails(k);                     // 6. shared copies' register tails: owner and register
    issue_refills_after_fragments(k);              // 7. wgmma k-steps: copies after the fragment loads
    check_register_arrays(k);                      // 8. per-thread arrays of a sane size
    remove_redundant_barriers(k);                  // 9. back-to-back barriers
    simplify_kernel(k);                            // 10. constant folding
  }
  return p;
}

}  // namespace cusched
