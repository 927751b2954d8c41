#pragma once
// The messages between MPI rank 0 and its evaluator ranks, as JSON text:
//   task   {"task": id, "problem": name, "definition": the problem's file form,
//           "config": EvalConfig::to_json,
//           "outcome": the prepared CandidateOutcome::to_json_with_artifacts}
//   result {"task": id, "outcome": the verified CandidateOutcome::to_json_with_artifacts}
// Both carry every field: a rank verifies the outcome rank 0 prepared, and rank 0
// takes the verified outcome as the rank sent it.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "search/candidate_evaluation.h"

namespace cusched::search {

struct EvaluationTask {
  int64_t id = 0;
  std::string problem;
  nlohmann::json definition;  // problems/problem_file.h; null from a sender that gave only the name
  EvalConfig config;
  CandidateOutcome prepared;  // as prepare_candidate left it (verdict empty)
};

std::string encode_task(int64_t id, const Problem& problem, const EvalConfig& cfg, const CandidateOutcome& prepared);
// Throws UserError ("bad-task-message") when `text` is not a task.
EvaluationTask decode_task(const std::string& text);

std::string encode_result(int64_t id, const CandidateOutcome& verified);
// The task id of a result; the verified outcome it carries replaces `outcome`.
// Throws UserError ("bad-result-message") when `text` is not a result, leaving
// `outcome` as it was.
int64_t decode_result(const std::string& text, CandidateOutcome& outcome);

}  // namespace cusched::search
