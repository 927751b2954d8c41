// expect: divergent-barrier
// A block-wide named barrier (no thread count) inside a warp-dependent branch.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  __shared__ float s[256];
  s[threadIdx.x] = A[threadIdx.x];
  if ((threadIdx.x >> 5) == 0) asm volatile("bar.sync 1;" ::: "memory");
  C[threadIdx.x] = s[threadIdx.x ^ 1];
}
