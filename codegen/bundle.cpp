#include "codegen/bundle.h"

#include "codegen/device_library.h"

namespace cusched {

KernelBundle make_bundle(const LoweredProgram& program, const EmitOptions& options) {
  EmittedCuda emitted = emit_cuda_program(program, options);
  KernelBundle b;
  b.problem = program.problem;
  b.schedule_hash = program.schedule_hash;
  b.precision = options.reference_f64 ? Precision::f64 : program.precision;
  b.math = options.reference_f64 ? "exact" : program.math;
  b.arithmetic_share = options.reference_f64 ? 1.0 : program.arithmetic_share;
  b.source = std::move(emitted.source);
  b.headers = device_headers();
  for (BufferSpec spec : program.buffers) {
    spec.dtype = emitted_dtype(spec, options);
    b.buffers.push_back(std::move(spec));
  }
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const Kernel& k = program.kernels[i];
    LaunchSpec l;
    l.kernel = k.name;
    l.grid = k.grid;
    l.block = k.block;
    l.dynamic_smem_bytes = emitted.dynamic_smem_bytes[i];
    l.cluster = k.cluster;
    l.args = k.params;
    l.tensor_maps = tensor_maps_of(k.body);
    b.launches.push_back(std::move(l));
  }
  return b;
}

}  // namespace cusched
