#include "search/host_evaluator.h"

#include "search/local_evaluator.h"
#include "search/multi_gpu_evaluator.h"

namespace cusched::search {

std::shared_ptr<Evaluator> host_evaluator(const SearchOptions& options) {
  if (options.backend == "interp") return std::make_shared<LocalEvaluator>(options.cpu_threads);
  return std::make_shared<MultiGpuEvaluator>(options.devices);
}

}  // namespace cusched::search
