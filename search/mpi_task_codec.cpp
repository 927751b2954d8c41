#include "search/mpi_task_codec.h"

#include "problems/problem_file.h"

namespace cusched::search {
namespace {

nlohmann::json parse(const std::string& text, const char* code, const char* what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("task") || !j["task"].is_number_integer())
    fail(code, std::string("A message between MPI ranks is not a ") + what + ".",
         "Run the same cusched build on every rank of the MPI job.");
  return j;
}

}  // namespace

std::string encode_task(int64_t id, const Problem& problem, const EvalConfig& cfg, const CandidateOutcome& prepared) {
  nlohmann::json j = {{"task", id},
                      {"problem", problem.name},
                      {"definition", problem_to_json(problem)},
                      {"config", cfg.to_json()},
                      {"outcome", prepared.to_json_with_artifacts()}};
  return j.dump();
}

EvaluationTask decode_task(const std::string& text) {
  nlohmann::json j = parse(text, "bad-task-message", "task");
  EvaluationTask t;
  try {
    t.id = j["task"];
    t.problem = j.at("problem");
    if (j.contains("definition")) t.definition = j["definition"];
    t.config = EvalConfig::from_json(j.at("config"));
    t.prepared = CandidateOutcome::from_json(j.at("outcome"));
  } catch (const nlohmann::json::exception& e) {
    fail("bad-task-message", std::string("A task sent between MPI ranks lacks a field: ") + e.what() + ".",
         "Run the same cusched build on every rank of the MPI job.");
  }
  return t;
}

std::string encode_result(int64_t id, const CandidateOutcome& verified) {
  nlohmann::json j = {{"task", id}, {"outcome", verified.to_json_with_artifacts()}};
  return j.dump();
}

int64_t decode_result(const std::string& text, CandidateOutcome& outcome) {
  nlohmann::json j = parse(text, "bad-result-message", "result");
  try {
    outcome = CandidateOutcome::from_json(j.at("outcome"));
  } catch (const nlohmann::json::exception& e) {
    fail("bad-result-message", std::string("A result sent between MPI ranks lacks a field: ") + e.what() + ".",
         "Run the same cusched build on every rank of the MPI job.");
  }
  return j["task"];
}

}  // namespace cusched::search
