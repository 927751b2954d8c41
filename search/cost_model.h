#pragma once
// The analytical cost model: an estimate of a lowered program's time on an H200 from
// its global-memory traffic (with coalescing), arithmetic, parallelism and launches.
// It ranks candidates where no GPU is present and guides the built-in proposer.
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ir.h"

namespace cusched::search {

// An H200's multiprocessors, the threads each holds resident, and the machine's.
constexpr int64_t kMultiprocessors = 132;
constexpr int64_t kThreadsPerMultiprocessor = 2048;
constexpr double kMachineThreads = static_cast<double>(kMultiprocessors * kThreadsPerMultiprocessor);

// Blocks of `threads` threads that one sm_90 multiprocessor holds at once: 64 warps, 32
// blocks, 65536 registers (`registers` per thread, allocated per warp in units of 256; 0
// when not known) and 228 KiB of shared memory (`smem_bytes` per block, 1 KiB reserved per
// block).
int64_t resident_blocks(int64_t threads, int registers, int64_t smem_bytes);

struct KernelCost {
  std::string kernel;
  double ms = 0, global_bytes = 0, flops = 0, occupancy = 0;
};

struct CostBreakdown {
  double ms = 0;
  double global_bytes = 0;  // estimated DRAM/L2 traffic
  double flops = 0;
  double occupancy = 0;  // resident-thread fraction of the machine, capped at 1
  int kernels = 0;
  std::vector<KernelCost> per_kernel;  // in launch order
};

CostBreakdown estimate_cost(const LoweredProgram& program);

}  // namespace cusched::search
