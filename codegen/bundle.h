#pragma once
// A LoweredProgram packaged for the runtime: emitted CUDA source, the embedded device
// headers, the buffers (f64 outputs and scratch in the reference variant) and one
// launch per kernel, in program order.
#include "codegen/cuda_emitter.h"
#include "codegen/kernel_bundle.h"

namespace cusched {

KernelBundle make_bundle(const LoweredProgram& program, const EmitOptions& options = {});

}  // namespace cusched
