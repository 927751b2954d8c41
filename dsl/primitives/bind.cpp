#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

static std::vector<std::string> axis_names() {
  return {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z", "cluster.x"};
}

void require_cluster_extent(const LoopInfo& l) {
  if (l.extent < 2 || l.extent > kMaxClusterBlocks)
    fail("cluster-extent",
         "Loop '" + l.name + "' has extent " + std::to_string(l.extent) + "; a thread-block cluster has 2 to " +
             std::to_string(kMaxClusterBlocks) + " blocks.",
         "Split the loop so that the part bound to cluster.x has 2, 4, 8 or 16 iterations (split ... parts).");
}

PrimitiveDef bind_primitive() {
  PrimitiveDef p;
  p.name = "bind";
  p.summary =
      "Binds a pure loop to a GPU grid axis: blockIdx.* loops become the launch grid, threadIdx.* loops the thread "
      "block (their extents multiply to at most 1024). Block-bound loops must be outside every other loop of the "
      "stage. cluster.x makes the kernel's blocks along x one thread-block cluster of the loop's extent (2 to 16 "
      "blocks, more than 8 being a non-portable size that H100 and H200 run, that run at the same time and can combine "
      "reductions with cross_thread_reduce kind \"cluster\"); "
      "such a kernel binds no loop to blockIdx.x. A reduction loop cannot be bound: split it and use "
      "cross_thread_reduce, or rfactor first.";
  p.args = {stage_arg(false), name_arg("loop", "The loop to bind."), enum_arg("axis", axis_names(), "The GPU axis.")};
  p.before = "for io in 0..8:\n  for ii in 0..128:\n    C[io*128+ii] = ...";
  p.after = "C[blockIdx.x*128 + threadIdx.x] = ...   // grid (8), block (128)";
  p.example = R"({"op": "bind", "loop": "io", "axis": "blockIdx.x"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, step["loop"]);
    GpuAxis axis = *gpu_axis_from_name(step["axis"]);
    if (l.reduction) {
      if (is_block_axis(axis))
        fail("reduction-loop-on-block-axis",
             "Loop '" + l.name + "' reduces into " + stage + "; binding it to " + gpu_axis_name(axis) + " would race.",
             "Split it and use cross_thread_reduce, or rfactor first.");
      fail("reduction-loop-on-thread-axis",
           "Loop '" + l.name + "' reduces into " + stage + "; binding it to " + gpu_axis_name(axis) +
               " alone would race between threads.",
           "Use cross_thread_reduce on it, which binds it and combines the threads' partial results.");
    }
    require_unbound(l, "bind");
    if (l.kind != LoopKind::Serial)
      fail("bind-marked-loop", "Loop '" + l.name + "' is unrolled or vectorized and cannot be bound.",
           "Bind another loop.");
    for (const auto& [name, other] : s.loops)
      if (other.axis == axis)
        fail("axis-bound-twice",
             "Stage '" + stage + "' already binds loop '" + name + "' to " + gpu_axis_name(axis) + ".",
             "Bind each GPU axis once per stage, or fuse the loops first.");
    if (is_thread_axis(axis) && l.extent > 1024)
      fail("too-many-threads",
           "Loop '" + l.name + "' has extent " + std::to_string(l.extent) +
               ", more threads than a block can have (1024).",
           "Split it first and bind the inner loop.");
    if (axis == GpuAxis::ClusterX) require_cluster_extent(l);
    if (is_thread_axis(axis)) {
      int64_t threads = l.extent;
      for (const auto& [name, other] : s.loops)
        if (is_thread_axis(other.axis)) threads *= other.extent;
      if (threads > 1024)
        fail("too-many-threads",
             "Binding loop '" + l.name + "' makes a block of " + std::to_string(threads) +
                 " threads; a block can have at most 1024.",
             "Split the thread-bound loops so that their extents multiply to at most 1024.");
    }
    l.axis = axis;
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
