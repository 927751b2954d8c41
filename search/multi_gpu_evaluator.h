#pragma once
// Evaluation on every listed GPU of this host: one worker process per GPU, kept
// across batches, each started and driven by a thread of its own that lives as long as
// the evaluator (search/evaluation_thread.h); each idle GPU takes the next candidate of
// the batch.
#include <memory>
#include <vector>

#include "runtime/worker.h"
#include "search/evaluation_thread.h"
#include "search/evaluator.h"

namespace cusched::search {

class MultiGpuEvaluator : public Evaluator {
 public:
  explicit MultiGpuEvaluator(std::vector<int> devices);
  int alive() const override { return static_cast<int>(devices_.size()); }
  int total() const override { return static_cast<int>(devices_.size()); }
  std::string status() const override;

 protected:
  void run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override;

 private:
  std::vector<int> devices_;
  std::vector<std::unique_ptr<runtime::Worker>> workers_;   // used and restarted only on threads_[t]
  std::vector<std::unique_ptr<EvaluationThread>> threads_;  // last: they end before the workers go
};

}  // namespace cusched::search
