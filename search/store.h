#pragma once
// The candidate store: one SQLite file (WAL mode) holding runs, rounds, ideas,
// candidates, their artifacts and evaluations, and the model calls of a search.
// Every write is one transaction, so a process killed at any moment leaves the
// file consistent and every finished evaluation in it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/schedule.h"
#include "search/proposer.h"

struct sqlite3;

namespace cusched::search {

struct RunInfo {
  int64_t id = 0;
  std::string problem;
  std::string size;             // e.g. "small" or "bench"
  std::string backend = "gpu";  // "gpu" or "interp"
  nlohmann::json config = nlohmann::json::object();
  uint64_t seed = 0;
  std::string created;             // UTC, ISO 8601
  std::string status = "running";  // free text chosen by the loop: "running", "finished", ...
  // The problem's full definition (its file form, problems/problem_file.h), so that a
  // report, an export or a resume never needs the file or the build that defined it;
  // null in runs stored without it.
  nlohmann::json problem_definition;
};

struct RoundInfo {
  int64_t id = 0;
  int64_t run = 0;
  int index = 0;
  std::string started, finished;  // finished is empty while the round runs
  int64_t prompt_tokens = 0, completion_tokens = 0;
};

struct NewCandidate {
  int64_t run = 0;
  std::optional<int64_t> round, idea, parent;
  nlohmann::json schedule;
  std::string schedule_hash;  // empty: computed from the schedule's canonical JSON
};

struct AddedCandidate {
  int64_t id = 0;
  bool is_new = false;  // false when the run already had this schedule
};

struct CandidateRecord {
  int64_t id = 0, run = 0;
  std::optional<int64_t> round, idea, parent;
  int round_index = -1;  // the round's index within the run, -1 when none
  std::string idea_text, idea_source;
  nlohmann::json schedule;
  std::string schedule_hash;
  std::string status;  // proposed | lowered | evaluated | rejected
  std::string created;
};

struct Artifacts {
  std::string cuda_source;
  std::string ir_text;
  nlohmann::json kernel_bundle;   // KernelBundle::to_json(), null when none
  nlohmann::json audit_findings;  // array of findings (each may carry "line")
  nlohmann::json compile_report;
};

struct EvaluationRecord {
  int64_t candidate = 0;
  std::string verdict;    // the runtime's verdict name ("ok", "wrong_output", ...) or a rejection code
  bool verified = false;  // counts as a result: runtime verdict ok and no audit error
  std::string reason;
  std::optional<double> median_ms, min_ms, max_ms, pct_of_floor, cost_estimate;
  std::optional<double> max_abs_error, max_rel_error;
  std::string precision, backend;
  nlohmann::json result;    // the full evaluation result as JSON
  std::string measured_at;  // filled by the store when empty
};

struct LeaderboardEntry {
  CandidateRecord candidate;
  EvaluationRecord evaluation;
};

struct RoundSummary {
  RoundInfo round;
  int candidates = 0, evaluated = 0, verified = 0, rejected = 0;
  std::optional<double> best_in_round;  // median ms (gpu runs) or cost (interp runs) of the round's best verified
  std::optional<double> best_so_far;    // the same over this and all earlier rounds
  std::optional<int64_t> best_candidate_in_round;
};

struct LlmCallRecord {
  int64_t id = 0;
  std::optional<int64_t> round;
  ModelCall call;
  std::string created;
};

class Store {
 public:
  // read_only: for report and export; the file must be a complete, undamaged store
  // (store_integrity.h), and nothing is written to it.
  enum class Mode { create_if_missing, existing_only, read_only };
  explicit Store(const std::string& path, Mode mode = Mode::create_if_missing);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int kSchemaVersion = 1;
  const std::string& path() const { return path_; }

  // Runs.
  int64_t create_run(const RunInfo& run);  // id and created are filled by the store
  std::optional<RunInfo> find_run(int64_t id) const;
  std::vector<RunInfo> list_runs() const;  // oldest first
  std::optional<int64_t> latest_run() const;
  void set_run_status(int64_t run, const std::string& status);

  // Rounds: begin_round returns the existing round when (run, index) is already there.
  int64_t begin_round(int64_t run, int index);
  void finish_round(int64_t round, int64_t prompt_tokens, int64_t completion_tokens);
  std::optional<RoundInfo> find_round(int64_t round) const;
  int next_round_index(int64_t run) const;  // one past the highest begun index, 0 for a new run
  std::vector<RoundSummary> round_summaries(int64_t run) const;

  // Ideas and candidates.
  int64_t add_idea(int64_t round, const std::string& text, const std::string& source);
  AddedCandidate add_candidate(const NewCandidate& c);
  void set_candidate_status(int64_t candidate, const std::string& status);
  std::optional<CandidateRecord> candidate(int64_t id) const;
  std::vector<CandidateRecord> candidates(int64_t run) const;  // in id order
  std::vector<CandidateRecord> pending(int64_t run) const;     // proposed or lowered, not yet evaluated

  // Artifacts and evaluations. save_evaluation marks the candidate evaluated;
  // reject stores a failed evaluation with the reason and marks it rejected.
  void save_artifacts(int64_t candidate, const Artifacts& a);
  std::optional<Artifacts> artifacts(int64_t candidate) const;
  void save_evaluation(const EvaluationRecord& e);
  void reject(int64_t candidate, const std::string& code, const std::string& reason);
  std::optional<EvaluationRecord> evaluation(int64_t candidate) const;
  std::vector<EvaluationRecord> evaluations(int64_t run) const;

  // Verified candidates, best first: by median ms on gpu runs, by cost estimate on interp runs.
  std::vector<LeaderboardEntry> leaderboard(int64_t run, int n) const;
  // Candidates that failed verification or were rejected, most recent first.
  std::vector<LeaderboardEntry> recent_failures(int64_t run, int n) const;
  // The same two lists as a proposer wants them (with CUDA source and audit findings).
  std::vector<TriedCandidate> best_tried(int64_t run, int n) const;
  std::vector<TriedCandidate> failed_tried(int64_t run, int n) const;

  // Model calls. The text is stored as given: callers pass replies, never keys.
  int64_t add_llm_call(std::optional<int64_t> round, const ModelCall& call);
  std::vector<LlmCallRecord> llm_calls(int64_t run) const;
  // The prompt of a model call (search/store_llm_prompts.cpp): kept in its own table,
  // llm_prompts, which add_llm_call fills from ModelCall::prompt.
  void save_llm_prompt(int64_t call, const std::string& prompt);
  std::optional<std::string> llm_prompt(int64_t call) const;

  std::string integrity_check() const;  // "ok" when the file is sound

  // The open database, for the tables kept in their own files (steering.h, review.h,
  // run_outcome_store.h), which use the statements of store_sql.h on it.
  sqlite3* connection() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  void migrate();
  bool rank_by_cost(int64_t run) const;
  std::vector<TriedCandidate> to_tried(const std::vector<LeaderboardEntry>& entries) const;
};

}  // namespace cusched::search
