#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

void split_loop(StageSchedule& s, const std::string& loop, int64_t factor, const std::string& outer,
                const std::string& inner) {
  LoopInfo& l = require_loop(s, loop);
  require_unbound(l, "split");
  if (factor <= 0)
    fail(
        "bad-factor", "The split factor of loop '" + loop + "' is " + std::to_string(factor) + "; it must be positive.",
        "Use a factor of at least 1, usually a power of two that divides the extent " + std::to_string(l.extent) + ".");
  if (l.kind != LoopKind::Serial)
    fail("split-marked-loop", "Loop '" + loop + "' is already unrolled or vectorized.",
         "Split it before unroll or vectorize.");
  if (outer == inner)
    fail("loop-used-twice", "A split cannot name both new loops '" + outer + "'.",
         "Give the outer and inner loops different names.");
  require_fresh_loop_name(s, outer);
  require_fresh_loop_name(s, inner);
  LoopInfo o = l, i = l;
  o.name = outer;
  o.extent = l.extent / factor + (l.extent % factor != 0 ? 1 : 0);
  i.name = inner;
  i.extent = factor;
  int pos = s.position(loop);
  s.order.erase(s.order.begin() + pos);
  s.order.insert(s.order.begin() + pos, {outer, inner});
  s.loops.erase(loop);
  s.loops[outer] = o;
  s.loops[inner] = i;
  s.used_names.insert(outer);
  s.used_names.insert(inner);
  s.relations.push_back({LoopRelation::Split, loop, outer, inner, factor});
}

PrimitiveDef split_primitive() {
  PrimitiveDef p;
  p.name = "split";
  p.summary =
      "Splits a loop of extent N into an outer loop of extent ceil(N/factor) and an inner loop of extent factor, "
      "iterating var = outer*factor + inner. A factor that does not divide N adds a bounds guard. Instead of a "
      "factor, `parts` asks for that many outer iterations (factor ceil(N/parts), whatever the problem size), "
      "for example one contiguous slice per block of a cluster. The first step of almost every GPU schedule: "
      "split, then bind the outer loop to blocks and the inner to threads.";
  p.args = {
      stage_arg(false),
      name_arg("loop", "The loop to split."),
      int_arg("factor", "Extent of the inner loop (> 0).", false),
      int_arg("parts",
              "Extent of the outer loop (> 0) when the inner extent is to follow the size: factor = ceil(N/parts).",
              false),
      name_arg("outer", "Name of the new outer loop (default: loop + \"o\").", false),
      name_arg("inner", "Name of the new inner loop (default: loop + \"i\").", false)};
  p.args[2].one_of = p.args[3].one_of = "size";
  p.before = "for i in 0..1024:\n  C[i] = A[i] + B[i]";
  p.after = "for io in 0..8:\n  for ii in 0..128:\n    C[io*128+ii] = A[io*128+ii] + B[io*128+ii]";
  p.example = R"({"op": "split", "stage": "C", "loop": "i", "factor": 128, "outer": "io", "inner": "ii"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    std::string loop = step["loop"];
    require_loop_not_referenced(st, stage, loop, "split");
    if (step["outer"].is_null()) step["outer"] = loop + "o";
    if (step["inner"].is_null()) step["inner"] = loop + "i";
    int64_t factor = 0;
    if (!step["factor"].is_null()) {
      factor = step["factor"].get<int64_t>();
    } else {
      const int64_t parts = step["parts"].get<int64_t>(), extent = require_loop(st.stage(stage), loop).extent;
      if (parts <= 0 || parts > extent)
        fail("bad-parts",
             "The split of loop '" + loop + "' (extent " + std::to_string(extent) + ") asks for " +
                 std::to_string(parts) + " parts; it must be between 1 and the extent.",
             "Use a part count from 1 to " + std::to_string(extent) + ".");
      factor = (extent + parts - 1) / parts;
      if ((extent + factor - 1) / factor != parts)
        fail("bad-parts",
             "Loop '" + loop + "' of extent " + std::to_string(extent) + " cannot be split into exactly " +
                 std::to_string(parts) + " parts of equal size (with a shorter last one).",
             "Use a part count that the extent allows, or a factor.");
    }
    split_loop(st.stage(stage), loop, factor, step["outer"], step["inner"]);
  };
  return p;
}

}  // namespace cusched
