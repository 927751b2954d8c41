#include "search/schedule_moves.h"

#include <algorithm>

#include "codegen/fast_math.h"
#include "dsl/random_schedule.h"
#include "dsl/step_builder.h"

namespace cusched::search {
namespace {

using nlohmann::json;

template <typename T>
T pick(const std::vector<T>& v, std::mt19937_64& rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ")) + names[i];
  return out;
}

// Stages that still have their own loops (not inlined), in pipeline order.
std::vector<std::string> scheduled_stages(const ScheduleState& st) {
  std::vector<std::string> out;
  for (const auto& f : st.stages)
    if (st.stage(f->name).location != ComputeLocation::Inline) out.push_back(f->name);
  return out;
}

std::string loop_bound_to(const StageSchedule& s, GpuAxis axis) {
  for (const auto& name : s.order)
    if (s.loops.at(name).axis == axis) return name;
  return "";
}

bool uses_loop(const json& step, const std::string& stage, const std::string& loop) {
  const std::string op = step.value("op", "");
  if (op == "compute_at") return step.value("consumer", "") == stage && step.value("loop", "") == loop;
  if (step_stage_name(step) != stage) return false;
  for (const char* key : {"loop", "at", "x", "y"})
    if (step.contains(key) && step[key].is_string() && step[key] == loop) return true;
  if (op == "fuse" && (step.value("outer", "") == loop || step.value("inner", "") == loop)) return true;
  if (step.contains("loops") && step["loops"].is_array())
    for (const auto& l : step["loops"])
      if (l == loop) return true;
  return false;
}

// Which inner loop a split step made, and of which loop.
struct SplitRef {
  size_t index;
  std::string stage, loop, inner;
  int64_t factor;
};

std::vector<SplitRef> splits(const json& steps) {
  std::vector<SplitRef> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    if (s.value("op", "") != "split" || !s.contains("factor") || !s["factor"].is_number_integer()) continue;
    out.push_back({i, step_stage_name(s), s.value("loop", ""), s.value("inner", ""), s["factor"].get<int64_t>()});
  }
  return out;
}

// The step index that marks `loop` of `stage` with `op` (vectorize, cross_thread_reduce, ...), or -1.
int marking_step(const json& steps, const std::string& op, const std::string& stage, const std::string& loop) {
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].value("op", "") == op && step_stage_name(steps[i]) == stage && steps[i].value("loop", "") == loop)
      return static_cast<int>(i);
  return -1;
}

const char* reduce_kind(int64_t threads) { return threads <= 32 && (threads & (threads - 1)) == 0 ? "warp" : "block"; }

// Steps that spread a stage computed inside a block of `threads` threads over those
// threads: the reduction loops fused and combined across threads, or the last pure
// loop bound to threadIdx.x.
void spread_over_threads(json& steps, const ScheduleState& st, const std::string& stage, int64_t threads) {
  const FuncDef* f = st.stage_def(stage);
  const StageSchedule& s = st.stage(stage);
  std::set<std::string> used = s.used_names;
  std::vector<std::string> red, pure;
  for (const auto& l : s.order) (s.loops.at(l).reduction ? red : pure).push_back(l);
  if (f->is_reduction() && !red.empty()) {
    std::string k = red[0];
    for (size_t i = 1; i < red.size(); ++i) {
      std::string fused = fresh_loop_name(k + red[i], used);
      steps.push_back(schedule_step("fuse", stage, {{"outer", k}, {"inner", red[i]}, {"fused", fused}}));
      k = fused;
    }
    std::string o = fresh_loop_name(k + "o", used), t = fresh_loop_name(k + "t", used);
    steps.push_back(schedule_step("split", stage, {{"loop", k}, {"factor", threads}, {"outer", o}, {"inner", t}}));
    steps.push_back(schedule_step("cross_thread_reduce", stage, {{"loop", t}, {"kind", reduce_kind(threads)}}));
  } else if (!pure.empty()) {
    std::string p = pure.back();
    std::string o = fresh_loop_name(p + "o", used), t = fresh_loop_name(p + "t", used);
    steps.push_back(schedule_step("split", stage, {{"loop", p}, {"factor", threads}, {"outer", o}, {"inner", t}}));
    steps.push_back(schedule_step("bind", stage, {{"loop", t}, {"axis", "threadIdx.x"}}));
  }
}

int64_t next_factor(int64_t current, std::mt19937_64& rng) {
  std::vector<int64_t> options;
  for (int64_t f : {current / 4, current / 2, current * 2, current * 4})
    if (f >= 2 && f <= 1024) options.push_back(f);
  if (options.empty()) options = {2, 4, 8, 16, 32, 64, 128, 256};
  return pick(options, rng);
}

// retile: another factor for one split; a split whose inner loop is combined across
// threads keeps a legal reduction kind, and producers spread over the same threads follow.
std::optional<MoveResult> retile(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<SplitRef> candidates;
  for (const auto& s : splits(steps))
    if (marking_step(steps, "vectorize", s.stage, s.inner) < 0 && !s.stage.empty()) candidates.push_back(s);
  if (candidates.empty()) return std::nullopt;
  SplitRef s = pick(candidates, rng);
  int64_t f = next_factor(s.factor, rng);
  json out = steps;
  out[s.index]["factor"] = f;
  int reduce = marking_step(out, "cross_thread_reduce", s.stage, s.inner);
  if (reduce >= 0) out[reduce]["kind"] = reduce_kind(f);
  std::string what =
      "split " + s.stage + "." + s.loop + " by " + std::to_string(f) + " instead of " + std::to_string(s.factor);
  const StageSchedule* ss = st.schedules.count(s.stage) ? &st.schedules.at(s.stage) : nullptr;
  const LoopInfo* inner = ss ? ss->find_loop(s.inner) : nullptr;
  if (inner && is_thread_axis(inner->axis)) {
    what += " and bind it to threads";
    // Producers computed inside this stage and combined over its threads follow the new thread count.
    for (const auto& [name, ps] : st.schedules) {
      if (ps.location != ComputeLocation::At || ps.at_stage != s.stage) continue;
      for (auto& other : splits(out))
        if (other.stage == name && other.factor == s.factor) {
          out[other.index]["factor"] = f;
          int r = marking_step(out, "cross_thread_reduce", name, other.inner);
          if (r >= 0) out[r]["kind"] = reduce_kind(f);
          what += " (" + name + " follows)";
        }
    }
  } else if (reduce >= 0) {
    what += ", combined across " + std::to_string(f) + " threads";
  }
  return MoveResult{"retile", what, out};
}

// vectorize: the innermost pure variable of a stage split by 2 or 4 before its first
// use and the new inner loop vectorized; a stage already vectorized gets another width.
std::optional<MoveResult> vectorize(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> stages;
  for (const auto& name : scheduled_stages(st))
    if (!st.stage_def(name)->vars.empty()) stages.push_back(name);
  if (stages.empty()) return std::nullopt;
  std::string stage = pick(stages, rng);
  const StageSchedule& s = st.stage(stage);
  for (const auto& [name, l] : s.loops)
    if (l.kind == LoopKind::Vectorized) {
      for (const auto& sp : splits(steps))
        if (sp.stage == stage && sp.inner == name) {
          json out = steps;
          int64_t w = sp.factor == 4 ? 2 : 4;
          out[sp.index]["factor"] = w;
          return MoveResult{
              "vectorize",
              "vectorize " + stage + " by " + std::to_string(w) + " instead of " + std::to_string(sp.factor), out};
        }
      return std::nullopt;
    }
  std::string var = st.stage_def(stage)->vars.back();
  int64_t w = pick(std::vector<int64_t>{2, 4, 4}, rng);
  json out = steps;
  std::set<std::string> used = s.used_names;
  std::string inner = split_before_use(out, stage, var, w, used);
  out.push_back(schedule_step("vectorize", stage, {{"loop", inner}}));
  return MoveResult{"vectorize", "vectorize the innermost loop of " + stage + " (" + var + ") by " + std::to_string(w),
                    out};
}

// fuse_producers: the producers computed at root that one consumer reads are computed
// inside the consumer's outermost block loop, spread over its threads; the consumer's
// other block loops become serial, so one block covers a whole row.
std::optional<MoveResult> fuse_producers(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> consumers;
  for (const auto& name : scheduled_stages(st)) {
    const StageSchedule& s = st.stage(name);
    if (s.order.empty() || !is_block_axis(s.loops.at(s.order[0]).axis) || loop_bound_to(s, GpuAxis::ThreadX).empty())
      continue;
    for (const auto& f : st.stages)
      if (f->name != name && !st.is_output(f->name) && st.stage(f->name).location == ComputeLocation::Root) {
        auto c = st.consumers_of(f->name);
        if (std::find(c.begin(), c.end(), name) != c.end()) {
          consumers.push_back(name);
          break;
        }
      }
  }
  if (consumers.empty()) return std::nullopt;
  std::string host = pick(consumers, rng);
  const StageSchedule& hs = st.stage(host);
  std::string at = hs.order[0];
  // Every root producer whose consumers are all the host or other producers moved with it.
  std::vector<std::string> movers;
  for (auto it = st.stages.rbegin(); it != st.stages.rend(); ++it) {
    const std::string& name = (*it)->name;
    if (name == host || st.is_output(name) || st.stage(name).location != ComputeLocation::Root) continue;
    bool ok = true;
    for (const auto& c : st.consumers_of(name))
      if (c != host && std::find(movers.begin(), movers.end(), c) == movers.end()) ok = false;
    if (ok) movers.push_back(name);
  }
  if (movers.empty()) return std::nullopt;
  json out = json::array();
  bool unbound = false;
  for (const auto& step : steps) {
    std::string stage = step_stage_name(step);
    if (std::find(movers.begin(), movers.end(), stage) != movers.end()) continue;
    if (stage == host && step.value("op", "") == "bind" && step.value("loop", "") != at) {
      auto axis = gpu_axis_from_name(step.value("axis", ""));
      if (axis && is_block_axis(*axis)) {
        unbound = true;
        continue;
      }
    }
    out.push_back(step);
  }
  int64_t threads = hs.loops.at(loop_bound_to(hs, GpuAxis::ThreadX)).extent;
  for (const auto& m : movers) {
    out.push_back(schedule_step("compute_at", m, {{"consumer", host}, {"loop", at}}));
    spread_over_threads(out, st, m, threads);
  }
  std::string idea = "fuse " + join_names(std::vector<std::string>(movers.rbegin(), movers.rend())) + " into " + host +
                     " at its loop " + at + ", combined across its " + std::to_string(threads) + " threads";
  if (unbound) idea += " (one block per " + at + ")";
  return MoveResult{"fuse_producers", idea, out};
}

// stage_shared: an input that a stage reads copied into shared memory once per
// iteration of one of its block loops or outer reduction loops.
std::optional<MoveResult> stage_shared(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> stages;
  for (const auto& name : scheduled_stages(st))
    if (st.stage(name).cache_reads.empty()) stages.push_back(name);
  if (stages.empty() || st.ctx.pipeline.inputs().empty()) return std::nullopt;
  std::string stage = pick(stages, rng);
  const StageSchedule& s = st.stage(stage);
  std::vector<std::string> sites;
  for (size_t i = 0; i < s.order.size(); ++i) {
    const LoopInfo& l = s.loops.at(s.order[i]);
    if (is_block_axis(l.axis))
      sites.push_back(l.name);
    else if (l.reduction && l.axis == GpuAxis::None && i + 1 < s.order.size())
      sites.push_back(l.name);
  }
  if (sites.empty()) return std::nullopt;
  std::string source = pick(st.ctx.pipeline.inputs(), rng)->name;
  std::string at = pick(sites, rng);
  int pad = pick(std::vector<int>{0, 1, 4}, rng);
  json out = steps;
  out.push_back(
      schedule_step("cache_read", stage, {{"source", source}, {"scope", "shared"}, {"at", at}, {"pad", pad}}));
  return MoveResult{"stage_shared",
                    "stage " + source + " in shared memory for " + stage + " at its loop " + at +
                        (pad ? " (rows padded by " + std::to_string(pad) + ")" : ""),
                    out};
}

// register_tile: a pure variable of a reduction stage split by 2..8 before its first
// use; the new inner loop moves inside the reduction loops and is unrolled, so each
// thread accumulates several outputs in registers.
std::optional<MoveResult> register_tile(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> stages;
  for (const auto& name : scheduled_stages(st))
    if (st.stage_def(name)->is_reduction() && !st.stage_def(name)->vars.empty() &&
        st.stage(name).cross_thread_loop.empty())
      stages.push_back(name);
  if (stages.empty()) return std::nullopt;
  std::string stage = pick(stages, rng);
  const StageSchedule& s = st.stage(stage);
  std::string var = pick(st.stage_def(stage)->vars, rng);
  int64_t r = pick(std::vector<int64_t>{2, 4, 4, 8}, rng);
  json out = steps;
  std::set<std::string> used = s.used_names;
  std::string inner = split_before_use(out, stage, var, r, used);
  std::vector<std::string> order;
  for (const auto& l : s.order)
    if (s.loops.at(l).reduction) order.push_back(l);
  if (order.empty()) return std::nullopt;
  order.push_back(inner);
  out.push_back(schedule_step("reorder", stage, {{"loops", order}}));
  out.push_back(schedule_step("unroll", stage, {{"loop", inner}}));
  return MoveResult{"register_tile",
                    "move the reduction loop of " + stage + " outward for a " + std::to_string(r) +
                        "-wide register tile along " + var,
                    out};
}

// unroll: the innermost serial loop of a stage with a short extent.
std::optional<MoveResult> unroll(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::string>> targets;
  for (const auto& name : scheduled_stages(st)) {
    const StageSchedule& s = st.stage(name);
    for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
      const LoopInfo& l = s.loops.at(*it);
      if (l.axis != GpuAxis::None || l.kind == LoopKind::Vectorized) continue;
      if (l.kind == LoopKind::Serial && l.extent >= 2 && l.extent <= 32) targets.push_back({name, l.name});
      break;
    }
  }
  if (targets.empty()) return std::nullopt;
  auto [stage, loop] = pick(targets, rng);
  json out = steps;
  out.push_back(schedule_step("unroll", stage, {{"loop", loop}}));
  return MoveResult{
      "unroll",
      "unroll " + stage + "." + loop + " (" + std::to_string(st.stage(stage).loops.at(loop).extent) + " iterations)",
      out};
}

// precision: lower operand precision for a sum of products (the tolerance decides legality).
std::optional<MoveResult> precision(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> stages;
  for (const auto& name : scheduled_stages(st)) {
    const FuncDef* f = st.stage_def(name);
    if (f->is_sum_of_products()) stages.push_back(name);
  }
  if (stages.empty()) return std::nullopt;
  std::string stage = pick(stages, rng);
  const std::string& current = precision_name(st.stage(stage).precision);
  std::vector<std::string> options;
  for (const char* p : {"tf32", "bf16", "f16"})
    if (current != p) options.push_back(p);
  std::string operands = pick(options, rng);
  json out = json::array();
  for (const auto& step : steps)
    if (!(step.value("op", "") == "precision" && step_stage_name(step) == stage)) out.push_back(step);
  out.push_back(schedule_step("precision", stage, {{"operands", operands}, {"math", st.stage(stage).math}}));
  return MoveResult{"precision", "use " + operands + " operands in " + stage, out};
}

// fast_math: a stage that computes exp, log or an f32 division switches to the GPU's
// approximate intrinsics, keeping its operand precision.
std::optional<MoveResult> fast_math(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> stages;
  for (const auto& name : scheduled_stages(st))
    if (st.stage(name).math != "fast" && has_fast_math_operation(st.stage_def(name)->body)) stages.push_back(name);
  if (stages.empty()) return std::nullopt;
  std::string stage = pick(stages, rng);
  json out = json::array();
  for (const auto& step : steps)
    if (!(step.value("op", "") == "precision" && step_stage_name(step) == stage)) out.push_back(step);
  out.push_back(
      schedule_step("precision", stage, {{"operands", precision_name(st.stage(stage).precision)}, {"math", "fast"}}));
  return MoveResult{"fast_math", "compute exp, log and division in " + stage + " with fast-math intrinsics", out};
}

// pipeline: the shared-memory copies a stage makes at a serial loop issued
// asynchronously (cp.async) with 2..4 buffers, or a pipeline's depth changed.
std::optional<MoveResult> pipeline(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::string>> sites;  // (stage, loop)
  for (const auto& name : scheduled_stages(st)) {
    const StageSchedule& s = st.stage(name);
    for (const auto& c : s.cache_reads) {
      auto it = s.loops.find(c.at_loop);
      if (c.scope == MemScope::Shared && it != s.loops.end() && it->second.axis == GpuAxis::None &&
          it->second.kind == LoopKind::Serial && it->second.extent >= 2)
        sites.push_back({name, c.at_loop});
    }
  }
  if (sites.empty()) return std::nullopt;
  auto [stage, loop] = pick(sites, rng);
  int64_t extent = st.stage(stage).loops.at(loop).extent;
  int64_t depth = std::min<int64_t>(extent, pick(std::vector<int64_t>{2, 3, 4}, rng));
  json out;
  for (const auto& step : steps)
    if (!(step.value("op", "") == "pipeline" && step_stage_name(step) == stage)) out.push_back(step);
  out.push_back(schedule_step("pipeline", stage, {{"loop", loop}, {"depth", depth}}));
  return MoveResult{"pipeline",
                    "issue the shared-memory copies of " + stage + " at its loop " + loop + " asynchronously, " +
                        std::to_string(depth) + " buffers in flight (cp.async)",
                    out};
}

// l2_keep: an f32 input that two or more kernels read (stages computed at root, in
// pipeline order) gets an evict_last L2 priority on the first kernel's loads, for 5 or 10%
// of its lines, so that the next kernel finds that part in L2 (LayerNorm's statistics
// and normalisation both read X).
std::optional<MoveResult> l2_keep(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::string>> sites;  // (first kernel's stage, input)
  for (const auto& in : st.ctx.pipeline.inputs()) {
    if (in->dtype != DType::f32) continue;
    std::vector<std::string> readers = st.consumers_of(in->name);
    std::erase_if(readers, [&](const std::string& r) { return st.stage(r).location != ComputeLocation::Root; });
    if (readers.size() >= 2 && !st.stage(readers[0]).l2_hints.count(in->name)) sites.push_back({readers[0], in->name});
  }
  if (sites.empty()) return std::nullopt;
  auto [stage, input] = pick(sites, rng);
  const int percent = pick(std::vector<int>{5, 10}, rng);
  json out = steps;
  out.push_back(schedule_step("l2_hint", stage, {{"source", input}, {"policy", "evict_last"}, {"percent", percent}}));
  return MoveResult{"l2_keep",
                    "keep " + std::to_string(percent) + "% of " + input + "'s lines in L2 after " + stage +
                        "'s kernel reads them (evict_last), for the next kernel that reads " + input,
                    out};
}

// raster: a root stage with one loop on blockIdx.x and one on blockIdx.y (a tiled GEMM or
// convolution) launches its tiles in groups of 4, 8 or 16 along x (block_raster), so that
// the blocks running together share their operand panels in L2.
std::optional<MoveResult> raster(const json& steps, const ScheduleState& st, std::mt19937_64& rng) {
  std::vector<std::string> sites;
  for (const auto& [name, s] : st.schedules) {
    if (s.location == ComputeLocation::Root && !s.raster_group && s.loops_on(GpuAxis::BlockX) == 1 &&
        s.loops_on(GpuAxis::BlockY) == 1)
      sites.push_back(name);
  }
  if (sites.empty()) return std::nullopt;
  const std::string stage = pick(sites, rng);
  const int group = pick(std::vector<int>{4, 8, 16}, rng);
  json out = steps;
  out.push_back(schedule_step("block_raster", stage, {{"group", group}}));
  return MoveResult{"raster",
                    "launch the tiles of " + stage + " in groups of " + std::to_string(group) +
                        " along blockIdx.x, so that the blocks running together share operands in L2",
                    out};
}

std::optional<MoveResult> random_fresh(const json&, const ScheduleState& st, std::mt19937_64& rng) {
  return MoveResult{"random", "a fresh random legal schedule", random_schedule(st.ctx, rng)};
}

}  // namespace

const std::vector<std::string>& move_names() {
  static const std::vector<std::string> names = {"retile",        "vectorize", "fuse_producers", "stage_shared",
                                                 "register_tile", "unroll",    "precision",      "fast_math",
                                                 "pipeline",      "l2_keep",   "raster",         "random"};
  return names;
}

std::optional<MoveResult> apply_move(const std::string& name, const nlohmann::json& steps, const ScheduleState& state,
                                     std::mt19937_64& rng) {
  if (name == "retile") return retile(steps, state, rng);
  if (name == "vectorize") return vectorize(steps, state, rng);
  if (name == "fuse_producers") return fuse_producers(steps, state, rng);
  if (name == "stage_shared") return stage_shared(steps, state, rng);
  if (name == "register_tile") return register_tile(steps, state, rng);
  if (name == "unroll") return unroll(steps, state, rng);
  if (name == "precision") return precision(steps, state, rng);
  if (name == "fast_math") return fast_math(steps, state, rng);
  if (name == "pipeline") return pipeline(steps, state, rng);
  if (name == "l2_keep") return l2_keep(steps, state, rng);
  if (name == "raster") return raster(steps, state, rng);
  if (name == "random") return random_fresh(steps, state, rng);
  return std::nullopt;
}

std::string step_stage_name(const nlohmann::json& step) {
  if (step.is_object() && step.contains("stage") && step["stage"].is_string()) return step["stage"];
  return "";
}

void rename_loop_uses(nlohmann::json& steps, size_t begin, const std::string& stage, const std::string& from,
                      const std::string& to) {
  for (size_t i = begin; i < steps.size(); ++i) {
    json& step = steps[i];
    if (!step.is_object()) continue;
    const std::string op = step.value("op", "");
    if (op == "compute_at") {
      if (step.value("consumer", "") == stage && step.value("loop", "") == from) step["loop"] = to;
      continue;
    }
    if (step_stage_name(step) != stage) continue;
    for (const char* key : {"loop", "at", "x", "y"})
      if (step.contains(key) && step[key] == from) step[key] = to;
    if (op == "fuse")
      for (const char* key : {"outer", "inner"})
        if (step.contains(key) && step[key] == from) step[key] = to;
    if (step.contains("loops") && step["loops"].is_array())
      for (auto& l : step["loops"])
        if (l == from) l = to;
  }
}

std::string fresh_loop_name(const std::string& base, std::set<std::string>& used) {
  std::string name = base;
  for (int n = 2; used.count(name); ++n) name = base + std::to_string(n);
  used.insert(name);
  return name;
}

std::string split_before_use(nlohmann::json& steps, const std::string& stage, const std::string& loop, int64_t factor,
                             std::set<std::string>& used) {
  for (const auto& s : steps)
    for (const char* key : {"outer", "inner", "fused", "xo", "yo", "xi", "yi"})
      if (step_stage_name(s) == stage && s.contains(key) && s[key].is_string()) used.insert(s[key].get<std::string>());
  std::string outer = fresh_loop_name(loop + "x", used), inner = fresh_loop_name(loop + "v", used);
  json split = schedule_step("split", stage, {{"loop", loop}, {"factor", factor}, {"outer", outer}, {"inner", inner}});
  size_t first = steps.size();
  for (size_t i = 0; i < steps.size(); ++i)
    if (uses_loop(steps[i], stage, loop)) {
      first = i;
      break;
    }
  rename_loop_uses(steps, first, stage, loop, outer);
  steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(first), split);
  return inner;
}

}  // namespace cusched::search
