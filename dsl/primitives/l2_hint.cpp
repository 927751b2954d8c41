#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef l2_hint_primitive() {
  PrimitiveDef p;
  p.name = "l2_hint";
  p.summary =
      "Gives the global loads of one input in the stage's kernel an L2 eviction priority (PTX createpolicy and "
      "ld.global.L2::cache_hint): evict_last keeps the lines that the loads bring in longer than others, for a later "
      "kernel that reads the same data (LayerNorm's normalisation reading X after its statistics did), evict_first "
      "lets them go first (data read once). `percent` applies the priority to that share of the input's cache lines "
      "(the rest keep theirs), so that the kept part fits in L2. Values never change: the hint only steers the cache. "
      "f32 inputs; the stage must be computed at root (the hint belongs to its kernel).";
  p.args = {stage_arg(true), name_arg("source", "The input tensor whose loads carry the priority."),
            enum_arg("policy", {"evict_last", "evict_first", "evict_normal"}, "The L2 eviction priority."),
            int_arg("percent", "Share of the input's cache lines the priority applies to (1..100).", false, 100)};
  p.before = "x = X[i]";
  p.after = "x = ld.global.nc.L2::cache_hint(&X[i], createpolicy.fractional.L2::evict_last(0.05))";
  p.example = R"({"op": "l2_hint", "stage": "Moments_rf", "source": "X", "policy": "evict_last", "percent": 5})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    const std::string stage = step["stage"], source = step["source"];
    StageSchedule& s = st.stage(stage);
    const FuncDef* f = st.stage_def(stage);
    const TensorDef* input = st.ctx.pipeline.find_input(source);
    if (!input)
      fail("l2-hint-not-input",
           "'" + source + "' is not an input tensor of the pipeline; l2_hint steers the loads of inputs.",
           "Name one of the pipeline's input tensors.");
    if (!loads_from(f->body, source))
      fail("l2-hint-not-read", "Stage '" + stage + "' does not read '" + source + "'.",
           "Name an input that the stage reads.");
    if (input->dtype != DType::f32)
      fail("l2-hint-dtype",
           "Input '" + source + "' holds " + dtype_name(input->dtype) + " elements; l2_hint handles f32 inputs.",
           "Leave the loads of this input without a hint.");
    const int64_t percent = step["percent"];
    if (percent < 1 || percent > 100)
      fail("bad-l2-hint-percent", "percent " + std::to_string(percent) + " is outside 1..100.", "Use 1 to 100.");
    s.l2_hints[source] = L2Hint{step["policy"].get<std::string>(), percent};
  };
  return p;
}

}  // namespace cusched
