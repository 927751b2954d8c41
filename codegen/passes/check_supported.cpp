#include "codegen/passes/passes.h"
#include "dsl/error.h"

namespace cusched {

void check_lowering_supported(const ScheduleState& state) {
  for (const auto& [name, s] : state.schedules) {
    if (!s.tensor_core_shape.empty())
      fail("lowering-unsupported", "Stage '" + name + "' asks for tensor cores, which the lowering does not generate yet.",
           "Remove the tensor_core step (keep precision tf32 to get TF32 rounding on CUDA cores).");
    if (s.pipeline_depth > 0)
      fail("lowering-unsupported", "Stage '" + name + "' asks for a software pipeline, which the lowering does not generate yet.",
           "Remove the pipeline step; cache_read still stages the copies synchronously.");
    if (s.cache_write_scope == "shared")
      fail("lowering-unsupported", "Stage '" + name + "' asks for shared-memory accumulators, which the lowering does not generate yet.",
           "Use cache_write with scope register.");
  }
}

}  // namespace cusched
