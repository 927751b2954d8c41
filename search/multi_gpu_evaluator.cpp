#include "search/multi_gpu_evaluator.h"

#include "search/parallel_for.h"

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
  while (workers_.size() < devices_.size())
    workers_.push_back(std::make_unique<runtime::Worker>(devices_[workers_.size()]));
  // Thread t drives worker t.
  parallel_for(batch.size(), workers_.size(), [&](size_t thread, size_t i) {
    verify_prepared(problem, cfg, workers_[thread].get(), batch[i]);
    finished(i);
    return true;
  });
}

}  // namespace cusched::search
