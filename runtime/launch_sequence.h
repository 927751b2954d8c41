#pragma once
// A kernel bundle's CUBIN loaded into the current context with its launches
// bound to device buffers, ready to enqueue as one launch sequence.
#include <map>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"
#include "runtime/cuda_driver.h"

namespace cusched::runtime {

class LoadedModule {
 public:
  explicit LoadedModule(const std::string& cubin);  // throws CudaFailure
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  CUfunction function(const std::string& name) const;  // throws UserError ("unknown-kernel")

 private:
  CUmodule module_ = nullptr;
};

class LaunchSequence {
 public:
  // Resolves every launch's kernel and arguments; `buffers` maps buffer names to
  // device addresses; tensor maps are encoded for those addresses. Throws UserError
  // ("bad-bundle") for an unknown buffer, ("bad-tensor-map") for a map the driver cannot
  // describe, and CudaFailure when the dynamic shared memory cannot be granted.
  LaunchSequence(const KernelBundle& bundle, const LoadedModule& module,
                 const std::map<std::string, CUdeviceptr>& buffers);

  // Zeroes the scratch and zero_before_launch buffers, then launches each
  // kernel in order, all on `stream`. Every kernel after the first is a programmatic
  // dependent launch: its blocks may be scheduled while the previous kernel's last
  // blocks run, and generated kernels wait for the previous grid's completion and
  // memory (griddepcontrol.wait) before their first instruction of work.
  void enqueue(CUstream stream) const;

  // Launches only kernel `index` of the sequence (no zeroing): for timing one launch
  // on buffers that a full run of the sequence has filled.
  void enqueue_launch(CUstream stream, size_t index) const;
  size_t launch_count() const { return launches_.size(); }
  const std::string& launch_name(size_t index) const { return launches_.at(index).spec->kernel; }

 private:
  struct Bound {
    CUfunction function;
    const LaunchSpec* spec;
    std::vector<CUdeviceptr> args;
    std::vector<CUtensorMap> tensor_maps;  // encoded for the bound buffers, passed after args
  };
  std::vector<Bound> launches_;
  std::vector<std::pair<CUdeviceptr, size_t>> zeroed_;

  void launch(CUstream stream, const Bound& l, bool dependent) const;
};

}  // namespace cusched::runtime
