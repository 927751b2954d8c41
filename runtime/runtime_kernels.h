#pragma once
// The runtime's own CUDA kernels (the device checks, the input generator): their NVRTC
// options (--fmad=false, so that double arithmetic rounds as the host's does), their CUBIN
// compiled once per process, source and architecture, and the dtype codes they switch on.
#include <string>

#include "dsl/dtype.h"
#include "runtime/gpu_context.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {

CompileOptions runtime_kernel_options(const std::string& arch);

// The CUBIN of `source` (named `file` in NVRTC's messages) for `ctx`'s architecture.
const std::string& runtime_kernel_cubin(const GpuContext& ctx, const std::string& source, const std::string& file);

// 0 f32, 1 f64, 2 f16, 3 bf16, 4 i32, 5 i64, 6 bool.
int runtime_kernel_dtype_code(DType t);

}  // namespace cusched::runtime
