#pragma once
// Evaluation in this process: the CPU interpreter on a few threads (interp backend).
#include "search/evaluator.h"

namespace cusched::search {

class LocalEvaluator : public Evaluator {
 public:
  // `threads` 0: min(hardware threads, 4).
  explicit LocalEvaluator(int threads = 0);
  int alive() const override { return 1; }
  int total() const override { return 1; }

 protected:
  void run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override;

 private:
  int threads_;
};

}  // namespace cusched::search
