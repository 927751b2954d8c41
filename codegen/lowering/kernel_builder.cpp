// A kernel per root stage: its loop nest (stage_loops.cpp) from the root's region in
// global memory, with every non-input global buffer visible to the stages inside it, and
// the launch settings (launch_bounds, l2_hint) and register tails the stage asks for.
#include "codegen/lowering/kernel_builder.h"

#include "dsl/error.h"

namespace cusched::lowering {

KernelBuilder::KernelBuilder(const ScheduleState& st, const std::vector<BufferSpec>& globals) : st_(st) {
  for (const auto& b : globals) globals_[b.name] = b;
}

Kernel KernelBuilder::build(const FuncDef& root, int index) {
  used_.clear();
  register_tails_.clear();
  const StageSchedule& s = st_.schedules.at(root.name);
  const std::vector<int64_t> shape = eval_shape(root.extents, st_.ctx.sizes);
  std::vector<Expr> zeros(shape.size(), make_int(0));
  Realization self = dense(root.name, MemScope::Global, zeros, shape);
  if (st_.folded_epilogue(root.name).empty()) used_.insert(root.name);
  Env env;
  for (const auto& [name, b] : globals_)
    if (b.role != BufferRole::Input && name != root.name) {
      std::vector<Expr> z(b.shape.size(), make_int(0));
      env[name] = dense(name, MemScope::Global, z, b.shape);
    }
  Kernel k;
  k.name = "k" + std::to_string(index) + "_" + root.name;
  k.body = build_stage(root, self, env, false, false);
  k.launch_max_threads = s.launch_max_threads;
  k.launch_min_blocks = s.launch_min_blocks;
  k.raster_group = s.raster_group;
  k.l2_hints = s.l2_hints;
  k.register_tails = register_tails_;
  for (const auto& b : order_of_globals())
    if (used_.count(b)) k.params.push_back(b);
  return k;
}

std::vector<std::string> KernelBuilder::order_of_globals() const {
  std::vector<std::string> out;
  for (const auto& in : st_.ctx.pipeline.inputs()) out.push_back(in->name);
  for (const auto& f : st_.stages)
    if (globals_.count(f->name)) out.push_back(f->name);
  return out;
}

}  // namespace cusched::lowering
