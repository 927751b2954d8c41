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
    if (s.location != ComputeLocation::Root && !s.l2_hints.empty())
      fail("l2-hint-not-root",
           "Stage '" + f->name + "' has an l2_hint but is not computed at root, so it has no kernel of its own.",
           "Give the hint to the root stage of the kernel that computes it.");
    if (s.location == ComputeLocation::Root || output) {
      if (output && s.location != ComputeLocation::Root)
        fail("output-not-root", "Output stage '" + f->name + "' must be computed at root.",
             "Remove compute_at/compute_inline for it.");
      out.push_back(b.build(*f, static_cast<int>(out.size())));
    }
  }
  return out;
}

}  // namespace cusched
