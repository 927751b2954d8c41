#include <algorithm>

#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef tile_primitive() {
  PrimitiveDef p;
  p.name = "tile";
  p.summary =
      "Splits two loops x (outer) and y (inner) by their factors and orders the four results xo, yo, xi, yi: a 2-D "
      "tile. Use it for matmul and 2-D stencils, binding xo/yo to blocks and xi/yi to threads or a register tile.";
  p.args = {stage_arg(false),
            name_arg("x", "The outer of the two loops."),
            name_arg("y", "The inner of the two loops."),
            int_arg("x_factor", "Tile extent along x."),
            int_arg("y_factor", "Tile extent along y."),
            name_arg("xo", "Name of the outer x loop (default x + \"o\").", false),
            name_arg("yo", "Name of the outer y loop (default y + \"o\").", false),
            name_arg("xi", "Name of the inner x loop (default x + \"i\").", false),
            name_arg("yi", "Name of the inner y loop (default y + \"i\").", false)};
  p.before = "for i in 0..256:\n  for j in 0..256:\n    C[i,j] = ...";
  p.after =
      "for io in 0..8:\n  for jo in 0..4:\n    for ii in 0..32:\n      for ji in 0..64:\n        C[io*32+ii, jo*64+ji] "
      "= ...";
  p.example = R"({"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 32, "y_factor": 64})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "x");
    StageSchedule& s = st.stage(stage);
    std::string x = step["x"], y = step["y"];
    require_loop(s, y);
    require_loop_not_referenced(st, stage, x, "tile");
    require_loop_not_referenced(st, stage, y, "tile");
    if (x == y) fail("loop-used-twice", "tile names loop '" + x + "' as both x and y.", "Pass two different loops.");
    for (const char* k : {"xo", "yo", "xi", "yi"})
      if (step[k].is_null()) step[k] = std::string(k[0] == 'x' ? x : y) + k[1];
    if (s.position(x) > s.position(y))
      fail("tile-order", "In tile, x ('" + x + "') must be outside y ('" + y + "').",
           "Swap x and y, or reorder first.");
    split_loop(s, x, step["x_factor"].get<int64_t>(), step["xo"], step["xi"]);
    split_loop(s, y, step["y_factor"].get<int64_t>(), step["yo"], step["yi"]);
    // Order the four new loops xo, yo, xi, yi in the positions they occupy.
    std::vector<std::string> want = {step["xo"], step["yo"], step["xi"], step["yi"]};
    std::vector<int> pos;
    for (const auto& n : want) pos.push_back(s.position(n));
    std::sort(pos.begin(), pos.end());
    for (size_t i = 0; i < want.size(); ++i) s.order[pos[i]] = want[i];
  };
  return p;
}

}  // namespace cusched
