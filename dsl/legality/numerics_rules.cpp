// Rules on the numerics a schedule chooses: a floating-point sum whose accumulator adds
// more terms one after another than kMaxSerialSumTerms. The rounding error of a
// sequential sum grows with its length, and once the running sum is large against its
// terms each addition rounds a share of the term away (an f32 sum of 2^24 ones stops
// growing); a long sum must be split across threads, blocks or partial sums.
#include "dsl/legality/legality_rules.h"

namespace cusched::legality {

void check_numerics_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    if (!f->is_reduction() || f->body->reduce_op != ReduceOp::Sum) continue;
    if (!dtype_is_float(f->dtype) || f->dtype == DType::f64) continue;
    const StageSchedule& s = r.st.schedules.at(f->name);
    int64_t serial = 1;
    std::string loops;
    for (const auto& name : s.order) {
      const LoopInfo& info = s.loops.at(name);
      if (!info.reduction || info.axis != GpuAxis::None || name == s.cross_thread_loop ||
          name == s.cross_cluster_loop)
        continue;
      serial *= info.extent;
      loops += (loops.empty() ? "" : ", ") + name;
    }
    if (serial <= kMaxSerialSumTerms) continue;
    r.refuse(latest({s.provenance.order, s.provenance.cross_thread, s.provenance.location}), "serial-sum-too-long",
             "Stage '" + f->name + "' adds " + std::to_string(serial) + " terms one after another into each " +
                 dtype_name(f->dtype) + " accumulator (its serial reduction loops " + loops +
                 "); beyond " + std::to_string(kMaxSerialSumTerms) +
                 " terms the rounding of a sequential sum can exceed the problem's tolerance.",
             "Split the reduction: cross_thread_reduce a split of it across the block's threads, or rfactor it into "
             "partial sums that another stage adds.");
  }
}

}  // namespace cusched::legality
