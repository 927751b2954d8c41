#pragma once
// Replayed timings: a file that gives each schedule (by its hash) a time in ms.
// An evaluator that replays takes a candidate's time from the file instead of the
// measurement, so the same search chooses the same winner whatever the number and
// speed of its evaluators.
//
// File: a JSON object {"<schedule hash>": ms, ...}, or a JSON array of
// {"schedule_hash": "<hash>", "ms": ms} objects.
#include <map>
#include <optional>
#include <string>

#include "search/candidate_evaluation.h"

namespace cusched::search {

class TimingReplay {
 public:
  // Reads `path`; throws UserError ("replay-file-unreadable", "replay-file-invalid").
  static TimingReplay load(const std::string& path);
  static TimingReplay from_json(const nlohmann::json& j);

  std::optional<double> ms(const std::string& schedule_hash) const;

  // Replaces the time of a verified outcome whose hash the file knows: the GPU
  // median (and min, max, the times and % of floor) on the gpu backend, the cost
  // estimate on the interp backend. Returns true when it replaced one.
  bool apply(const std::string& backend, CandidateOutcome& outcome) const;

 private:
  std::map<std::string, double> times_;
};

}  // namespace cusched::search
