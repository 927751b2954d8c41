#pragma once
// The search loop: each round a proposer suggests schedules; they are validated,
// lowered, emitted and audited in parallel on the CPU, then verified (and timed)
// one at a time per GPU, or verified in the CPU interpreter at the small size and
// ranked by the cost model; everything goes into the store, and the best
// candidates seed the next round. A killed run resumes from its store.
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "problems/problem.h"
#include "runtime/sanitizer.h"
#include "search/evaluator.h"
#include "search/goal.h"
#include "search/proposer.h"
#include "search/search_status.h"
#include "search/stall.h"
#include "search/steering_round.h"
#include "search/store.h"

namespace cusched::search {

struct SearchOptions {
  std::string backend = "gpu";  // "gpu" (time on GPUs) or "interp" (interpreter + cost model)
  std::string size;             // empty: "bench" on gpu, "small" on interp
  int rounds = 4, ideas = 4, per_idea = 4;
  int64_t budget_candidates = 0;  // evaluations in the run; 0: no limit
  double budget_minutes = 0;      // wall time of this invocation; 0: no limit
  int64_t budget_tokens = 0;      // prompt + completion tokens in the run; 0: no limit
  uint64_t seed = 1;
  bool audit = true;
  bool strict = false;
  int cpu_threads = 0;             // 0: min(hardware threads, 4)
  std::vector<int> devices = {0};  // gpu backend: one worker per device
  double watchdog_s = 20;
  // gpu backend: a candidate whose first timed run is slower than this many times the best
  // so far is timed once (TimingConfig::cut_ms); 0 times every candidate fully.
  double cut_factor = 4;
  // gpu backend: a candidate's timed runs stop after about this many seconds of timing (at
  // least 5 runs; TimingConfig::budget_ms); 0 times every candidate 30 times.
  double timing_budget_s = 2;
  int context_best = 8, context_failures = 8;  // candidates shown to the proposer
  std::string replay_timings;                  // a TimingReplay file: times come from it, keyed by schedule hash
  bool sanitize_best = true;  // gpu backend: compute-sanitizer on the final best, kept in its evaluation result
  double sanitize_seconds = runtime::kSanitizerToolSeconds;  // the limit of each of its tools' runs
  std::optional<Goal> goal;  // stop when met; a resumed run keeps its stored goal when this is empty
  // Stop when stalled (search/stall.h); stall.rounds 0: never. With continue_on_stall the
  // diagnosis is printed and stored and the search goes on.
  StallRule stall{0, 0.01};
  bool continue_on_stall = false;
  std::string resolved_size() const { return size.empty() ? (backend == "gpu" ? "bench" : "small") : size; }
};

struct SearchSummary {
  int64_t run = 0;
  int rounds_finished = 0;
  int evaluated = 0, verified = 0;
  std::optional<double> best, baseline;  // ms: median on gpu runs, cost estimate on interp runs
  std::optional<int64_t> best_candidate;
  std::string problem_class;  // the built-in proposer's class of the problem (class_sketches.h)
  SearchStatus status = SearchStatus::finished;
  std::optional<GoalStanding> goal;  // when the run has a goal
  nlohmann::json stall;              // the last stall's diagnosis (stall_diagnosis.h), null when none
};

// The default store path of a problem's search: cusched-<problem>.db.
std::string default_db_path(const std::string& problem);

class SearchLoop {
 public:
  // Progress lines go to `log`, one per round, flushed. Candidates are verified by
  // `evaluator`; null: the interpreter in this process (interp backend) or one
  // worker per device of options.devices (gpu backend).
  SearchLoop(const Problem& problem, Store& store, Proposer& proposer, SearchOptions options, std::ostream& log,
             std::shared_ptr<Evaluator> evaluator = nullptr);

  // Starts a new run in the store and searches.
  SearchSummary run();
  // Continues `run_id`: evaluates its pending candidates first, finishes the
  // round they belong to, then runs the rounds still missing.
  SearchSummary resume(int64_t run_id);

 private:
  SearchSummary search(int64_t run, bool fresh);
  // Proposes, stores and evaluates round `index`; false when a budget ran out.
  bool do_round(int64_t run, int index);
  // Runs compute-sanitizer on the candidate and adds its report to the stored evaluation result.
  void sanitize_best(int64_t candidate);
  // Evaluates stored candidates; false when a budget stopped it before the end.
  bool evaluate(int64_t run, const std::vector<CandidateRecord>& candidates);
  bool budget_left(int64_t run) const;
  bool out_of_time() const;  // the time budget (budget_minutes) is spent
  int64_t tokens_used(int64_t run) const;
  void progress(int64_t run, int64_t round_id, int index);
  SearchSummary summarise(int64_t run, SearchStatus status) const;
  std::optional<double> score(const EvaluationRecord& e) const;
  // The goal's standing now; records it in the store (round `index`) the first time it is met.
  GoalStanding check_goal(int64_t run, int index, const Goal& goal);
  GoalStanding goal_standing_now(int64_t run, const Goal& goal) const;
  GoalInputs goal_inputs(int64_t run) const;

  const Problem& problem_;
  Store& store_;
  Proposer& proposer_;
  SearchOptions options_;
  std::ostream& log_;
  double started_ = 0;  // steady-clock seconds at construction
  std::shared_ptr<Evaluator> evaluator_;
};

}  // namespace cusched::search
