// Rules on the stages that become kernels: outputs at root, L2 hints on kernels,
// block loops outermost, a block raster over one loop on blockIdx.x and one on blockIdx.y.
#include "dsl/legality/legality_rules.h"

namespace cusched::legality {

void check_kernel_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    const StageProvenance& pv = s.provenance;
    const bool output = r.st.is_output(f->name);
    if (s.location != ComputeLocation::Root && !s.l2_hints.empty())
      r.refuse(latest({pv.location, pv.l2_hint}), "l2-hint-not-root",
               "Stage '" + f->name + "' has an l2_hint but is not computed at root, so it has no kernel of its own.",
               "Give the hint to the root stage of the kernel that computes it.");
    if (output && s.location != ComputeLocation::Root)
      r.refuse(pv.location, "output-not-root", "Output stage '" + f->name + "' must be computed at root.",
               "Remove compute_at/compute_inline for it.");
    if (s.raster_group > 0) {
      // (A cluster spans blockIdx.x, which cluster-with-block-x keeps from other loops.)
      const int x = s.loops_on(GpuAxis::BlockX), y = s.loops_on(GpuAxis::BlockY);
      int bound = pv.raster;  // the step that last bound a loop of the stage
      for (const auto& n : s.order)
        if (s.loops.at(n).axis != GpuAxis::None) bound = std::max(bound, pv.binding_of(n));
      if (s.location != ComputeLocation::Root)
        r.refuse(
            latest({pv.raster, pv.location}), "raster-not-root",
            "Stage '" + f->name + "' has a block_raster but is not computed at root, so it has no blocks of its own.",
            "Give the raster to the root stage of the kernel.");
      else if (x != 1 || y != 1)
        r.refuse(
            latest({pv.raster, bound, pv.order}), "raster-needs-two-block-axes",
            "Stage '" + f->name + "' has a block_raster but " +
                (x != 1 ? std::to_string(x) + " loops on blockIdx.x" : std::to_string(y) + " loops on blockIdx.y") +
                "; the raster orders the tiles of one loop on each.",
            "Bind one loop to blockIdx.x and one to blockIdx.y (fuse loops first), or remove the block_raster.");
    }
    if (s.location != ComputeLocation::Root) continue;
    bool seen_other = false;
    for (const auto& n : s.order) {
      const bool block = is_block_axis(s.loops.at(n).axis);
      if (block && seen_other)
        r.refuse(
            latest({pv.order, pv.binding_of(n)}), "block-loop-not-outermost",
            "Loop '" + n + "' of stage '" + f->name + "' is bound to a block axis but is inside a loop that is not.",
            "Reorder the stage so that its blockIdx loops come first.");
      seen_other |= !block;
    }
  }
}

}  // namespace cusched::legality
