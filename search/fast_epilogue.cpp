#include "search/fast_epilogue.h"

#include <set>
#include <string>

#include "codegen/fast_math.h"
#include "dsl/primitives/precision_rules.h"
#include "dsl/step_builder.h"

namespace cusched::search {

Sketch with_fast_epilogue(const Problem& problem, Sketch sketch) {
  if (!sketch.schedule.is_array()) return sketch;
  std::set<std::string> contractions;
  bool lower_precision = false;
  for (const auto& step : sketch.schedule) {
    if (step.value("op", "") != "tensor_core") continue;
    contractions.insert(step.value("stage", ""));
    const auto precision = precision_from_name(step.value("precision", ""));
    lower_precision |= precision && coarser_than_x3tf32(*precision);
  }
  if (!lower_precision) return sketch;
  bool changed = false;
  for (const auto& f : problem.pipeline.stages()) {
    if (contractions.count(f->name) || !has_fast_math_operation(f->body)) continue;
    bool found = false;
    for (auto& step : sketch.schedule)
      if (step.value("op", "") == "precision" && step.value("stage", "") == f->name) {
        step["math"] = "fast";
        found = true;
      }
    // First: the stage's arithmetic, set before the steps that fold or inline it.
    if (!found)
      sketch.schedule.insert(sketch.schedule.begin(),
                             schedule_step("precision", f->name, {{"operands", "f32"}, {"math", "fast"}}));
    changed = true;
  }
  if (changed) sketch.idea += "; the other stages' exp, log, tanh and division in fast form (approximate intrinsics)";
  return sketch;
}

}  // namespace cusched::search
