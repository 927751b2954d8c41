#include "codegen/passes/passes.h"

namespace cusched {

std::vector<BufferSpec> plan_global_buffers(const ScheduleState& state) {
  std::vector<BufferSpec> out;
  for (const auto& in : state.ctx.pipeline.inputs()) {
    BufferSpec b;
    b.name = in->name;
    b.dtype = in->dtype;
    b.shape = eval_shape(in->shape, state.ctx.sizes);
    b.role = BufferRole::Input;
    out.push_back(b);
  }
  for (const auto& f : state.stages) {
    const StageSchedule& s = state.schedules.at(f->name);
    bool output = state.is_output(f->name);
    if (!output && s.location != ComputeLocation::Root) continue;
    if (!state.folded_epilogue(f->name).empty())
      continue;  // its values go through its folded consumer's expression (fuse_epilogue)
    BufferSpec b;
    b.name = f->name;
    b.dtype = f->dtype;
    b.shape = eval_shape(f->extents, state.ctx.sizes);
    b.role = output ? BufferRole::Output : BufferRole::Scratch;
    out.push_back(b);
  }
  return out;
}

}  // namespace cusched
