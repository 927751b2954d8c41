#pragma once
// The ranges of a kernel's index variables, from its launch and its loops: what the
// emitter bounds index arithmetic with (codegen/index_interval.h) and what
// simplify_divisions starts from.
#include <optional>

#include "codegen/index_interval.h"
#include "codegen/ir.h"

namespace cusched {

// tid, threadIdx.x/y/z and blockIdx.x/y/z over the kernel's launch.
VarIntervals launch_ranges(const Kernel& kernel);

// The range of loop `s`'s variable: a block or thread loop's from the launch (a cluster
// loop's variable is blockIdx.x), a serial loop's from its start and extent as bounded by
// `outer`; nullopt where either is unbounded.
std::optional<IntInterval> loop_range(const StmtNode& s, const Kernel& kernel, const VarIntervals& outer);

}  // namespace cusched
