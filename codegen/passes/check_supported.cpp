#include "codegen/passes/passes.h"
#include "dsl/error.h"

namespace cusched {

void check_lowering_supported(const ScheduleState& state) {
  for (const auto& [name, s] : state.schedules) {
    if (s.pipeline_depth > 0)
      fail("lowering-unsupported", "Stage '" + name + "' asks for a software pipeline, which the lowering does not generate yet.",
           "Remove the pipeline step; cache_read still stages the copies synchronously.");
    if (s.cache_write_scope == "shared")
      fail("lowering-unsupported", "Stage '" + name + "' asks for shared-memory accumulators, which the lowering does not generate yet.",
           "Use cache_write with scope register.");
  }
}

}  // namespace cusched
