#include <algorithm>

#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef compute_at_primitive() {
  PrimitiveDef p;
  p.name = "compute_at";
  p.summary =
      "Computes a producer stage inside a loop of one consumer, just for the region that the consumer's iterations "
      "inside that loop read. At a block-bound loop the producer's values live in shared memory and are computed by "
      "the block's threads (a barrier follows); at a thread-bound or inner loop they live in registers. This fuses "
      "stages into one kernel, e.g. softmax's max and sum at the row loop of the normalisation. A consumer that reads "
      "the producer through inlined stages hosts it too (attention's scores, read through the inlined "
      "probabilities, computed at the output's query-row loop).";
  p.args = {stage_arg(true),
            name_arg("consumer", "A stage that reads the producer, directly or through inlined stages."),
            name_arg("loop", "The consumer's loop inside which the producer is computed.")};
  p.before = "for i: M[i] = max_j X[i,j]          // kernel 1\nfor i: for j: Y[i,j] = X[i,j] - M[i]  // kernel 2";
  p.after = "for i (blockIdx.x):\n  M_s = max_j X[i,j]        // shared\n  barrier\n  for j: Y[i,j] = X[i,j] - M_s";
  p.example = R"({"op": "compute_at", "stage": "M", "consumer": "Y", "loop": "i"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"], consumer = step["consumer"], loop = step["loop"];
    StageSchedule& s = st.stage(stage);
    StageSchedule& c = st.stage(consumer);
    if (st.is_output(stage))
      fail("compute-at-output", "Stage '" + stage + "' is an output of the pipeline and must be computed at root.",
           "Compute the output at root and move its producers inside it instead.");
    auto cons = st.consumers_of(stage);
    if (std::find(cons.begin(), cons.end(), consumer) == cons.end())
      fail("illegal-compute-at", "Stage '" + consumer + "' does not read stage '" + stage + "', so it cannot host it.",
           cons.empty() ? "Nothing reads this stage."
                        : "Compute it at a loop of a stage that reads it, such as '" + cons[0] + "'.");
    if (c.location == ComputeLocation::Inline)
      fail("illegal-compute-at", "Stage '" + consumer + "' is inlined and has no loops to host '" + stage + "'.",
           "Compute the consumer at root first.");
    require_loop(c, loop);
    s.location = ComputeLocation::At;
    s.at_stage = consumer;
    s.at_loop = loop;
  };
  return p;
}

}  // namespace cusched
