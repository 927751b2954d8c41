#include "search/local_evaluator.h"

#include "search/parallel_for.h"

namespace cusched::search {

LocalEvaluator::LocalEvaluator(int threads) : threads_(cpu_thread_count(threads)) {}

void LocalEvaluator::run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                         const std::function<void(size_t)>& finished) {
  parallel_for(batch.size(), static_cast<size_t>(threads_), [&](size_t, size_t i) {
    verify_prepared(problem, cfg, nullptr, batch[i]);
    finished(i);
    return true;
  });
}

}  // namespace cusched::search
