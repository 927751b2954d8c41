// expect: divergent-barrier
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = A[i];
  __syncthreads();
  C[i] = s[blockDim.x - 1 - threadIdx.x];
}
