// Lowering, as the ordered list of its passes.
#include "codegen/lower.h"

#include <functional>
#include <sstream>

#include "codegen/arithmetic_share.h"
#include "codegen/lowering_passes.h"
#include "codegen/passes/passes.h"
#include "dsl/error_attribution.h"

namespace cusched {
namespace {

struct LoweringPass {
  const char* name;  // the pass's function (codegen/passes/NAME.cpp)
  std::function<void(const ScheduleState&, LoweredProgram&)> run;
};

// A pass that transforms (or checks) each kernel on its own.
template <typename KernelPass>
std::function<void(const ScheduleState&, LoweredProgram&)> each_kernel(KernelPass pass) {
  return [pass](const ScheduleState&, LoweredProgram& p) {
    for (auto& k : p.kernels) pass(k);
  };
}

const std::vector<LoweringPass>& lowering_passes() {
  static const std::vector<LoweringPass> passes = {
      // 1. inputs, outputs, scratch
      {"plan_global_buffers", [](const ScheduleState& st, LoweredProgram& p) { p.buffers = plan_global_buffers(st); }},
      // 2. loop nests, compute_at, cache_read, reductions, tensor cores (codegen/lowering/)
      {"build_kernels", [](const ScheduleState& st, LoweredProgram& p) { p.kernels = build_kernels(st, p.buffers); }},
      {"assign_launch_dims", each_kernel(assign_launch_dims)},              // 3. grid, block, barrier placement rule
      {"drop_covered_copy_guards", each_kernel(drop_covered_copy_guards)},  // 4. copy loops that no thread overruns
      {"simplify_divisions", each_kernel(simplify_divisions)},  // 5. divisions, comparisons through index ranges
      {"resolve_register_tails", each_kernel(resolve_register_tails)},  // 6. register tails: owner and register
      {"issue_refills_after_fragments",
       each_kernel(issue_refills_after_fragments)},  // 7. wgmma k-steps: copies after the fragment loads
      {"check_register_arrays",
       each_kernel([](const Kernel& k) { check_register_arrays(k); })},       // 8. per-thread arrays of a sane size
      {"remove_redundant_barriers", each_kernel(remove_redundant_barriers)},  // 9. back-to-back barriers
      {"raster_blocks", each_kernel(raster_blocks)},                          // 10. block_raster's tile order
      {"simplify_kernel", each_kernel(simplify_kernel)},                      // 11. constant folding
  };
  return passes;
}

}  // namespace

std::vector<std::string> lowering_pass_names() {
  std::vector<std::string> out;
  for (const auto& pass : lowering_passes()) out.push_back(pass.name);
  return out;
}

LoweredProgram lower(const Schedule& schedule, const std::string& problem_name) {
  return lower_observed(schedule, problem_name, {});
}

namespace {

LoweredProgram run_passes(const Schedule& schedule, const std::string& problem_name, const PassObserver& after_pass) {
  const ScheduleState& state = schedule.state();
  LoweredProgram p;
  p.problem = problem_name;
  p.schedule_hash = schedule.hash();
  std::istringstream text(schedule.to_text());
  for (std::string line; std::getline(text, line);) p.schedule_text.push_back(line);
  for (const auto& [name, s] : state.schedules) {
    if (s.precision != Precision::f32) p.precision = s.precision;
    if (s.math == "fast") p.math = "fast";
  }
  p.arithmetic_share = arithmetic_share(state);
  for (const auto& pass : lowering_passes()) {
    pass.run(state, p);
    if (after_pass) after_pass(pass.name, p);
  }
  return p;
}

}  // namespace

// The whole-schedule legality first (phase "schedule"), then the passes; their errors
// name the step behind the stage, loop or copy they are about (phase "lowering").
LoweredProgram lower_observed(const Schedule& schedule, const std::string& problem_name,
                              const PassObserver& after_pass) {
  schedule.check_legality();
  try {
    return run_passes(schedule, problem_name, after_pass);
  } catch (UserError& e) {
    attribute_error_to_step(e.error(), schedule.state(), schedule.steps(), "lowering");
    throw;
  }
}

}  // namespace cusched
