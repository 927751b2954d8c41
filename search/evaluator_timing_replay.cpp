#include "search/evaluator_timing_replay.h"

#include <fstream>

namespace cusched::search {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  fail("replay-file-invalid", "The replayed timings are not valid: " + what + ".",
       "Give a JSON object {\"<schedule hash>\": ms} or an array of {\"schedule_hash\": ..., \"ms\": ...} objects.");
}

double positive_ms(const nlohmann::json& v, const std::string& hash) {
  if (!v.is_number() || v.get<double>() <= 0) invalid("the time of '" + hash + "' is not a positive number of ms");
  return v.get<double>();
}

}  // namespace

TimingReplay TimingReplay::load(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    fail("replay-file-unreadable", "Cannot read the replayed timings file '" + path + "'.",
         "Check the path given to --replay-timings.");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) invalid("'" + path + "' is not JSON");
  return from_json(j);
}

TimingReplay TimingReplay::from_json(const nlohmann::json& j) {
  TimingReplay r;
  if (j.is_object()) {
    for (const auto& [hash, ms] : j.items()) r.times_[hash] = positive_ms(ms, hash);
  } else if (j.is_array()) {
    for (const auto& e : j) {
      if (!e.is_object() || !e.contains("schedule_hash") || !e["schedule_hash"].is_string() || !e.contains("ms"))
        invalid("an array entry lacks a string schedule_hash or an ms");
      std::string hash = e["schedule_hash"];
      r.times_[hash] = positive_ms(e["ms"], hash);
    }
  } else {
    invalid("the top level is neither an object nor an array");
  }
  return r;
}

std::optional<double> TimingReplay::ms(const std::string& schedule_hash) const {
  auto it = times_.find(schedule_hash);
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

bool TimingReplay::apply(const std::string& backend, CandidateOutcome& outcome) const {
  if (!outcome.verified()) return false;
  auto t = ms(outcome.schedule_hash);
  if (!t) return false;
  if (backend == "interp") {
    outcome.cost_estimate_ms = *t;
    return true;
  }
  if (!outcome.gpu) return false;
  runtime::EvalResult& g = *outcome.gpu;
  g.median_ms = g.min_ms = g.max_ms = *t;
  g.times_ms = {*t};
  if (g.floor_ms > 0) g.pct_of_floor = 100.0 * g.floor_ms / *t;
  return true;
}

}  // namespace cusched::search
