#include "search/mpi_task_codec.h"

namespace cusched::search {
namespace {

nlohmann::json parse(const std::string& text, const char* code, const char* what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("task") || !j["task"].is_number_integer())
    fail(code, std::string("A message between MPI ranks is not a ") + what + ".",
         "Run the same cusched build on every rank of the MPI job.");
  return j;
}

Error error_from_json(const nlohmann::json& j) {
  Error e;
  e.step = j.value("step", -1);
  e.op = j.value("op", "");
  e.code = j.value("code", "");
  e.message = j.value("message", "");
  e.hint = j.value("hint", "");
  return e;
}

runtime::InterpVerification interp_from_json(const nlohmann::json& j) {
  runtime::InterpVerification v;
  v.verdict = j.value("verdict", "");
  v.message = j.value("message", "");
  if (j.contains("error")) v.error = error_from_json(j["error"]);
  v.max_abs_err = j.value("max_abs_err", 0.0);
  v.max_rel_err = j.value("max_rel_err", 0.0);
  v.rel_l2_err = j.value("rel_l2_err", 0.0);
  v.trials = j.value("trials", 0);
  return v;
}

}  // namespace

std::string encode_task(int64_t id, const std::string& problem, const EvalConfig& cfg, const CandidateOutcome& prepared) {
  nlohmann::json j = {{"task", id},
                      {"problem", problem},
                      {"config",
                       {{"backend", cfg.backend}, {"size", cfg.size}, {"seed", cfg.seed}, {"strict", cfg.strict},
                        {"time_it", cfg.time_it}, {"watchdog_s", cfg.watchdog_s}}},
                      {"steps", prepared.steps},
                      {"schedule_hash", prepared.schedule_hash},
                      {"precision", prepared.precision}};
  if (cfg.backend != "interp") j["bundle"] = prepared.bundle.to_json();
  return j.dump();
}

EvaluationTask decode_task(const std::string& text) {
  nlohmann::json j = parse(text, "bad-task-message", "task");
  EvaluationTask t;
  try {
    t.id = j["task"];
    t.problem = j.at("problem");
    const auto& c = j.at("config");
    t.config.backend = c.at("backend");
    t.config.size = c.at("size");
    t.config.seed = c.at("seed");
    t.config.strict = c.at("strict");
    t.config.time_it = c.at("time_it");
    t.config.watchdog_s = c.at("watchdog_s");
    t.prepared.steps = j.at("steps");
    t.prepared.schedule_hash = j.at("schedule_hash");
    t.prepared.precision = j.value("precision", "f32");
    if (j.contains("bundle")) t.prepared.bundle = KernelBundle::from_json(j["bundle"]);
  } catch (const nlohmann::json::exception& e) {
    fail("bad-task-message", std::string("A task sent between MPI ranks lacks a field: ") + e.what() + ".",
         "Run the same cusched build on every rank of the MPI job.");
  }
  return t;
}

std::string encode_result(int64_t id, const CandidateOutcome& verified) {
  nlohmann::json j = {{"task", id}, {"verdict", verified.verdict}, {"reason", verified.reason}};
  if (!verified.error.code.empty()) j["error"] = verified.error.to_json();
  if (verified.gpu) j["gpu"] = verified.gpu->to_json();
  if (verified.interp) j["interp"] = verified.interp->to_json();
  return j.dump();
}

int64_t decode_result(const std::string& text, CandidateOutcome& outcome) {
  nlohmann::json j = parse(text, "bad-result-message", "result");
  try {
    outcome.verdict = j.at("verdict");
    outcome.reason = j.at("reason");
    if (j.contains("error")) outcome.error = error_from_json(j["error"]);
    if (j.contains("gpu")) outcome.gpu = runtime::EvalResult::from_json(j["gpu"]);
    if (j.contains("interp")) outcome.interp = interp_from_json(j["interp"]);
  } catch (const nlohmann::json::exception& e) {
    fail("bad-result-message", std::string("A result sent between MPI ranks lacks a field: ") + e.what() + ".",
         "Run the same cusched build on every rank of the MPI job.");
  }
  return j["task"];
}

}  // namespace cusched::search
