// expect: shared-memory-limit
// dynamic-smem: 0
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = dyn[threadIdx.x ^ 1];
}
