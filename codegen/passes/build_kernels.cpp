// build_kernels: one kernel per root stage (and per output stage, which must be at
// root), each built by the lowering units of codegen/lowering/ (kernel_builder.h lists
// them with the primitives whose schedule state each realizes).
#include "codegen/lowering/kernel_builder.h"
#include "codegen/passes/passes.h"
#include "dsl/error.h"

namespace cusched {

std::vector<Kernel> build_kernels(const ScheduleState& state, const std::vector<BufferSpec>& globals) {
  lowering::KernelBuilder b(state, globals);
  std::vector<Kernel> out;
  for (const auto& f : state.stages) {
    const StageSchedule& s = state.schedules.at(f->name);
    bool output = state.is_output(f->name);
    if (!s.epilogue_of.empty()) continue;    // folded into its reduction's kernel (fuse_epilogue)
    if (!s.with_variance.empty()) continue;  // stored by its variance's kernel (sum_with_variance)
    if (s.location == ComputeLocation::Root || output) {
      out.push_back(b.build(*f, static_cast<int>(out.size())));
    }
  }
  return out;
}

}  // namespace cusched
