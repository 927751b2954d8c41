#include "codegen/passes/passes.h"
#include "dsl/error.h"

namespace cusched {

void check_lowering_supported(const ScheduleState& state) {
  for (const auto& [name, s] : state.schedules) {
    if (s.pipeline_depth > 0 && s.pipeline_bulk)
      fail("lowering-unsupported", "Stage '" + name + "' asks for a software pipeline on the bulk copy engine, which the lowering does not generate yet.",
           "Use the pipeline's default engine, cp.async.");
    if (s.cache_write_scope == "shared")
      fail("lowering-unsupported", "Stage '" + name + "' asks for shared-memory accumulators, which the lowering does not generate yet.",
           "Use cache_write with scope register.");
  }
}

}  // namespace cusched
