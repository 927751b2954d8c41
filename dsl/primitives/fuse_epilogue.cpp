#include "dsl/epilogue.h"
#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef fuse_epilogue_primitive() {
  PrimitiveDef p;
  p.name = "fuse_epilogue";
  p.summary =
      "Folds a pointwise stage into the final store of the reduction it reads (a GEMM's bias, scale and activation "
      "into the GEMM's kernel): the reduction's values go from its accumulators through the stage's expression "
      "straight into the stage's buffer, and neither the reduction's values nor a second kernel touch global "
      "memory. The stage, computed at root and otherwise unscheduled, must read (its inlined producers expanded) "
      "exactly one stage, a reduction at root that nothing else reads, at its own point; the reduction keeps its "
      "own schedule (tiles, tensor cores, shared output tile), and the stage takes no further steps but precision "
      "(its math: exact or fast), before or after the fold.";
  p.args = {stage_arg(true)};
  p.before = "C[i,j] = sum(k, A[i,k] * B[k,j])\nY[i,j] = max(C[i,j] + bias[j], 0)";
  p.after = "for ...: acc += A[i,k] * B[k,j];  Y[i,j] = max(acc + bias[j], 0)";
  p.example = R"({"op": "fuse_epilogue", "stage": "Y"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    const std::string stage = step["stage"];
    StageSchedule& s = st.stage(stage);
    if (s.provenance.last_but_arithmetic >= 0)
      fail("epilogue-stage-scheduled",
           "Stage '" + stage + "' was scheduled by step " + std::to_string(s.provenance.last_but_arithmetic) +
               "; a folded stage runs in its reduction's loops and has none of its own.",
           "Fold the stage before any other step names it, and schedule its reduction instead.");
    if (auto refusal = epilogue_refusal(st, stage)) fail(refusal->code, refusal->message, refusal->hint);
    s.epilogue_of = epilogue_producer(st, stage);
  };
  return p;
}

}  // namespace cusched
