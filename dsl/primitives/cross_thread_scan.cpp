#include <algorithm>

#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"
#include "dsl/scan_loops.h"

namespace cusched {

PrimitiveDef cross_thread_scan_primitive() {
  PrimitiveDef p;
  p.name = "cross_thread_scan";
  p.summary =
      "Binds a loop of a scan stage's scanned variable to threadIdx.x and scans across the block's threads: each "
      "thread first scans the elements of the loops inside it in registers (the classic register-blocked scan), "
      "the threads' totals are scanned by warp shuffles (shfl_up) and across warps through shared memory, and "
      "each thread adds the prefix of the threads before it. Loops of the scanned variable outside it run one "
      "tile of the block after another, the running total carried from tile to tile. The extent must be a power "
      "of two up to 32 or a multiple of 32 up to 1024, and the loop must span the block.";
  p.args = {stage_arg(false), name_arg("loop", "A loop of the stage's scanned variable (after its splits).")};
  p.before = "Y[i, j] = cumsum_j X[i, j]   // after split j -> jo, jt, jv (jt extent 256, jv extent 4)";
  p.after =
      "carry = 0\nfor jo:\n  x[0..3] = X[i, (jo*256 + threadIdx.x)*4 + 0..3]; scan x in registers\n  "
      "prefix, total = block_exclusive_scan(x[3])\n  Y[i, ...] = carry + prefix + x[0..3]; carry += total";
  p.example = R"({"op": "cross_thread_scan", "stage": "Y", "loop": "jt"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, step["loop"]);
    const FuncDef& f = *st.stage_def(stage);
    if (!f.is_scan())
      fail("cross-thread-scan-not-scan", "Stage '" + stage + "' is not a scan (cumsum or cumprod).",
           "Use cross_thread_scan on a stage defined by a scan, cross_thread_reduce on a reduction.");
    ScanLoops sl = scan_loops(f, s);
    if (std::find(sl.loops.begin(), sl.loops.end(), l.name) == sl.loops.end())
      fail("cross-thread-scan-pure-loop",
           "Loop '" + l.name + "' of stage '" + stage + "' does not come from the scanned variable '" + f.body->name +
               "'.",
           "Name a loop split from '" + f.body->name + "'; bind other pure loops with bind.");
    require_unbound(l, "cross_thread_scan");
    if (!s.scan_thread_loop.empty())
      fail("cross-thread-twice",
           "Stage '" + stage + "' already scans loop '" + s.scan_thread_loop + "' across threads.",
           "Scan one loop of the scanned variable across threads; split it to give each thread several elements.");
    if (l.extent > 1024 || (l.extent % 32 != 0 && !is_power_of_two(l.extent)))
      fail("block-scan-extent",
           "A scan across threads needs a power-of-two extent up to 32 or a multiple of 32 up to 1024; loop '" +
               l.name + "' has " + std::to_string(l.extent) + ".",
           "Split the scanned variable by 128, 256, 512 or 1024 threads.");
    for (const auto& [name, other] : s.loops)
      if (other.axis == GpuAxis::ThreadX)
        fail("axis-bound-twice", "Stage '" + stage + "' already binds loop '" + name + "' to threadIdx.x.",
             "Bind the stage's other loops to threadIdx.y / z or to blocks.");
    l.axis = GpuAxis::ThreadX;
    s.scan_thread_loop = l.name;
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
