#pragma once
// A schedule: an ordered list of primitive steps applied to a pipeline. Steps are
// JSON objects ({"op": "split", ...}) checked against the primitive registry; the
// chainable C++ methods build the same steps.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/error.h"
#include "dsl/primitive.h"
#include "dsl/schedule_state.h"

namespace cusched {

class Schedule {
 public:
  explicit Schedule(ScheduleContext ctx);

  // Checks one step against the registry and applies it. On an illegal step throws
  // UserError whose Error carries the step index and op; the schedule is unchanged.
  const StepJson& apply(StepJson step);
  // Checks the finished schedule against the whole-schedule legality rules
  // (dsl/schedule_legality.h); throws UserError naming the step that caused a broken rule.
  // from_json and from_text call it; the chainable API leaves it to the caller (lowering
  // calls it), so that a chain may pass through states that its later steps make legal.
  void check_legality() const;
  // Builds a schedule from a JSON array of steps and checks its legality.
  static Schedule from_json(ScheduleContext ctx, const nlohmann::json& steps);
  // Builds a schedule from the one-line-per-step text form and checks its legality.
  static Schedule from_text(ScheduleContext ctx, const std::string& text);

  const std::vector<StepJson>& steps() const { return steps_; }
  const ScheduleState& state() const { return state_; }
  nlohmann::json to_json() const;  // the normalised steps
  std::string to_text() const;     // one line per step
  std::string hash() const;        // 16 hex digits of the normalised JSON

  // Chainable C++ API; each call appends the equivalent JSON step.
  std::pair<std::string, std::string> split(const std::string& stage, const std::string& loop, int64_t factor,
                                            const std::string& outer = "", const std::string& inner = "");
  Schedule& tile(const std::string& stage, const std::string& x, const std::string& y, int64_t xf, int64_t yf);
  Schedule& reorder(const std::string& stage, const std::vector<std::string>& loops);
  std::string fuse(const std::string& stage, const std::string& outer, const std::string& inner,
                   const std::string& fused = "");
  Schedule& bind(const std::string& loop, GpuAxis axis);
  Schedule& bind(const std::string& stage, const std::string& loop, GpuAxis axis);
  Schedule& unroll(const std::string& stage, const std::string& loop);
  Schedule& vectorize(const std::string& stage, const std::string& loop);
  Schedule& compute_at(const std::string& stage, const std::string& consumer, const std::string& loop);
  Schedule& compute_inline(const std::string& stage);
  Schedule& compute_root(const std::string& stage);
  Schedule& cache_read(const std::string& stage, const std::string& source, const std::string& scope,
                       const std::string& at, int pad = 0);
  Schedule& cache_write(const std::string& stage, const std::string& scope);
  std::string rfactor(const std::string& stage, const std::string& loop, const std::string& name = "");
  Schedule& cross_thread_reduce(const std::string& stage, const std::string& loop, const std::string& kind);
  Schedule& cross_thread_scan(const std::string& stage, const std::string& loop);
  Schedule& pipeline(const std::string& stage, const std::string& loop, int depth);
  Schedule& tensor_core(const std::string& stage, const std::string& shape, const std::string& precision);
  Schedule& precision(const std::string& stage, const std::string& operands, const std::string& math = "exact");
  Schedule& launch_bounds(const std::string& stage, int max_threads, int min_blocks = 1);

 private:
  ScheduleState state_;
  std::vector<StepJson> steps_;
};

// Checks a step's shape against its primitive's declaration (op known, required
// arguments present and typed, no unknown arguments) and fills declared defaults.
StepJson normalize_step(const StepJson& step);

// The JSON Schema of a schedule (an array of steps), derived from the registry.
nlohmann::json schedule_json_schema();
// The primitive reference (docs/primitives.md), derived from the registry.
std::string primitive_reference_markdown();

// Result of checking a whole schedule: the normalised steps, or the first error.
struct ValidationResult {
  bool ok = false;
  nlohmann::json steps;
  Error error;
};
ValidationResult validate_schedule(const ScheduleContext& ctx, const nlohmann::json& steps);

// 16 hex digits identifying a list of steps: the FNV-1a hash of its JSON text (object
// keys sorted), from kScheduleHashBasis. Search stores key candidates on it.
std::string schedule_hash(const nlohmann::json& steps);
// The schedule hash's FNV basis; a different basis would give every stored candidate a
// new hash, so it stays fixed.
inline constexpr uint64_t kScheduleHashBasis = 1469598103934665603ull;

}  // namespace cusched
