#include "dsl/error_attribution.h"

#include <algorithm>
#include <regex>

namespace cusched {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The first name in `text` that `pattern` captures and `accept` takes.
template <typename Accept>
std::string first_match(const std::string& text, const std::regex& pattern, Accept accept) {
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    if (accept((*it)[1].str())) return (*it)[1];
  return "";
}

// The stage an error is about: one it names ("stage 'X'", or kernel "kN_X"), else the
// stage that owns the loop it names, else the stage that stages the copy it names.
std::string stage_of_error(const Error& e, const ScheduleState& st, const std::string& loop,
                           const std::string& source) {
  auto is_stage = [&](const std::string& n) { return st.schedules.count(n) > 0; };
  static const std::regex named(R"([Ss]tage '([^']+)')"), kernel(R"(Kernel '?k\d+_([A-Za-z_][A-Za-z0-9_]*))");
  std::string stage = first_match(e.message, named, is_stage);
  if (stage.empty()) stage = first_match(e.message, kernel, is_stage);
  if (!stage.empty()) return stage;
  for (const auto& [name, s] : st.schedules)  // a loop of the lowered program: "<stage>_<loop>"
    if (loop.rfind(name + "_", 0) == 0 && s.find_loop(loop.substr(name.size() + 1))) return name;
  for (const auto& [name, s] : st.schedules) {
    if (!loop.empty() && s.find_loop(loop)) return name;
    for (const auto& cr : s.cache_reads)
      if (!source.empty() && cr.source == source) return name;
  }
  return "";
}

// The latest step that bound a loop of `s` to an axis that `axes` takes.
template <typename Axes>
int latest_binding(const StageSchedule& s, Axes axes) {
  int step = -1;
  for (const auto& [loop, b] : s.provenance.binding) {
    const LoopInfo* l = s.find_loop(loop);
    if (l && axes(l->axis)) step = std::max(step, b);
  }
  return step;
}

// The step behind error code `code` about `s` (its loop `loop`, its copy of `source`).
int step_behind(const std::string& code, const StageSchedule& s, const std::string& loop, const std::string& source) {
  const StageProvenance& p = s.provenance;
  const int copy = source.empty() ? -1 : p.cache_read_of(source);
  if (starts_with(code, "bulk-copy-") || starts_with(code, "pipeline-")) return std::max(copy, p.pipeline);
  if (starts_with(code, "cache-read-") || code == "swizzle-layout" || code == "register-tail-read")
    return copy >= 0 ? copy : p.last;
  if (starts_with(code, "cache-write-")) return std::max(p.cache_write, p.order);
  if (starts_with(code, "tensor-core-") || starts_with(code, "wgmma-") || starts_with(code, "mma-") ||
      starts_with(code, "ldmatrix-"))
    return std::max({p.tensor_core, p.order, copy});
  if (code == "launch-bounds-too-small") return std::max(p.launch_bounds, latest_binding(s, is_thread_axis));
  if (code == "too-many-threads") return std::max(latest_binding(s, is_thread_axis), p.order);
  if (code == "grid-too-large")
    return std::max(latest_binding(s, [](GpuAxis a) { return a == GpuAxis::BlockY || a == GpuAxis::BlockZ; }), p.order);
  if (code == "cluster-with-block-x")
    return latest_binding(s, [](GpuAxis a) { return a == GpuAxis::BlockX || a == GpuAxis::ClusterX; });
  if (code == "producer-not-visible") return p.location;
  if (!loop.empty() && p.binding_of(loop) >= 0) return p.binding_of(loop);
  return p.last;
}

}  // namespace

void attribute_error_to_step(Error& e, const ScheduleState& st, const std::vector<StepJson>& steps,
                             const std::string& phase) {
  if (e.phase.empty()) e.phase = phase;
  if (e.step >= 0) return;
  static const std::regex loop_re(R"([Ll]oop '([^']+)')"), source_re(R"(cache_read of '([^']+)')");
  const std::string loop = first_match(e.message, loop_re, [](const std::string&) { return true; });
  const std::string source = first_match(e.message, source_re, [](const std::string&) { return true; });
  const std::string stage = stage_of_error(e, st, loop, source);
  if (stage.empty()) return;
  const StageSchedule& s = st.schedules.at(stage);
  const std::string own_loop =
      s.find_loop(loop) || loop.rfind(stage + "_", 0) != 0 ? loop : loop.substr(stage.size() + 1);
  const int step = step_behind(e.code, s, own_loop, source);
  if (step < 0 || step >= static_cast<int>(steps.size())) return;
  e.step = step;
  if (steps[step].contains("op")) e.op = steps[step]["op"];
}

}  // namespace cusched
