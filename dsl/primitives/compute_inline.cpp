#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef compute_inline_primitive() {
  PrimitiveDef p;
  p.name = "compute_inline";
  p.summary =
      "Substitutes a pointwise stage's expression into every use, so it is never stored: the standard way to fuse "
      "elementwise epilogues (bias, activation) into the stage that consumes them.";
  p.args = {stage_arg(true)};
  p.before = "T[i] = A[i] * 2\nY[i] = max(T[i], 0)";
  p.after = "Y[i] = max(A[i] * 2, 0)";
  p.example = R"({"op": "compute_inline", "stage": "T"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"];
    StageSchedule& s = st.stage(stage);
    const FuncDef* f = st.stage_def(stage);
    if (f->is_reduction())
      fail("inline-reduction", "Stage '" + stage + "' is a reduction and cannot be inlined.",
           "Use compute_at to fuse it into its consumer instead.");
    if (st.is_output(stage))
      fail("inline-output", "Stage '" + stage + "' is an output of the pipeline and must be stored.",
           "Inline its producers instead.");
    for (const auto& [name, other] : st.schedules)
      if (other.location == ComputeLocation::At && other.at_stage == stage)
        fail("inline-hosts-producer",
             "Stage '" + name + "' is computed at a loop of '" + stage + "', which would disappear.",
             "Move '" + name + "' elsewhere first.");
    s.location = ComputeLocation::Inline;
  };
  return p;
}

}  // namespace cusched
