#include "dsl/schedule.h"

#include <functional>

#include "dsl/error.h"
#include "dsl/input_limits.h"
#include "dsl/schedule_legality.h"

namespace cusched {

Schedule::Schedule(ScheduleContext ctx) : state_(std::move(ctx)) {}

const StepJson& Schedule::apply(StepJson step) {
  int index = static_cast<int>(steps_.size());
  std::string op =
      step.is_object() && step.contains("op") && step["op"].is_string() ? step["op"].get<std::string>() : "";
  try {
    if (steps_.size() >= kMaxScheduleSteps)
      fail("too-many-steps",
           "A schedule has at most " + std::to_string(kMaxScheduleSteps) + " steps; this step would be one more.",
           "Shorten the schedule: the problems' best schedules need fewer than 40 steps.");
    StepJson norm = normalize_step(step);
    ScheduleState next = state_;
    find_primitive(op)->apply(next, norm);
    next.record_provenance(state_, index);
    for (auto it = norm.begin(); it != norm.end();) {
      if (it->is_null())
        it = norm.erase(it);
      else
        ++it;
    }
    state_ = std::move(next);
    steps_.push_back(std::move(norm));
    return steps_.back();
  } catch (UserError& e) {
    e.error().step = index;
    if (e.error().op.empty()) e.error().op = op;
    e.error().phase = "schedule";
    throw;
  } catch (const nlohmann::json::exception& e) {
    Error err;
    err.step = index;
    err.op = op;
    err.code = "bad-argument";
    err.message = std::string("The step's arguments could not be read: ") + e.what() + ".";
    err.hint = "Check the argument types against `cusched schema`.";
    err.phase = "schedule";
    throw UserError(err);
  }
}

Schedule Schedule::from_json(ScheduleContext ctx, const nlohmann::json& steps) {
  if (!steps.is_array())
    fail("not-a-schedule", "A schedule must be a JSON array of steps.",
         "Wrap the steps in [...], each an object with an \"op\" field.");
  Schedule s(std::move(ctx));
  for (const auto& step : steps) s.apply(step);
  s.check_legality();
  return s;
}

void Schedule::check_legality() const { check_schedule_legality(state_, steps_); }

nlohmann::json Schedule::to_json() const { return nlohmann::json(steps_); }

std::string Schedule::hash() const { return schedule_hash(to_json()); }

ValidationResult validate_schedule(const ScheduleContext& ctx, const nlohmann::json& steps) {
  ValidationResult r;
  try {
    Schedule s = Schedule::from_json(ctx, steps);
    r.ok = true;
    r.steps = s.to_json();
  } catch (const UserError& e) {
    r.error = e.error();
  }
  return r;
}

// --- chainable API: each method builds the JSON step and applies it ---

std::pair<std::string, std::string> Schedule::split(const std::string& stage, const std::string& loop, int64_t factor,
                                                    const std::string& outer, const std::string& inner) {
  StepJson j = {{"op", "split"}, {"stage", stage}, {"loop", loop}, {"factor", factor}};
  if (!outer.empty()) j["outer"] = outer;
  if (!inner.empty()) j["inner"] = inner;
  const auto& n = apply(j);
  return {n["outer"], n["inner"]};
}

Schedule& Schedule::tile(const std::string& stage, const std::string& x, const std::string& y, int64_t xf, int64_t yf) {
  apply({{"op", "tile"}, {"stage", stage}, {"x", x}, {"y", y}, {"x_factor", xf}, {"y_factor", yf}});
  return *this;
}

Schedule& Schedule::reorder(const std::string& stage, const std::vector<std::string>& loops) {
  apply({{"op", "reorder"}, {"stage", stage}, {"loops", loops}});
  return *this;
}

std::string Schedule::fuse(const std::string& stage, const std::string& outer, const std::string& inner,
                           const std::string& fused) {
  StepJson j = {{"op", "fuse"}, {"stage", stage}, {"outer", outer}, {"inner", inner}};
  if (!fused.empty()) j["fused"] = fused;
  return apply(j)["fused"];
}

Schedule& Schedule::bind(const std::string& loop, GpuAxis axis) {
  apply({{"op", "bind"}, {"loop", loop}, {"axis", gpu_axis_name(axis)}});
  return *this;
}

Schedule& Schedule::bind(const std::string& stage, const std::string& loop, GpuAxis axis) {
  apply({{"op", "bind"}, {"stage", stage}, {"loop", loop}, {"axis", gpu_axis_name(axis)}});
  return *this;
}

Schedule& Schedule::unroll(const std::string& stage, const std::string& loop) {
  apply({{"op", "unroll"}, {"stage", stage}, {"loop", loop}});
  return *this;
}

Schedule& Schedule::vectorize(const std::string& stage, const std::string& loop) {
  apply({{"op", "vectorize"}, {"stage", stage}, {"loop", loop}});
  return *this;
}

Schedule& Schedule::compute_at(const std::string& stage, const std::string& consumer, const std::string& loop) {
  apply({{"op", "compute_at"}, {"stage", stage}, {"consumer", consumer}, {"loop", loop}});
  return *this;
}

Schedule& Schedule::compute_inline(const std::string& stage) {
  apply({{"op", "compute_inline"}, {"stage", stage}});
  return *this;
}

Schedule& Schedule::compute_root(const std::string& stage) {
  apply({{"op", "compute_root"}, {"stage", stage}});
  return *this;
}

Schedule& Schedule::cache_read(const std::string& stage, const std::string& source, const std::string& scope,
                               const std::string& at, int pad) {
  apply({{"op", "cache_read"}, {"stage", stage}, {"source", source}, {"scope", scope}, {"at", at}, {"pad", pad}});
  return *this;
}

Schedule& Schedule::cache_write(const std::string& stage, const std::string& scope) {
  apply({{"op", "cache_write"}, {"stage", stage}, {"scope", scope}});
  return *this;
}

std::string Schedule::rfactor(const std::string& stage, const std::string& loop, const std::string& name) {
  StepJson j = {{"op", "rfactor"}, {"stage", stage}, {"loop", loop}};
  if (!name.empty()) j["name"] = name;
  return apply(j)["name"];
}

Schedule& Schedule::cross_thread_scan(const std::string& stage, const std::string& loop) {
  apply({{"op", "cross_thread_scan"}, {"stage", stage}, {"loop", loop}});
  return *this;
}

Schedule& Schedule::cross_thread_reduce(const std::string& stage, const std::string& loop, const std::string& kind) {
  apply({{"op", "cross_thread_reduce"}, {"stage", stage}, {"loop", loop}, {"kind", kind}});
  return *this;
}

Schedule& Schedule::pipeline(const std::string& stage, const std::string& loop, int depth) {
  apply({{"op", "pipeline"}, {"stage", stage}, {"loop", loop}, {"depth", depth}});
  return *this;
}

Schedule& Schedule::tensor_core(const std::string& stage, const std::string& shape, const std::string& precision) {
  apply({{"op", "tensor_core"}, {"stage", stage}, {"shape", shape}, {"precision", precision}});
  return *this;
}

Schedule& Schedule::precision(const std::string& stage, const std::string& operands, const std::string& math) {
  apply({{"op", "precision"}, {"stage", stage}, {"operands", operands}, {"math", math}});
  return *this;
}

Schedule& Schedule::launch_bounds(const std::string& stage, int max_threads, int min_blocks) {
  apply({{"op", "launch_bounds"}, {"stage", stage}, {"max_threads", max_threads}, {"min_blocks", min_blocks}});
  return *this;
}

}  // namespace cusched
