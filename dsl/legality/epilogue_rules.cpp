// Rules on a stage folded into a reduction's final store (fuse_epilogue): the conditions
// of the fold hold in the final state (a later compute_inline or compute_at can break
// them), and the folded stage takes no step of its own but precision (its math).
#include "dsl/epilogue.h"
#include "dsl/legality/legality_rules.h"

namespace cusched::legality {

void check_epilogue_rules(const Rules& r) {
  int last_placement = -1;
  for (const auto& [name, s] : r.st.schedules) last_placement = latest({last_placement, s.provenance.location});
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    if (s.epilogue_of.empty()) continue;
    const StageProvenance& pv = s.provenance;
    // Its precision and math are its own: the fold computes its expression with them.
    if (pv.last_but_arithmetic != pv.location)
      r.refuse(pv.last_but_arithmetic, "epilogue-stage-scheduled",
               "Stage '" + f->name + "' is folded into the final store of '" + s.epilogue_of +
                   "', so it has no loops or settings of its own to schedule (only its math, by precision).",
               "Schedule '" + s.epilogue_of + "' instead, or drop the fuse_epilogue step.");
    // A refusal here means a later step broke the fold: the latest placement is the one.
    if (auto refusal = epilogue_refusal(r.st, f->name))
      r.refuse(last_placement, refusal->code, refusal->message, refusal->hint);
  }
}

}  // namespace cusched::legality
