#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef unroll_primitive() {
  PrimitiveDef p;
  p.name = "unroll";
  p.summary =
      "Fully unrolls a loop of constant extent (at most max_extent), so its index becomes a compile-time constant: "
      "register tiles stay in registers and independent loads can be issued together.";
  p.args = {stage_arg(false), name_arg("loop", "The loop to unroll."),
            int_arg("max_extent", "Largest extent accepted (a guard against code bloat).", false, 64)};
  p.before = "for ji in 0..4:\n  acc[ji] += a * B[k, j0+ji]";
  p.after = "acc[0] += a*B[k,j0]; acc[1] += a*B[k,j0+1]; acc[2] += ...; acc[3] += ...";
  p.example = R"({"op": "unroll", "stage": "C", "loop": "ji"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    LoopInfo& l = require_loop(st.stage(stage), step["loop"]);
    require_unbound(l, "unroll");
    int64_t max_extent = step["max_extent"];
    if (l.extent > max_extent)
      fail("unroll-too-large",
           "Loop '" + l.name + "' has extent " + std::to_string(l.extent) + ", above the unroll limit " +
               std::to_string(max_extent) + ".",
           "Split it and unroll the inner loop, or raise max_extent.");
    if (l.kind == LoopKind::Vectorized)
      fail("unroll-vectorized", "Loop '" + l.name + "' is vectorized.", "Unroll another loop.");
    l.kind = LoopKind::Unrolled;
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
