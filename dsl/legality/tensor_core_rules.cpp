// Rules on a tensor-core stage's tile: its three innermost loops are the last two pure
// loops and the last reduction loop, unbound and with nothing placed inside them; the
// loops between the first reduction loop and the tile pick a warp's tile (thread
// axes other than threadIdx.x, which holds the lanes); no cross-thread reduction; the
// warpgroup instruction takes tf32 or 3xtf32 operands, and in 3xtf32 only the loops that
// pick a warpgroup's tile are bound to threads.
#include <algorithm>
#include <set>

#include "dsl/legality/legality_rules.h"

namespace cusched::legality {

void check_tensor_core_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    if (s.tensor_core_shape.empty() || !f->is_reduction() || !r.built(f->name)) continue;
    const StageProvenance& pv = s.provenance;
    const std::string& stage = f->name;
    const int nl = static_cast<int>(s.order.size());
    std::vector<int> pure, red;
    for (int q = 0; q < nl; ++q) (s.loops.at(s.order[q]).reduction ? red : pure).push_back(q);
    if (pure.size() < 2 || red.empty()) continue;  // the tensor_core step refuses such stages
    const int r0 = red.front(), qm = pure[pure.size() - 2], qn = pure.back(), qk = red.back();
    const std::set<int> tile = {qm, qn, qk};
    const int shaped = latest({pv.tensor_core, pv.order});
    auto loop = [&](int q) -> const LoopInfo& { return s.loops.at(s.order[q]); };
    if (*tile.begin() != nl - 3)
      r.refuse(shaped, "tensor-core-loops-not-innermost",
               "The tensor-core loops of stage '" + stage + "' (" + s.order[qm] + ", " + s.order[qn] + ", " +
                   s.order[qk] + ") are not its three innermost loops.",
               "Reorder the stage so that its last two pure loops and its last reduction loop come last.");
    for (const auto& n : s.order)
      if (s.loops.at(n).axis == GpuAxis::ThreadX)
        r.refuse(latest({pv.tensor_core, pv.binding_of(n)}), "tensor-core-uses-thread-x",
                 "Stage '" + stage + "' binds loop '" + n +
                     "' to threadIdx.x, which tensor_core needs for the lanes of each warp (warpgroup).",
                 "Bind the loops that pick a warp's tile to threadIdx.y and threadIdx.z.");
    for (int q : tile)
      if (loop(q).axis != GpuAxis::None)
        r.refuse(latest({shaped, pv.binding_of(s.order[q])}), "tensor-core-loop-bound",
                 "Loop '" + s.order[q] + "' of stage '" + stage + "' is part of the tensor-core tile but is bound to " +
                     gpu_axis_name(loop(q).axis) + ".",
                 "Leave the tile's loops serial or unrolled: each warp runs the whole tile.");
    for (int q = r0; q < nl - 3; ++q)
      if (!loop(q).reduction && !is_thread_axis(loop(q).axis))
        r.refuse(shaped, "tensor-core-extra-pure-loop",
                 "Pure loop '" + s.order[q] + "' of stage '" + stage +
                     "' is inside its reduction loops but outside the tensor-core tile and not bound to a thread axis.",
                 "Move it outside the reduction loops, bind it to threadIdx.y or threadIdx.z, or fold it into the tile "
                 "with fuse.");
    if (!s.cross_thread_loop.empty() || !s.cross_cluster_loop.empty())
      r.refuse(latest({pv.tensor_core, pv.cross_thread}), "tensor-core-cross-thread",
               "Stage '" + stage + "' asks for both tensor cores and a cross-thread reduction.",
               "Drop cross_thread_reduce; split K across blocks with rfactor instead.");
    for (int q : tile) {
      const std::string& n = s.order[q];
      int placed = -2;  // the step of the placement; -2 when nothing is placed at n
      for (const auto& cr : s.cache_reads)
        if (cr.at_loop == n) placed = std::max(placed, pv.cache_read_of(cr.source));
      for (const auto& [pname, ps] : r.st.schedules)
        if (ps.location == ComputeLocation::At && ps.at_stage == stage && ps.at_loop == n)
          placed = std::max(placed, ps.provenance.location);
      if (placed != -2)
        r.refuse(latest({shaped, placed}), "tensor-core-placement-inside-tile",
                 "Something is computed or staged at loop '" + n + "', inside the tensor-core tile of stage '" + stage +
                     "'.",
                 "Make copies and producers at a loop outside the tile (the reduction's outer loop).");
    }
    if (s.tensor_core_shape == "m64nNk8" && s.precision != Precision::tf32 && s.precision != Precision::x3tf32)
      r.refuse(latest({pv.tensor_core, pv.precision}), "tensor-core-shape-precision",
               "Stage '" + stage + "' uses m64nNk8 with " + precision_name(s.precision) + " operands.",
               "Use m64nNk8 with tf32 or 3xtf32 operands, or m64nNk16 with bf16 or f16.");
    if (s.tensor_core_shape == "m64nNk16" && s.precision != Precision::bf16 && s.precision != Precision::f16)
      r.refuse(latest({pv.tensor_core, pv.precision}), "tensor-core-shape-precision",
               "Stage '" + stage + "' uses m64nNk16 with " + precision_name(s.precision) + " operands.",
               "Use m64nNk16 with bf16 or f16 operands, or m64nNk8 with tf32 or 3xtf32.");
    // 3xtf32 on m64nNk8: the block's threads are the warpgroups of the tile, which split B's tile together.
    if (s.tensor_core_shape == "m64nNk8" && s.precision == Precision::x3tf32)
      for (int q = 0; q < r0; ++q)
        if (is_thread_axis(loop(q).axis))
          r.refuse(latest({pv.tensor_core, pv.precision, pv.binding_of(s.order[q])}), "wgmma-3xtf32-threads",
                   "Stage '" + stage + "' computes in 3xtf32 on m64nNk8, but its loop '" + s.order[q] +
                       "' is bound to a thread axis outside the loops that pick a warpgroup's tile.",
                   "Bind only the loops between the first reduction loop and the tile to threadIdx.y and "
                   "threadIdx.z, or use precision tf32.");
  }
}

}  // namespace cusched::legality
