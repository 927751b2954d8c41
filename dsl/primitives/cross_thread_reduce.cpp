#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef cross_thread_reduce_primitive() {
  PrimitiveDef p;
  p.name = "cross_thread_reduce";
  p.summary =
      "Binds a reduction loop to a thread axis and combines the threads' partial results: with kind \"warp\" by "
      "warp shuffles (extent a power of two up to 32), with kind \"block\" by shuffles within each warp and shared "
      "memory across warps (extent up to 1024), with kind \"cluster\" across the blocks of a thread-block cluster "
      "through distributed shared memory (the loop is bound to cluster.x; extent 2 to 16, the kernel's cluster). "
      "A stage may combine one loop across threads and one across the cluster; the threads combine first. "
      "Every thread ends with the total; one writes it. Serial reduction loops of the stage run in each thread "
      "before the combine.";
  p.args = {
      stage_arg(false), name_arg("loop", "A reduction loop of the stage."),
      enum_arg("axis", {"threadIdx.x", "threadIdx.y", "threadIdx.z"},
               "Thread axis for the loop (kinds warp and block; kind cluster binds cluster.x).", false, "threadIdx.x"),
      enum_arg("kind", {"warp", "block", "cluster"}, "How partial results are combined.")};
  p.before = "M[i] = max_{j in 0..N} X[i,j]     // after split j -> jo, jt (jt extent 256)";
  p.after =
      "m = max_{jo} X[i, jo*256 + threadIdx.x]   // per thread\nm = block_allreduce_max(m)\nif (threadIdx.x == 0) M[i] "
      "= m";
  p.example = R"({"op": "cross_thread_reduce", "stage": "M", "loop": "jt", "kind": "block"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, step["loop"]);
    if (!l.reduction)
      fail("cross-thread-pure-loop", "Loop '" + l.name + "' is not a reduction loop.", "Bind pure loops with bind.");
    require_unbound(l, "cross_thread_reduce");
    std::string kind = step["kind"];
    if (kind == "cluster") {
      if (!s.cross_cluster_loop.empty())
        fail("cross-cluster-twice",
             "Stage '" + stage + "' already combines loop '" + s.cross_cluster_loop + "' across the cluster.",
             "Fuse the reduction loops first, then combine the fused loop.");
      require_cluster_extent(l);
      for (const auto& [name, other] : s.loops)
        if (other.axis == GpuAxis::ClusterX)
          fail("axis-bound-twice", "Stage '" + stage + "' already binds loop '" + name + "' to cluster.x.",
               "Bind cluster.x once per stage.");
      l.axis = GpuAxis::ClusterX;
      s.cross_cluster_loop = l.name;
      step["stage"] = stage;
      return;
    }
    if (!s.cross_thread_loop.empty())
      fail("cross-thread-twice",
           "Stage '" + stage + "' already combines loop '" + s.cross_thread_loop + "' across threads.",
           "Fuse the reduction loops first, then combine the fused loop.");
    if (kind == "warp" && (!is_power_of_two(l.extent) || l.extent > 32))
      fail("warp-reduce-extent",
           "A warp reduction needs a power-of-two extent up to 32; loop '" + l.name + "' has " +
               std::to_string(l.extent) + ".",
           "Split the loop by 32 (or a smaller power of two), or use kind \"block\".");
    if (kind == "block" && (l.extent > 1024 || (l.extent % 32 != 0 && !is_power_of_two(l.extent))))
      fail("block-reduce-extent",
           "A block reduction needs an extent that is a multiple of 32 (or a power of two) up to 1024; loop '" +
               l.name + "' has " + std::to_string(l.extent) + ".",
           "Split the loop by 128, 256, 512 or 1024.");
    GpuAxis axis = *gpu_axis_from_name(step["axis"]);
    for (const auto& [name, other] : s.loops)
      if (other.axis == axis)
        fail("axis-bound-twice",
             "Stage '" + stage + "' already binds loop '" + name + "' to " + gpu_axis_name(axis) + ".",
             "Use another thread axis.");
    l.axis = axis;
    s.cross_thread_loop = l.name;
    s.cross_thread_kind = kind;
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
