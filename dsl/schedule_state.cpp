#include "dsl/schedule_state.h"

#include <algorithm>

#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {

std::string gpu_axis_name(GpuAxis a) {
  switch (a) {
    case GpuAxis::None:
      return "none";
    case GpuAxis::BlockX:
      return "blockIdx.x";
    case GpuAxis::BlockY:
      return "blockIdx.y";
    case GpuAxis::BlockZ:
      return "blockIdx.z";
    case GpuAxis::ThreadX:
      return "threadIdx.x";
    case GpuAxis::ThreadY:
      return "threadIdx.y";
    case GpuAxis::ThreadZ:
      return "threadIdx.z";
    case GpuAxis::ClusterX:
      return "cluster.x";
  }
  return "?";
}

std::optional<GpuAxis> gpu_axis_from_name(const std::string& s) {
  for (GpuAxis a : {GpuAxis::None, GpuAxis::BlockX, GpuAxis::BlockY, GpuAxis::BlockZ, GpuAxis::ThreadX,
                    GpuAxis::ThreadY, GpuAxis::ThreadZ, GpuAxis::ClusterX})
    if (gpu_axis_name(a) == s) return a;
  return std::nullopt;
}

const std::vector<std::string>& copy_engine_names() {
  static const std::vector<std::string> names = {"cp.async", "bulk", "tensor"};
  return names;
}

std::string copy_engine_name(CopyEngine e) { return copy_engine_names().at(static_cast<size_t>(e)); }

std::optional<CopyEngine> copy_engine_from_name(const std::string& s) {
  const auto& names = copy_engine_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return static_cast<CopyEngine>(i);
  return std::nullopt;
}

bool is_block_axis(GpuAxis a) { return a == GpuAxis::BlockX || a == GpuAxis::BlockY || a == GpuAxis::BlockZ; }
bool is_thread_axis(GpuAxis a) { return a == GpuAxis::ThreadX || a == GpuAxis::ThreadY || a == GpuAxis::ThreadZ; }

const LoopInfo* StageSchedule::find_loop(const std::string& name) const {
  auto it = loops.find(name);
  return it == loops.end() ? nullptr : &it->second;
}

int StageSchedule::loops_on(GpuAxis axis) const {
  return static_cast<int>(
      std::count_if(order.begin(), order.end(), [&](const std::string& n) { return loops.at(n).axis == axis; }));
}

int StageSchedule::position(const std::string& loop) const {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] == loop) return static_cast<int>(i);
  return -1;
}

StageSchedule ScheduleState::initial_schedule(const FuncDef& f, const SizeBindings& sizes) {
  StageSchedule s;
  s.stage = f.name;
  for (size_t i = 0; i < f.vars.size(); ++i) {
    LoopInfo l;
    l.name = f.vars[i];
    l.extent = eval_int(f.extents[i], sizes);
    s.order.push_back(l.name);
    s.loops[l.name] = l;
    s.used_names.insert(l.name);
  }
  if (f.is_scan()) {
    // A scan's loops of its scanned variable are innermost (scan-loops-not-innermost).
    auto it = std::find(s.order.begin(), s.order.end(), f.body->name);
    std::rotate(it, it + 1, s.order.end());
  }
  if (f.is_reduction()) {
    for (const auto& r : f.body->rvars) {
      LoopInfo l;
      l.name = r.name;
      l.extent = eval_int(r.extent_expr, sizes);
      l.reduction = true;
      s.order.push_back(l.name);
      s.loops[l.name] = l;
      s.used_names.insert(l.name);
    }
  }
  return s;
}

ScheduleState::ScheduleState(ScheduleContext c) : ctx(std::move(c)) {
  for (const auto& s : ctx.pipeline.stages()) {
    stages.push_back(s);
    schedules[s->name] = initial_schedule(*s, ctx.sizes);
  }
}

const FuncDef* ScheduleState::stage_def(const std::string& name) const {
  for (const auto& s : stages)
    if (s->name == name) return s.get();
  return nullptr;
}

size_t ScheduleState::rank_of(const std::string& name) const {
  if (const TensorDef* in = ctx.pipeline.find_input(name)) return in->shape.size();
  const FuncDef* f = stage_def(name);
  return f ? f->vars.size() : 0;
}

static std::string stage_list(const ScheduleState& st) {
  std::string out;
  for (const auto& s : st.stages) out += (out.empty() ? "" : ", ") + s->name;
  return out;
}

StageSchedule& ScheduleState::stage(const std::string& name) {
  auto it = schedules.find(name);
  if (it == schedules.end())
    fail("unknown-stage", "There is no stage named '" + name + "'.",
         "Use one of the stages: " + stage_list(*this) + ".");
  return it->second;
}

const StageSchedule& ScheduleState::stage(const std::string& name) const {
  return const_cast<ScheduleState*>(this)->stage(name);
}

std::string ScheduleState::stage_of_loop(const std::string& loop, const std::string& stage_hint) const {
  if (!stage_hint.empty()) {
    const auto& s = stage(stage_hint);
    if (!s.find_loop(loop)) {
      std::string names;
      for (const auto& n : s.order) names += (names.empty() ? "" : ", ") + n;
      fail("unknown-loop", "Stage '" + stage_hint + "' has no loop named '" + loop + "'.",
           "Its loops are now: " + names + ".");
    }
    return stage_hint;
  }
  std::vector<std::string> found;
  for (const auto& [name, s] : schedules)
    if (s.find_loop(loop)) found.push_back(name);
  if (found.empty())
    fail("unknown-loop", "No stage has a loop named '" + loop + "'.",
         "Name a loop that exists now (splits and fuses rename loops), or check its spelling.");
  if (found.size() > 1)
    fail("ambiguous-loop", "Several stages (" + found[0] + ", " + found[1] + ") have a loop named '" + loop + "'.",
         "Add \"stage\" to the step to say which one.");
  return found[0];
}

std::vector<std::string> ScheduleState::consumers_of(const std::string& name) const {
  std::vector<std::string> out;
  auto add = [&](const std::string& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const auto& s : stages) {
    if (!loads_from(s->body, name)) continue;
    auto it = schedules.find(s->name);
    if (it == schedules.end() || it->second.location != ComputeLocation::Inline) {
      add(s->name);
      continue;
    }
    // An inlined reader's expression is substituted into its own readers, which read `name` in turn.
    for (const auto& c : consumers_of(s->name)) add(c);
  }
  return out;
}

std::string ScheduleState::folded_epilogue(const std::string& reduction) const {
  for (const auto& [name, s] : schedules)
    if (s.epilogue_of == reduction) return name;
  return "";
}

std::string ScheduleState::sum_with(const std::string& variance) const {
  for (const auto& [name, s] : schedules)
    if (s.with_variance == variance) return name;
  return "";
}

}  // namespace cusched
