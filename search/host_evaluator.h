#pragma once
// The evaluator of this process for a search's backend: the interpreter on a few
// CPU threads, or one worker per listed GPU of this host.
#include <memory>

#include "search/evaluator.h"
#include "search/loop.h"

namespace cusched::search {

// A LocalEvaluator on options.cpu_threads threads for the interp backend, else a
// MultiGpuEvaluator over options.devices (which fails with "no-gpu-devices" when
// the list is empty).
std::shared_ptr<Evaluator> host_evaluator(const SearchOptions& options);

}  // namespace cusched::search
