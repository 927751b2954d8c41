#pragma once
// A device's primary CUDA context and the one stream an evaluation uses (a
// blocking stream, so synchronous copies order with it), plus
// waiting on that stream under a watchdog.
#include <stdexcept>
#include <string>

#include "runtime/cuda_driver.h"

namespace cusched::runtime {

// Thrown when a launch sequence is still running after the watchdog's limit.
class WatchdogTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Set after a fault that leaves the context unusable (illegal address, a kernel
// that never ends): from then on the wrappers below release nothing, since
// freeing memory under a running kernel would block forever.
bool context_broken();
void mark_context_broken();

class GpuContext {
 public:
  explicit GpuContext(int device_index);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  int index() const { return index_; }
  CUdevice device() const { return device_; }
  CUstream stream() const { return stream_; }
  int attribute(CUdevice_attribute a) const;

  // Polls the stream until its work is done; throws WatchdogTimeout after
  // `watchdog_s` seconds and CudaFailure when the work failed.
  void wait(double watchdog_s, const std::string& what) const;

 private:
  int index_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace cusched::runtime
