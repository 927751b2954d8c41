#include "codegen/index_ranges.h"

#include <string>

#include "codegen/gpu_axis.h"

namespace cusched {

VarIntervals launch_ranges(const Kernel& kernel) {
  static const char* letters[] = {"x", "y", "z"};
  VarIntervals out;
  out["tid"] = IntInterval{0, kernel.block[0] * kernel.block[1] * kernel.block[2] - 1};
  for (int a = 0; a < 3; ++a) {
    out["threadIdx." + std::string(letters[a])] = IntInterval{0, kernel.block[a] - 1};
    out["blockIdx." + std::string(letters[a])] = IntInterval{0, kernel.grid[a] - 1};
  }
  return out;
}

std::optional<IntInterval> loop_range(const StmtNode& s, const Kernel& kernel, const VarIntervals& outer) {
  if (is_block_axis(s.axis)) return IntInterval{0, kernel.grid[gpu_axis_dimension(s.axis)] - 1};
  if (is_thread_axis(s.axis)) return IntInterval{0, kernel.block[gpu_axis_dimension(s.axis)] - 1};
  if (s.axis == GpuAxis::ClusterX) return IntInterval{0, kernel.grid[0] - 1};
  auto first = int_interval(s.min, outer);
  auto count = int_interval(s.extent, outer);
  if (!first || !count || count->hi < 1) return std::nullopt;
  return IntInterval{first->lo, first->hi + count->hi - 1};
}

}  // namespace cusched
