// expect: shared-memory-limit
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  __shared__ float big[16384];  // 64 KB
  big[threadIdx.x * 64] = A[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = big[(threadIdx.x ^ 1) * 64];
}
