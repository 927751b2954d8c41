#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef fuse_primitive() {
  PrimitiveDef p;
  p.name = "fuse";
  p.summary =
      "Fuses two adjacent loops, outer directly outside inner, into one loop of the product extent: outer = "
      "fused / extent(inner), inner = fused % extent(inner). Use it to flatten a multi-dimensional domain before "
      "splitting it across blocks and threads.";
  p.args = {stage_arg(false), name_arg("outer", "The outer loop."), name_arg("inner", "The loop directly inside it."),
            name_arg("fused", "Name of the fused loop (default outer + inner).", false)};
  p.before = "for i in 0..64:\n  for j in 0..32:\n    C[i,j] = ...";
  p.after = "for ij in 0..2048:\n  C[ij/32, ij%32] = ...";
  p.example = R"({"op": "fuse", "stage": "C", "outer": "i", "inner": "j", "fused": "ij"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "outer");
    StageSchedule& s = st.stage(stage);
    std::string outer = step["outer"], inner = step["inner"];
    if (step["fused"].is_null()) step["fused"] = outer + inner;
    std::string fused = step["fused"];
    LoopInfo& o = require_loop(s, outer);
    LoopInfo& i = require_loop(s, inner);
    require_unbound(o, "fuse");
    require_unbound(i, "fuse");
    require_loop_not_referenced(st, stage, outer, "fuse");
    require_loop_not_referenced(st, stage, inner, "fuse");
    if (outer == inner) fail("loop-used-twice", "fuse names loop '" + outer + "' twice.", "Fuse two different loops.");
    if (s.position(inner) != s.position(outer) + 1)
      fail("fuse-not-adjacent", "Loop '" + inner + "' is not directly inside loop '" + outer + "'.",
           "Reorder them so that inner directly follows outer, then fuse.");
    if (o.reduction != i.reduction)
      fail("fuse-mixed-loops", "fuse cannot join a reduction loop with a pure loop ('" + outer + "', '" + inner + "').",
           "Fuse pure loops with pure loops and reduction loops with reduction loops.");
    if (o.kind != LoopKind::Serial || i.kind != LoopKind::Serial)
      fail("fuse-marked-loop", "fuse needs serial loops; one of them is unrolled or vectorized.",
           "Fuse before unroll or vectorize.");
    require_fresh_loop_name(s, fused);
    LoopInfo f = o;
    f.name = fused;
    f.extent = o.extent * i.extent;
    int pos = s.position(outer);
    s.order.erase(s.order.begin() + pos, s.order.begin() + pos + 2);
    s.order.insert(s.order.begin() + pos, fused);
    int64_t inner_extent = i.extent;
    s.loops.erase(outer);
    s.loops.erase(inner);
    s.loops[fused] = f;
    s.used_names.insert(fused);
    s.relations.push_back({LoopRelation::Fuse, outer, inner, fused, inner_extent});
  };
  return p;
}

}  // namespace cusched
