// expect: thread-exit
// expect: inline-asm-allowlist
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  if (blockIdx.x > 0) asm volatile("exit;");
  C[threadIdx.x] = A[threadIdx.x];
}
