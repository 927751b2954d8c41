#pragma once
// Evaluation on the ranks of an MPI job, run by rank 0: each idle rank gets the
// next prepared candidate (its schedule, and its lowered bundle on the gpu
// backend) and sends back the verification, and a heartbeat while it works. A rank
// that fails, sends no heartbeat for `silence_s` (it died) or does not answer within
// the timeout is dropped for the rest of the run and its candidate goes back to the
// queue for the others; when none is left, rank 0 evaluates the rest
// itself with `fallback` (or fails with "no-evaluators-left" when it has none).
#include <deque>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "search/evaluator.h"
#include "search/mpi_session.h"

namespace cusched::search {

class MpiEvaluator : public Evaluator {
 public:
  // `ranks`: the evaluator ranks to use (never rank 0). `timeout_s`: the longest
  // wait for one result; `silence_s`: the longest gap between a working rank's
  // heartbeats. Lost ranks are reported on `log`.
  MpiEvaluator(std::vector<RankInfo> ranks, std::shared_ptr<Evaluator> fallback, double timeout_s, double silence_s,
               std::ostream& log);
  ~MpiEvaluator() override;

  int alive() const override;
  int total() const override { return static_cast<int>(ranks_.size()); }
  std::string status() const override;

 protected:
  void run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override;

 private:
  struct Rank;
  void lose(Rank& r, const std::string& why, std::deque<size_t>& queue);

  std::vector<std::unique_ptr<Rank>> ranks_;
  std::shared_ptr<Evaluator> fallback_;
  double timeout_s_, silence_s_;
  std::ostream& log_;
  int64_t next_task_ = 1;
};

}  // namespace cusched::search
