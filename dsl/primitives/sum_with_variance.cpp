#include "dsl/sum_with_variance.h"

#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef sum_with_variance_primitive() {
  PrimitiveDef p;
  p.name = "sum_with_variance";
  p.summary =
      "Stores a sum stage from the kernel of the variance of the same values (a normalisation's sum and variance "
      "over the same rows), so that one pass over the values gives both: the variance's Welford accumulators "
      "carry the mean and the count, and its final store also writes the sum (mean x count) into the sum's "
      "buffer. The sum has no kernel of its own and takes no other step. Both are reductions at root of the same "
      "body over the same pure and reduction extents (variables matched by position); every kernel that reads "
      "the sum is built after the variance's (in the final schedule).";
  p.args = {stage_arg(true), name_arg("variance", "The variance stage whose kernel stores the sum.")};
  p.before = "S[i] = sum_j X[i,j]       // kernel 1\nQ[i] = variance_j X[i,j]  // kernel 2";
  p.after = "for i: (mean, m2, n) = welford_j X[i,j]\n       Q[i] = m2 / n;  S[i] = mean * n   // one kernel";
  p.example = R"({"op": "sum_with_variance", "stage": "S", "variance": "Q"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    const std::string stage = step["stage"], variance = step["variance"];
    StageSchedule& s = st.stage(stage);
    if (s.provenance.last_but_arithmetic >= 0)
      fail("sum-with-variance-stage-scheduled",
           "Stage '" + stage + "' was scheduled by step " + std::to_string(s.provenance.last_but_arithmetic) +
               "; a sum stored by the variance's kernel has no loops of its own.",
           "Pair the sum with its variance before any other step names it, and schedule '" + variance + "' instead.");
    if (!st.sum_with(variance).empty())
      fail("sum-with-variance-taken",
           "Stage '" + variance + "' already stores the sum '" + st.sum_with(variance) + "'.",
           "Pair each variance with one sum stage; compute the other sum from the first, or as a kernel of its own.");
    if (auto refusal = sum_with_variance_refusal(st, stage, variance, false))
      fail(refusal->code, refusal->message, refusal->hint);
    s.with_variance = variance;
  };
  return p;
}

}  // namespace cusched
