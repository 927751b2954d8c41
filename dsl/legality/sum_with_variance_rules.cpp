// Rules on a sum stored by a variance's kernel (sum_with_variance): the pairing's
// conditions hold in the final state (a later placement can break them), and the sum
// takes no step of its own.
#include "dsl/legality/legality_rules.h"
#include "dsl/sum_with_variance.h"

namespace cusched::legality {

void check_sum_with_variance_rules(const Rules& r) {
  int last_placement = -1;
  for (const auto& [name, s] : r.st.schedules) last_placement = latest({last_placement, s.provenance.location});
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    if (s.with_variance.empty()) continue;
    const StageProvenance& pv = s.provenance;
    if (pv.last_but_arithmetic != pv.location)
      r.refuse(pv.last_but_arithmetic, "sum-with-variance-stage-scheduled",
               "Stage '" + f->name + "' is stored by the kernel of '" + s.with_variance +
                   "', so it has no loops or settings of its own to schedule.",
               "Schedule '" + s.with_variance + "' instead, or drop the sum_with_variance step.");
    if (auto refusal = sum_with_variance_refusal(r.st, f->name, s.with_variance, true))
      r.refuse(last_placement, refusal->code, refusal->message, refusal->hint);
  }
}

}  // namespace cusched::legality
