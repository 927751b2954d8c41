#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef reverse_primitive() {
  PrimitiveDef p;
  p.name = "reverse";
  p.summary =
      "Runs a pure loop from its last iteration to its first: a new loop r of the same extent N iterates var = "
      "N-1-r. Bound to a block axis, it reverses the order in which blocks are issued (for example to read first "
      "what the previous kernel read last). Reduction loops keep their order.";
  p.args = {stage_arg(false), name_arg("loop", "The pure loop to reverse."),
            name_arg("name", "Name of the reversed loop (default loop + \"_rev\").", false)};
  p.before = "for h in 0..256:\n  Y[h] = f(X[h])";
  p.after = "for h_rev in 0..256:\n  Y[255-h_rev] = f(X[255-h_rev])";
  p.example = R"({"op": "reverse", "stage": "Y", "loop": "ho", "name": "ho_rev"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    std::string loop = step["loop"];
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, loop);
    require_unbound(l, "reverse");
    require_loop_not_referenced(st, stage, loop, "reverse");
    if (l.reduction)
      fail("reverse-reduction-loop",
           "Loop '" + loop + "' is a reduction loop; reversing it would change the order in which values combine.",
           "Reverse a pure loop (for example the block loop of the consumer).");
    if (l.kind != LoopKind::Serial)
      fail("reverse-marked-loop", "Loop '" + loop + "' is already unrolled or vectorized.",
           "Reverse it before unroll or vectorize.");
    if (step["name"].is_null()) step["name"] = loop + "_rev";
    std::string name = step["name"];
    require_identifier(name, "loop");
    require_fresh_loop_name(s, name);
    LoopInfo r = l;
    r.name = name;
    s.order[s.position(loop)] = name;
    s.loops.erase(loop);
    s.loops[name] = r;
    s.used_names.insert(name);
    s.relations.push_back({LoopRelation::Reverse, loop, name, "", r.extent});
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
