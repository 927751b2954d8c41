#include "search/multi_gpu_evaluator.h"

#include <atomic>
#include <exception>

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
  while (workers_.size() < devices_.size()) {
    workers_.push_back(std::make_unique<runtime::Worker>(devices_[workers_.size()]));
    threads_.push_back(std::make_unique<EvaluationThread>());
  }
  // Thread t drives worker t; each takes the next candidate of the batch when it is idle.
  std::atomic<size_t> next{0};
  for (size_t t = 0; t < threads_.size(); ++t)
    threads_[t]->start([&, t] {
      for (size_t i; (i = next.fetch_add(1)) < batch.size();) {
        verify_prepared(problem, cfg, workers_[t].get(), batch[i]);
        finished(i);
      }
    });
  std::exception_ptr error;
  for (auto& thread : threads_) try {
      thread->wait();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  if (error) std::rethrow_exception(error);
}

}  // namespace cusched::search
