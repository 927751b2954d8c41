#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef block_raster_primitive() {
  PrimitiveDef p;
  p.name = "block_raster";
  p.summary =
      "Launches the blocks of a stage whose loops are bound to blockIdx.x and blockIdx.y in groups: the blocks "
      "that run one after another take the tiles of `group` consecutive blockIdx.x values, walking blockIdx.y "
      "within the group, so that the blocks running together read the same operand panels (a GEMM's rows of A and "
      "columns of B), whose re-reads L2 can serve. Each block computes the same tiles as before, in another order; "
      "blockIdx.z keeps its meaning. The "
      "stage must be computed at root and not in thread-block clusters.";
  p.args = {stage_arg(true), int_arg("group", "Consecutive blockIdx.x tiles per group (2..64).")};
  p.before = "tile (bx, by) = (blockIdx.x, blockIdx.y)";
  p.after = "b = blockIdx.y * gridDim.x + blockIdx.x; tiles in groups of `group` along x, y fastest within a group";
  p.example = R"({"op": "block_raster", "stage": "C", "group": 8})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    StageSchedule& s = st.stage(step["stage"]);
    const int64_t g = step["group"];
    if (g < 2 || g > 64)
      fail("bad-raster-group", "The raster group " + std::to_string(g) + " is outside 2..64.",
           "Use a group of 2 to 64 tiles along blockIdx.x, such as 8.");
    s.raster_group = static_cast<int>(g);
  };
  return p;
}

}  // namespace cusched
