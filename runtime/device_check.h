#pragma once
// Output checks on the device: the statistics that judge_output and
// judge_reference need, gathered by a few reduction kernels over device
// buffers, so that verification downloads a handful of numbers instead of whole
// tensors. Also the first differing byte of two buffers (the input-unchanged
// check) and a checksum of a buffer (the trial cache's integrity check).
#include <cstdint>
#include <string>

#include "dsl/dtype.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/gpu_context.h"
#include "runtime/launch_sequence.h"
#include "runtime/output_check.h"

namespace cusched::runtime {

// The CUDA source of the check kernels (compiled with NVRTC and --fmad=false,
// so that each element's arithmetic is the host's).
const std::string& device_check_source();

// The check kernels loaded into the current context. The CUBIN is compiled once
// per process and architecture; the module is loaded once per checker.
class DeviceChecker {
 public:
  // `watchdog_s`: the longest one check may run before WatchdogTimeout.
  DeviceChecker(const GpuContext& ctx, double watchdog_s);

  // Statistics of `elements` elements of `dtype` at `reference`.
  ReferenceStats reference_stats(CUdeviceptr reference, DType dtype, int64_t elements) const;

  // Statistics of the candidate output `candidate` (of `candidate_dtype`)
  // against `reference` (of `reference_dtype`, usually f64); equal to the host's
  // output_stats on the same data, except for the rounding of the two sums.
  OutputStats output_stats(CUdeviceptr candidate, DType candidate_dtype, CUdeviceptr reference, DType reference_dtype,
                           int64_t elements, const Tolerance& tol, bool poisoned) const;

  // The index of the first byte where the two buffers differ, -1 when equal.
  int64_t first_difference(CUdeviceptr a, CUdeviceptr b, size_t bytes) const;

  // An order-sensitive 64-bit checksum of `bytes` bytes at `p`.
  uint64_t checksum(CUdeviceptr p, size_t bytes) const;

 private:
  struct Slots;
  Slots launch(CUfunction f, void** params, int64_t work_items, const std::string& what) const;
  double element_at(CUdeviceptr p, DType dtype, int64_t index) const;

  const GpuContext& ctx_;
  double watchdog_s_;
  LoadedModule module_;
  CUfunction reference_kernel_, output_kernel_, worst_kernel_, difference_kernel_, checksum_kernel_;
  DeviceBuffer slots_;
  unsigned max_blocks_;
};

}  // namespace cusched::runtime
