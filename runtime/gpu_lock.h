#pragma once
// Turns on one GPU among cooperating processes. When the environment variable
// CUSCHED_GPU_LOCK names a path, a GpuLock holds an exclusive flock(2) on the file
// "<path>.<device>" from its construction to its destruction, so that the evaluations of
// several processes (searches run side by side, a benchmark's PyTorch timings) take turns
// on the device and no timed launch shares it with another process's work. Without the
// variable a GpuLock does nothing. The lock goes with the process: a killed holder frees it.
#include <functional>
#include <string>

namespace cusched::runtime {

// The lock file of `device`, or "" when CUSCHED_GPU_LOCK is unset or empty.
std::string gpu_lock_path(int device);

class GpuLock {
 public:
  // Blocks until the lock is held, calling `waiting` about once a second meanwhile (a
  // worker's heartbeat, so that its parent does not take a long wait for a hang); throws
  // UserError (code "gpu-lock") when the file cannot be opened or locked.
  explicit GpuLock(int device, const std::function<void()>& waiting = {});
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  bool held() const { return fd_ >= 0; }
  double waited_ms() const { return waited_ms_; }  // how long the constructor waited for the lock

 private:
  int fd_ = -1;
  double waited_ms_ = 0;
};

}  // namespace cusched::runtime
