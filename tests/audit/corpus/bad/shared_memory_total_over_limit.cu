// expect: shared-memory-limit
// dynamic-smem: 200000
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  extern __shared__ float dyn[];
  __shared__ float stat[10240];  // 40 KB
  dyn[threadIdx.x] = A[threadIdx.x];
  stat[threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = dyn[threadIdx.x ^ 1] + stat[threadIdx.x ^ 2];
}
