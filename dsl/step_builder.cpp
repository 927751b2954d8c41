#include "dsl/step_builder.h"

#include "dsl/schedule.h"

namespace cusched {

nlohmann::json schedule_step(const std::string& op, const std::string& stage, const std::vector<StepArg>& args) {
  nlohmann::json step = {{"op", op}};
  if (!stage.empty()) step["stage"] = stage;
  for (const auto& a : args) step[a.name()] = a.value();
  normalize_step(step);  // the registry's check of names, types and choices; throws on a mismatch
  return step;
}

}  // namespace cusched
