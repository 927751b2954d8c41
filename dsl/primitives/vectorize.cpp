#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef vectorize_primitive() {
  PrimitiveDef p;
  p.name = "vectorize";
  p.summary =
      "Turns the innermost loop into one vector access of up to 16 bytes (float2/float4): its extent must be a power "
      "of two whose elements fit in 16 bytes. Contiguous, aligned loads and stores along the loop become single "
      "LDG.128/STG.128 instructions; other accesses are unrolled. A reduction loop may be vectorized too: its "
      "contiguous loads become one vector access and its lanes update the accumulator one after another, in the "
      "order the serial loop would.";
  p.args = {stage_arg(false), name_arg("loop", "The innermost loop of the stage.")};
  p.before = "for vi in 0..4:\n  Y[4*t + vi] = relu(X[4*t + vi])";
  p.after = "float4 x = *(float4*)&X[4*t];  Y4[t] = relu4(x)";
  p.example = R"({"op": "vectorize", "stage": "Y", "loop": "vi"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, step["loop"]);
    require_unbound(l, "vectorize");
    if (s.order.back() != l.name)
      fail("vectorize-not-innermost",
           "Loop '" + l.name + "' is not the innermost loop of stage '" + stage + "' ('" + s.order.back() + "' is).",
           "Reorder so that it is innermost, then vectorize.");
    const FuncDef* f = st.stage_def(stage);
    int bytes = dtype_bytes(f ? f->dtype : DType::f32);
    if (!is_power_of_two(l.extent) || l.extent < 2 || l.extent * bytes > 16)
      fail("vectorize-bad-extent",
           "Loop '" + l.name + "' has extent " + std::to_string(l.extent) +
               "; a vector needs a power of two from 2 up to " + std::to_string(16 / bytes) + " elements (16 bytes).",
           "Split the loop by 2, 4 or 8 (16 bytes of this type at most) and vectorize the inner loop.");
    l.kind = LoopKind::Vectorized;
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
