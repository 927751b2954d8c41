#pragma once
// The kernel contract of a problem: the entry point a hand-written or generated
// kernel for it implements, {"kernel_name": "<problem>_kernel", "params": [...]},
// one pointer parameter per buffer: the inputs (const) in pipeline order, then the
// outputs. Each parameter is {"name", "type" (CUDA C pointer type), "dtype", "is_output"}.
#include <nlohmann/json.hpp>

#include "problems/problem.h"

namespace cusched {

nlohmann::json kernel_contract(const Problem& p);

}  // namespace cusched
