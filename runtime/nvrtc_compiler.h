#pragma once
// CUDA C++ source to CUBIN with NVRTC, with the ptxas resource report and an
// on-disk compile cache. Needs no GPU.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/kernel_bundle.h"
#include "dsl/error.h"
#include "runtime/ptxas_report.h"

namespace cusched::runtime {

struct CompileOptions {
  std::string arch = "sm_90a";             // NVRTC --gpu-architecture
  std::vector<std::string> extra_options;  // appended after the standard ones
  bool use_cache = true;
  std::string cache_dir;  // empty: CompileCache::default_dir()
};

struct CompiledModule {
  std::string cubin;
  std::string ptx;                         // the PTX NVRTC generated on the way (runtime/precision_scan.h reads it)
  std::string log;                         // NVRTC log, ptxas report included
  std::vector<KernelResources> resources;  // one per entry function
  std::string arch;
  std::string cache_key;
  bool cache_hit = false;
  double compile_ms = 0;          // 0 on a cache hit
  nlohmann::json report() const;  // everything above except the CUBIN and PTX text
};

// A compile that NVRTC rejected: code "compile-error", the full log kept.
class CompileFailure : public UserError {
 public:
  CompileFailure(Error e, std::string log) : UserError(std::move(e)), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// "13.0".
std::string nvrtc_version();

// The architecture to build for a device: "sm_90a" for compute capability 9.0
// (so Hopper-only instructions are available), else "sm_<major><minor>".
std::string arch_for_compute_capability(int major, int minor);

// The directories given to NVRTC with -I: $CUSCHED_CUDA_INCLUDE if set, else the
// toolkit include directory found at build time (and its cccl/ subfolder).
std::vector<std::string> cuda_include_dirs();

// Compiles `source` (named `name` in diagnostics) with `headers` as in-memory
// include files. Throws CompileFailure on a compile error.
CompiledModule compile_cuda(const std::string& source, const std::map<std::string, std::string>& headers,
                            const CompileOptions& options, const std::string& name = "kernel.cu");

CompiledModule compile_bundle(const KernelBundle& bundle, const CompileOptions& options);

}  // namespace cusched::runtime
