#include "search/variance_sums.h"

#include "dsl/schedule.h"
#include "dsl/step_builder.h"
#include "dsl/sum_with_variance.h"

namespace cusched::search {

Sketch with_sums_from_variances(const Problem& problem, Sketch sketch) {
  if (!sketch.schedule.is_array()) return sketch;
  const ScheduleState initial(problem.context(problem.default_size));
  for (const auto& f : problem.pipeline.stages()) {
    const std::string variance = variance_partner(initial, f->name);
    if (variance.empty()) continue;
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : sketch.schedule)
      if (step.value("stage", "") != f->name) steps.push_back(step);
    steps.push_back(schedule_step("sum_with_variance", f->name, {{"variance", variance}}));
    bool legal = true;
    for (const auto& [size, bindings] : problem.sizes)
      legal = legal && validate_schedule(problem.context(size), steps).ok;
    if (!legal) continue;
    sketch.schedule = std::move(steps);
    sketch.idea +=
        "; " + f->name + " stored by " + variance + "'s kernel from its Welford mean and count (sum_with_variance)";
  }
  return sketch;
}

}  // namespace cusched::search
