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

// A scan along the innermost dimension: one block per line, tiles of 256 threads x 4
// items x a float4 each (scans of 4-byte elements, a reverse scan's float4 read from its
// last lane down; scans of other elements read their items one at a time, 16 per thread). Along another dimension: a flat grid over the
// other dimensions, each thread scanning its line serially, neighbouring threads
// reading neighbouring elements.
json automatic_scan_steps(const FuncDef& f) {
  const std::string& v = f.body->name;
  if (f.vars.back() != v) return serial_scan_steps(f.name, f.vars, v, kAutomaticBaselineThreads);
  const bool vector = dtype_bytes(f.dtype) == 4;
  return block_scan_steps(f.name, f.vars, v, kAutomaticBaselineThreads, vector ? 4 : 16, vector ? 4 : 1);
}

// A reduction of few points over many elements each (per-channel BatchNorm statistics
// over a batch of images): serial in one thread per point, its reference takes seconds to
// minutes.
bool few_long_reductions(const FuncDef& f, const SizeBindings& sizes) {
  return stage_points(f, sizes) < kReferenceBlockPoints && reduction_extent(f, sizes) >= kReferenceBlockExtent;
}

bool empty_schedule(const json& steps) { return steps.is_null() || (steps.is_array() && steps.empty()); }

}  // namespace

json automatic_baseline(const Pipeline& pipeline) {
  json steps = json::array();
  for (const auto& f : pipeline.stages()) {
    if (f->is_scan())
      steps = concat_steps({steps, automatic_scan_steps(*f)});
    else if (f->is_reduction())
      steps =
          concat_steps({steps, block_per_point_steps(f->name, f->vars, reduction_vars(*f), kAutomaticBaselineThreads)});
    else if (!f->vars.empty())
      steps = concat_steps({steps, flat_grid_steps(f->name, f->vars, kAutomaticBaselineThreads)});
  }
  return steps;
}

json reference_schedule_steps(const Pipeline& pipeline, const SizeBindings& sizes) {
  json steps = json::array();
  for (const auto& f : pipeline.stages())
    if (f->is_scan())
      steps = concat_steps({steps, serial_scan_steps(f->name, f->vars, f->body->name, kAutomaticBaselineThreads)});
    else if (f->is_reduction() && few_long_reductions(*f, sizes))
      steps =
          concat_steps({steps, block_per_point_steps(f->name, f->vars, reduction_vars(*f), kAutomaticBaselineThreads)});
    else if (!f->vars.empty())
      steps = concat_steps({steps, flat_grid_steps(f->name, f->vars, kAutomaticBaselineThreads)});
  return steps;
}

Schedule reference_schedule(const ScheduleContext& ctx) {
  return Schedule::from_json(ctx, reference_schedule_steps(ctx.pipeline, ctx.sizes));
}

json baseline_schedule_of(const Problem& problem) {
  return empty_schedule(problem.baseline_schedule) ? automatic_baseline(problem.pipeline) : problem.baseline_schedule;
}

json best_schedule_of(const Problem& problem) {
  return empty_schedule(problem.best_schedule) ? baseline_schedule_of(problem) : problem.best_schedule;
}

}  // namespace cusched
