#pragma once
// The messages between MPI rank 0 and its evaluator ranks, as JSON text:
//   task   {"task": id, "problem": name, "config": {...}, "steps": [...],
//           "schedule_hash": h, "bundle": KernelBundle (gpu backend only)}
//   result {"task": id, "verdict": v, "reason": r, "error"?, "gpu"?, "interp"?}
// Rank 0 keeps everything the CPU part produced (bundle, audit, cost estimate);
// a result carries only what verification adds.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "search/candidate_evaluation.h"

namespace cusched::search {

struct EvaluationTask {
  int64_t id = 0;
  std::string problem;
  EvalConfig config;
  CandidateOutcome prepared;  // steps, schedule_hash, precision and (gpu) bundle
};

std::string encode_task(int64_t id, const std::string& problem, const EvalConfig& cfg, const CandidateOutcome& prepared);
// Throws UserError ("bad-task-message") when `text` is not a task.
EvaluationTask decode_task(const std::string& text);

std::string encode_result(int64_t id, const CandidateOutcome& verified);
// The task id of a result, and what verification found copied into `outcome`.
// Throws UserError ("bad-result-message") when `text` is not a result.
int64_t decode_result(const std::string& text, CandidateOutcome& outcome);

}  // namespace cusched::search
