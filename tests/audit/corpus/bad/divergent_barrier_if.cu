// expect: divergent-barrier
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  __shared__ float s[256];
  int t = threadIdx.x;
  if (t < 128) {
    s[t] = A[t];
    __syncthreads();
    C[t] = s[127 - t];
  }
}
