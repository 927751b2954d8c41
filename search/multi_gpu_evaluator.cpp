#include "search/multi_gpu_evaluator.h"

#include <atomic>
#include <future>

namespace cusched::search {

MultiGpuEvaluator::MultiGpuEvaluator(std::vector<int> devices) : devices_(std::move(devices)) {
  if (devices_.empty())
    fail("no-gpu-devices", "The GPU evaluator was given no devices.",
         "List at least one CUDA device, or use the interp backend.");
}

std::string MultiGpuEvaluator::status() const {
  return devices_.size() > 1 ? std::to_string(devices_.size()) + " GPUs" : "";
}

void MultiGpuEvaluator::run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                            const std::function<void(size_t)>& finished) {
  while (workers_.size() < devices_.size()) workers_.push_back(std::make_unique<runtime::Worker>(devices_[workers_.size()]));
  std::atomic<size_t> next{0};
  auto work = [&](runtime::Worker* worker) {
    for (size_t i; (i = next.fetch_add(1)) < batch.size();) {
      verify_prepared(problem, cfg, worker, batch[i]);
      finished(i);
    }
  };
  std::vector<std::future<void>> tasks;
  for (auto& w : workers_) tasks.push_back(std::async(std::launch::async, work, w.get()));
  for (auto& t : tasks) t.get();
}

}  // namespace cusched::search
