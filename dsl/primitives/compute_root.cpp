#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef compute_root_primitive() {
  PrimitiveDef p;
  p.name = "compute_root";
  p.summary =
      "Computes the stage over its whole domain, in its own kernel, into a global buffer (the default for every "
      "stage). Use it to undo compute_at or compute_inline, or to split a pipeline into several launches.";
  p.args = {stage_arg(true)};
  p.before = "for i (blockIdx.x): M_s = ...; Y[i, ...] = ...";
  p.after = "kernel 1: for i: M[i] = ...\nkernel 2: for i: Y[i, ...] = ... M[i] ...";
  p.example = R"({"op": "compute_root", "stage": "M"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    StageSchedule& s = st.stage(step["stage"]);
    s.location = ComputeLocation::Root;
    s.at_stage.clear();
    s.at_loop.clear();
  };
  return p;
}

}  // namespace cusched
