// Rules on the stages that become kernels: outputs at root, L2 hints on kernels,
// block loops outermost.
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
