// Provenance of a schedule state: which step last set each part of each stage's
// schedule, found by comparing the state before and after every step.
#include <tuple>

#include "dsl/schedule_state.h"

namespace cusched {
namespace {

auto cache_read_key(const CacheRead& c) {
  return std::tie(c.source, c.name, c.scope, c.at_loop, c.pad, c.swizzle, c.share, c.registers);
}

bool same_hints(const std::map<std::string, L2Hint>& a, const std::map<std::string, L2Hint>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || i->second.policy != j->second.policy || i->second.percent != j->second.percent)
      return false;
  return true;
}

const CacheRead* find_cache_read(const std::vector<CacheRead>& reads, const std::string& source) {
  for (const auto& c : reads)
    if (c.source == source) return &c;
  return nullptr;
}

// Records `step` in `p` for every field of `now` that differs from `was` (a default
// stage schedule when the stage is new, as rfactor makes).
void record_stage(StageProvenance& p, const StageSchedule& was, const StageSchedule& now, bool is_new, int step) {
  bool changed = is_new;
  bool beyond_arithmetic = is_new;  // a change other than the precision and math
  auto mark = [&](int& field, bool differs, bool arithmetic = false) {
    if (!differs) return;
    field = step;
    changed = true;
    beyond_arithmetic |= !arithmetic;
  };
  mark(p.order, is_new || was.order != now.order || was.relations.size() != now.relations.size());
  mark(p.location, was.location != now.location || was.at_stage != now.at_stage || was.at_loop != now.at_loop ||
                       was.epilogue_of != now.epilogue_of || was.with_variance != now.with_variance);
  mark(p.cache_write, was.cache_write_scope != now.cache_write_scope);
  mark(p.cross_thread,
       was.cross_thread_loop != now.cross_thread_loop || was.cross_thread_kind != now.cross_thread_kind ||
           was.cross_cluster_loop != now.cross_cluster_loop || was.scan_thread_loop != now.scan_thread_loop);
  mark(p.pipeline, was.pipeline_loop != now.pipeline_loop || was.pipeline_depth != now.pipeline_depth ||
                       was.pipeline_engine != now.pipeline_engine);
  mark(p.tensor_core, was.tensor_core_shape != now.tensor_core_shape);
  mark(p.precision, was.precision != now.precision || was.math != now.math, true);
  mark(p.launch_bounds,
       was.launch_max_threads != now.launch_max_threads || was.launch_min_blocks != now.launch_min_blocks);
  mark(p.raster, was.raster_group != now.raster_group);
  mark(p.l2_hint, !same_hints(was.l2_hints, now.l2_hints));
  for (const auto& [name, l] : now.loops) {
    const LoopInfo* old = was.find_loop(name);
    if (l.axis != GpuAxis::None && (!old || old->axis != l.axis)) mark(p.binding[name], true);
    if (l.kind != LoopKind::Serial && (!old || old->kind != l.kind)) mark(p.loop_kind[name], true);
  }
  for (const auto& c : now.cache_reads) {
    const CacheRead* old = find_cache_read(was.cache_reads, c.source);
    if (!old || cache_read_key(*old) != cache_read_key(c)) mark(p.cache_read[c.source], true);
  }
  if (was.cache_reads.size() != now.cache_reads.size()) changed = beyond_arithmetic = true;
  if (changed) p.last = step;
  if (beyond_arithmetic) p.last_but_arithmetic = step;
}

}  // namespace

int StageProvenance::binding_of(const std::string& loop) const {
  auto it = binding.find(loop);
  return it == binding.end() ? -1 : it->second;
}

int StageProvenance::cache_read_of(const std::string& source) const {
  auto it = cache_read.find(source);
  return it == cache_read.end() ? -1 : it->second;
}

void ScheduleState::record_provenance(const ScheduleState& before, int step) {
  for (auto& [name, now] : schedules) {
    auto was = before.schedules.find(name);
    if (was == before.schedules.end())
      record_stage(now.provenance, StageSchedule{}, now, true, step);
    else {
      now.provenance = was->second.provenance;  // a primitive that rebuilds a stage's schedule keeps its history
      record_stage(now.provenance, was->second, now, false, step);
    }
  }
}

}  // namespace cusched
