#include "search/local_evaluator.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

namespace cusched::search {

LocalEvaluator::LocalEvaluator(int threads)
    : threads_(threads > 0 ? threads : static_cast<int>(std::max(1u, std::min(std::thread::hardware_concurrency(), 4u)))) {}

void LocalEvaluator::run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                         const std::function<void(size_t)>& finished) {
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i; (i = next.fetch_add(1)) < batch.size();) {
      verify_prepared(problem, cfg, nullptr, batch[i]);
      finished(i);
    }
  };
  std::vector<std::future<void>> tasks;
  size_t n = std::min(static_cast<size_t>(threads_), batch.size());
  for (size_t t = 0; t < n; ++t) tasks.push_back(std::async(std::launch::async, work));
  for (auto& t : tasks) t.get();
}

}  // namespace cusched::search
