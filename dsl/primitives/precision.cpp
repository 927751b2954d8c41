#include "dsl/error.h"
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
      "stage's f32 exp, log, tanh and division become the GPU's approximate intrinsics (__expf, __logf, tanh.approx, "
      "__fdividef), and sigmoid, softplus, log1p, expm1, sin and cos the forms built on them (__sinf, __cosf), which "
      "the CPU "
      "interpreter evaluates exactly; only the GPU's verification against the float64 reference sees their error.";
  p.args = {stage_arg(true), enum_arg("operands", {"f32", "tf32", "bf16", "f16"}, "Operand precision."),
            enum_arg("math", {"exact", "fast"},
                     "exp, log, tanh, f32 division and the functions built on them: exact (IEEE, as libdevice) or fast "
                     "(approximate intrinsics).",
                     false, "exact")};
  p.before = "acc += A[i,k] * B[k,j]";
  p.after = "acc += tf32(A[i,k]) * tf32(B[k,j])";
  p.example = R"({"op": "precision", "stage": "C", "operands": "tf32"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"];
    StageSchedule& s = st.stage(stage);
    const Precision prec = parse_precision(step["operands"]);
    if (prec != Precision::f32) {
      // Rounding operands is a contraction's choice: elsewhere (an exp of x - max, a
      // normalisation) it rounds values before a cancellation and loses every digit the
      // cancellation keeps.
      const FuncDef* f = st.stage_def(stage);
      if (f && !f->is_sum_of_products())
        fail("precision-needs-products",
             "Stage '" + stage + "' is not a sum of products, so rounding its operands to " + precision_name(prec) +
                 " rounds values before the arithmetic that follows (a subtraction, an exp) instead of the factors of "
                 "a product.",
             "Give a lower operand precision only to contractions (C(i, j) = sum(k, A(i, k) * B(k, j))); keep this "
             "stage in f32.");
      require_precision_within_tolerance(prec, st.ctx.atol, st.ctx.rtol, stage);
    }
    s.precision = prec;
    s.math = step["math"];
  };
  return p;
}

}  // namespace cusched
