#pragma once
// CUDA C++ from the loop IR (codegen/ir.h), implementing its execution model: one
// extern "C" __global__ function per Kernel, block loops as block indices, thread
// loops as guarded thread indices, vectorized loops as float2 / float4 accesses where
// alignment is provable, AllReduce through the device library (cusched_device.cuh).
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ir.h"

namespace cusched {

struct EmitOptions {
  // The f64 reference variant: every float output and scratch buffer becomes f64 and
  // every float computation double; inputs keep their type and are widened when read.
  bool reference_f64 = false;
};

// The source and what its launches need beyond the IR.
struct EmittedCuda {
  std::string source;
  std::vector<int64_t> dynamic_smem_bytes;  // per kernel, in program order
};

EmittedCuda emit_cuda_program(const LoweredProgram& program, const EmitOptions& options = {});
std::string emit_cuda(const LoweredProgram& program, const EmitOptions& options = {});

// The element type a global buffer has in the emitted code.
DType emitted_dtype(const BufferSpec& buffer, const EmitOptions& options);

// Kernels whose static shared arrays add up to more than this use one dynamic array.
constexpr int64_t kStaticSharedLimitBytes = 48 * 1024;

}  // namespace cusched
