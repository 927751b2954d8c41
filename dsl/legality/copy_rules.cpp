// Rules on staged copies (cache_read) that the copy strategy chosen for them cannot
// realize: registers with tensor cores or pipelines, pipelines of elements cp.async
// does not copy, swizzles and padded sources on the bulk copy engine, padding other than
// zero and padded rows on the tensor memory accelerator, transposed copies on either.
#include "dsl/legality/legality_rules.h"
#include "dsl/padded_load.h"

namespace cusched::legality {
namespace {

int element_bytes(const ScheduleState& st, const std::string& source) {
  if (const TensorDef* in = st.ctx.pipeline.find_input(source)) return dtype_bytes(in->dtype);
  const FuncDef* f = st.stage_def(source);
  return f ? dtype_bytes(f->dtype) : 4;
}

}  // namespace

void check_copy_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    const StageProvenance& pv = s.provenance;
    if (!r.built(f->name)) continue;
    for (const auto& cr : s.cache_reads) {
      if (s.position(cr.at_loop) < 0) continue;
      const bool shared = cr.scope == MemScope::Shared;
      const int64_t depth = s.pipeline_loop == cr.at_loop ? s.pipeline_depth : 0;
      const int copy = pv.cache_read_of(cr.source);
      if (shared && depth > 0 && cr.transposes(r.st.rank_of(cr.source)) &&
          (s.pipeline_engine == CopyEngine::Tensor || s.pipeline_engine == CopyEngine::Bulk))
        r.refuse(latest({copy, pv.pipeline}), "transposed-copy-engine",
                 "cache_read of '" + cr.source + "' lays out dimension " + std::to_string(cr.innermost) +
                     " innermost, but its pipeline's copy engine moves whole rows of the source, which the copy's "
                     "rows do not follow.",
                 "Pipeline the copy with engine cp.async (the default), or drop innermost.");
      if (shared && depth > 0 && s.pipeline_engine == CopyEngine::Tensor) {
        if (reads_padded_nonzero(f->body, cr.source))
          r.refuse(latest({copy, pv.pipeline}), "tensor-copy-padding",
                   "cache_read of '" + cr.source + "' is pipelined on the tensor memory accelerator, but stage '" +
                       f->name +
                       "' reads it through padded(...) with a value other than zero, and the accelerator "
                       "writes zeros where the copied region leaves the source.",
                   "Pipeline the copy with engine cp.async, which writes any padding value.");
        if (cr.pad > 0 && !cr.swizzle)
          r.refuse(latest({copy, pv.pipeline}), "tensor-copy-pad",
                   "cache_read of '" + cr.source + "' pads its rows by " + std::to_string(cr.pad) +
                       " elements, but the tensor memory accelerator writes its box densely.",
                   "Use cache_read pad 0 (or swizzle) for this copy, or pipeline it with engine cp.async.");
        continue;
      }
      if (shared && depth > 0 && s.pipeline_engine == CopyEngine::Bulk) {
        if (reads_padded(f->body, cr.source))
          r.refuse(latest({copy, pv.pipeline}), "bulk-copy-padded",
                   "cache_read of '" + cr.source + "' is pipelined on the bulk copy engine, but stage '" + f->name +
                       "' reads it through padded(...), and the bulk engine does not write the padding value where "
                       "the copied region leaves the source.",
                   "Pipeline the copy with engine cp.async, which writes the padding.");
        if (cr.swizzle)
          r.refuse(
              latest({copy, pv.pipeline}), "bulk-copy-swizzle",
              "cache_read of '" + cr.source + "' is swizzled, but the bulk copy engine writes each row contiguously.",
              "Pad the copy instead of swizzling it, or pipeline it with engine cp.async.");
        continue;
      }
      if (cr.registers > 0 && !s.tensor_core_shape.empty())
        r.refuse(latest({copy, pv.tensor_core}), "registers-tensor-cores",
                 "cache_read of '" + cr.source + "' keeps " + std::to_string(cr.registers) +
                     " copy steps in registers, but stage '" + f->name +
                     "' uses tensor cores, which read their operands from shared memory directly (ldmatrix, wgmma "
                     "descriptors), not through the copying thread.",
                 "Drop registers on a tensor-core stage's copies.");
      if (cr.registers > 0 && depth > 0)
        r.refuse(latest({copy, pv.pipeline}), "registers-pipelined",
                 "cache_read of '" + cr.source + "' keeps " + std::to_string(cr.registers) +
                     " copy steps in registers, but it is software-pipelined at loop '" + cr.at_loop +
                     "', whose buffers rotate in shared memory.",
                 "Drop registers, or drop the pipeline step.");
      const int bytes = element_bytes(r.st, cr.source);
      if (shared && depth > 0 && bytes != 4)
        r.refuse(latest({copy, pv.pipeline}), "pipeline-element-size",
                 "cache_read of '" + cr.source + "' is pipelined at loop '" + cr.at_loop + "', but its " +
                     std::to_string(bytes) + "-byte elements cannot be copied with 4-byte cp.async.",
                 "Pipeline copies of 4-byte elements (f32, i32), or drop the pipeline step.");
    }
  }
}

}  // namespace cusched::legality
