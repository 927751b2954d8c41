#include "dsl/primitives/arg_helpers.h"
#include "dsl/primitives/precision_rules.h"

namespace cusched {

PrimitiveDef precision_primitive() {
  PrimitiveDef p;
  p.name = "precision";
  p.summary =
      "Chooses the precision in which a stage's multiplication operands are rounded: f32 (exact float), tf32 (10-bit "
      "mantissa, what tensor cores read from f32), bf16 or f16. Accumulation stays in f32. Legal only when the "
      "problem's tolerance admits the rounding; every result records the precision it used. With math \"fast\" the "
      "stage's f32 exp, log and division become the GPU's approximate intrinsics (__expf, __logf, __fdividef), which "
      "the CPU interpreter evaluates exactly; only the GPU's verification against the float64 reference sees their "
      "error.";
  p.args = {stage_arg(true), enum_arg("operands", {"f32", "tf32", "bf16", "f16"}, "Operand precision."),
            enum_arg("math", {"exact", "fast"}, "exp, log and f32 division: exact (IEEE, as libdevice) or fast (approximate intrinsics).",
                     false, "exact")};
  p.before = "acc += A[i,k] * B[k,j]";
  p.after = "acc += tf32(A[i,k]) * tf32(B[k,j])";
  p.example = R"({"op": "precision", "stage": "C", "operands": "tf32"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"];
    StageSchedule& s = st.stage(stage);
    std::string prec = step["operands"];
    if (prec != "f32") require_precision_within_tolerance(prec, st.ctx.atol, st.ctx.rtol, stage);
    s.precision = prec;
    s.math = step["math"];
  };
  return p;
}

}  // namespace cusched
