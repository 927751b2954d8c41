// Rules on scan stages: computed at root, the loops of the scanned variable innermost
// and in the order of their splits, bound only by cross_thread_scan, nothing placed at
// them, and none of the steps that a scan's lowering does not realize.
#include <algorithm>

#include "dsl/legality/legality_rules.h"
#include "dsl/scan_loops.h"

namespace cusched::legality {

void check_scan_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    if (!f->is_scan()) continue;
    const StageSchedule& s = r.st.schedules.at(f->name);
    const StageProvenance& pv = s.provenance;
    const std::string& v = f->body->name;
    const std::string stage = "Stage '" + f->name + "'";
    if (s.location != ComputeLocation::Root)
      r.refuse(pv.location, "scan-not-root", stage + " is a scan and must be computed at root (a kernel of its own).",
               "Remove compute_at / compute_inline for it; stages that read it may be inlined into it instead.");
    ScanLoops sl = scan_loops(*f, s);
    if (!sl.fused.empty())
      r.refuse(pv.order, "scan-loop-fused",
               stage + " fuses a loop of its scanned variable '" + v + "' into loop '" + sl.fused + "'.",
               "Keep the loops of the scanned variable apart: fuse only the stage's other pure loops.");
    if (!sl.reversed.empty())
      r.refuse(pv.order, "scan-loop-reversed",
               stage + " reverses a loop of its scanned variable '" + v + "' (now '" + sl.reversed + "').",
               "A scan's direction is part of the algorithm: write cumsum(" + v +
                   ", reverse: ...) instead of reversing its loop.");
    const size_t n = sl.loops.size();
    if (s.order.size() < n || !std::equal(sl.loops.begin(), sl.loops.end(), s.order.end() - n)) {
      std::string names;
      for (const auto& l : sl.loops) names += (names.empty() ? "" : ", ") + l;
      r.refuse(pv.order, "scan-loops-not-innermost",
               stage + " scans along '" + v + "'; its loops (" + names +
                   ") must be the innermost loops, outer before inner as their splits made them.",
               "Reorder the stage so that " + names + " come last, in that order.");
    }
    for (const auto& l : sl.loops) {
      const LoopInfo& info = s.loops.at(l);
      if (info.axis != GpuAxis::None && l != s.scan_thread_loop)
        r.refuse(pv.binding_of(l), "scan-loop-bound",
                 stage + " binds loop '" + l + "' of its scanned variable '" + v + "' to " + gpu_axis_name(info.axis) +
                     "; a scan's loops run in order.",
                 "Leave it serial, or scan it across the block's threads with cross_thread_scan.");
      for (const auto& [name, other] : r.st.schedules)
        if (other.location == ComputeLocation::At && other.at_stage == f->name && other.at_loop == l)
          r.refuse(other.provenance.location, "scan-placement-inside",
                   "Stage '" + name + "' is computed at loop '" + l + "', a loop of the scan " + f->name + ".",
                   "Compute it at one of the scan's other loops, or at root.");
      for (const auto& c : s.cache_reads)
        if (c.at_loop == l)
          r.refuse(pv.cache_read_of(c.source), "scan-placement-inside",
                   "The copy '" + c.name + "' is made at loop '" + l + "', a loop of the scan " + f->name + ".",
                   "Make the copy at one of the stage's other loops.");
    }
    if (s.cache_write_scope == MemScope::Shared || !s.tensor_core_shape.empty() || !s.pipeline_loop.empty()) {
      const std::string what = s.cache_write_scope == MemScope::Shared ? "cache_write scope shared"
                               : !s.tensor_core_shape.empty()          ? "tensor_core"
                                                                       : "pipeline";
      r.refuse(latest({pv.cache_write, pv.tensor_core, pv.pipeline}), "scan-step-unsupported",
               stage + " is a scan, which " + what + " does not apply to.",
               "Drop the step; schedule a scan with split, reorder, bind of its other loops, unroll, vectorize and "
               "cross_thread_scan.");
    }
  }
}

}  // namespace cusched::legality
