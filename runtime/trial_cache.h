#pragma once
// The worker process's cache of verification trials: each trial's pristine
// inputs and the reference's outputs on them, kept as device buffers, so that
// a later request for the same problem, size and inputs skips input
// generation, upload and the reference run. It holds the trials of one key
// only (the most recent), lives as long as the process, and is never written
// to disk: a fresh worker starts empty.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device_buffer.h"
#include "runtime/device_check.h"
#include "runtime/evaluation.h"
#include "runtime/gpu_context.h"
#include "runtime/output_check.h"

namespace cusched::runtime {

// The identity of a request's trials: a hash of the reference bundle (source,
// headers, buffers, launches), the input buffers' names, dtypes and shapes, the
// input distributions, base_seed, the number of seeds, inputs_dir (with the
// size and modification time of each of its files) and the device. The
// candidate, the tolerance and the timing settings do not enter it.
std::string trial_cache_key(const EvalRequest& req);

// One verification trial on the device.
struct DeviceTrial {
  std::string label;                                      // "seed 2", "adversarial", "inputs from DIR"
  std::map<std::string, DeviceBuffer> inputs;             // pristine copies, never handed to a kernel
  std::map<std::string, DeviceBuffer> reference_outputs;  // in the reference's dtypes
  std::map<std::string, OutputCheck> reference_checks;    // judge_reference of each reference output
  std::map<std::string, uint64_t> checksums;              // of each buffer above, keyed "in:<name>" / "ref:<name>"

  size_t bytes() const;
  // Takes the checksum of every buffer.
  void seal(const DeviceChecker& checker);
  // Whether every buffer still has the checksum taken by seal().
  bool intact(const DeviceChecker& checker) const;
};

// The trials of one key, in trial order: a prefix of the request's trials that
// grows as evaluations compute more of them.
class TrialSet {
 public:
  TrialSet(std::string key, int device);
  const std::string& key() const { return key_; }
  int device() const { return context_->index(); }
  size_t size() const;
  size_t bytes() const;
  std::shared_ptr<const DeviceTrial> trial(size_t index) const;  // nullptr past the end
  // Adds trial number size(); a trial of another number is not stored.
  void append(size_t index, std::shared_ptr<const DeviceTrial> trial);
  bool intact(const DeviceChecker& checker) const;

 private:
  std::string key_;
  std::unique_ptr<GpuContext> context_;  // keeps the primary context (and so the buffers) alive
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const DeviceTrial>> trials_;
};

class TrialCache {
 public:
  // The set stored under `key`, or a new empty set for it that replaces (and
  // frees) whatever was stored. `hit` says which.
  std::shared_ptr<TrialSet> acquire(const std::string& key, int device, bool* hit = nullptr);
  void clear();
  size_t bytes() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<TrialSet> current_;
};

// The cache of this process (never destroyed, so exit frees nothing through a driver already unloaded).
TrialCache& process_trial_cache();

// Whether `keep_bytes` more can stay on the current device while `working_bytes`
// are still to be allocated, leaving a margin of max(1 GiB, 5% of the memory).
bool device_has_room(size_t keep_bytes, size_t working_bytes);

// The fraction of the current device's memory this process may hold: CUSCHED_GPU_SHARE
// (above 0, at most 1; default 1). Processes that take turns on one GPU
// (CUSCHED_GPU_LOCK, runtime/gpu_lock.h) keep their trial caches between turns; each
// bounded by its share, they leave the process whose turn it is room to run. Throws
// UserError (code "bad-env") for a value that is not a number in (0, 1].
double gpu_memory_share();
// The share a CUSCHED_GPU_SHARE value names (nullptr or "": 1), as gpu_memory_share reads it.
double parse_gpu_memory_share(const char* value);

// Whether a process holding `bytes` on the current device stays within its share.
bool within_memory_share(size_t bytes);

}  // namespace cusched::runtime
