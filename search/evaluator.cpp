#include "search/evaluator.h"

#include <mutex>
#include <optional>

namespace cusched::search {

void Evaluator::evaluate(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                         const Done& done) {
  std::mutex mu;
  std::vector<char> finished(batch.size(), 0);
  size_t next = 0;  // the first outcome not yet handed to `done`
  run(problem, cfg, batch, [&](size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    finished.at(i) = 1;
    for (; next < batch.size() && finished[next]; ++next) {
      if (replay_) replay_->apply(cfg.backend, batch[next]);
      done(next, batch[next]);
    }
  });
}

void verify_prepared(const Problem& problem, const EvalConfig& cfg, runtime::Worker* worker,
                     CandidateOutcome& outcome) {
  if (cfg.backend == "interp") {
    std::optional<Schedule> schedule;
    try {
      schedule.emplace(Schedule::from_json(problem.context(cfg.size, cfg.strict), outcome.steps));
    } catch (const UserError& e) {
      outcome.verdict = runtime::Verdict::rejected;
      outcome.error = e.error();
      outcome.reason = "The prepared schedule is not legal where it was verified: " + e.error().to_string();
      return;
    }
    verify_candidate(problem, *schedule, cfg, nullptr, outcome);
    return;
  }
  verify_bundle_on_gpu(problem, cfg, worker, outcome);
}

}  // namespace cusched::search
