#include "problems/automatic_baseline.h"

#include "problems/baseline_steps.h"

namespace cusched {

namespace {

using nlohmann::json;

std::vector<std::string> reduction_vars(const FuncDef& f) {
  std::vector<std::string> out;
  if (f.is_reduction())
    for (const auto& r : f.body->rvars) out.push_back(r.name);
  return out;
}

bool empty_schedule(const json& steps) { return steps.is_null() || (steps.is_array() && steps.empty()); }

}  // namespace

json automatic_baseline(const Pipeline& pipeline) {
  json steps = json::array();
  for (const auto& f : pipeline.stages()) {
    if (f->is_reduction())
      steps =
          concat_steps({steps, block_per_point_steps(f->name, f->vars, reduction_vars(*f), kAutomaticBaselineThreads)});
    else if (!f->vars.empty())
      steps = concat_steps({steps, flat_grid_steps(f->name, f->vars, kAutomaticBaselineThreads)});
  }
  return steps;
}

json reference_schedule_steps(const Pipeline& pipeline) {
  json steps = json::array();
  for (const auto& f : pipeline.stages())
    if (!f->vars.empty()) steps = concat_steps({steps, flat_grid_steps(f->name, f->vars, kAutomaticBaselineThreads)});
  return steps;
}

Schedule reference_schedule(const ScheduleContext& ctx) {
  return Schedule::from_json(ctx, reference_schedule_steps(ctx.pipeline));
}

json baseline_schedule_of(const Problem& problem) {
  return empty_schedule(problem.baseline_schedule) ? automatic_baseline(problem.pipeline) : problem.baseline_schedule;
}

json best_schedule_of(const Problem& problem) {
  return empty_schedule(problem.best_schedule) ? baseline_schedule_of(problem) : problem.best_schedule;
}

}  // namespace cusched
