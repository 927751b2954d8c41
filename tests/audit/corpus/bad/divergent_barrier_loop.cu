// expect: divergent-barrier
// The trip count depends on the thread, so threads leave the loop at different times.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C, int n) {
  __shared__ float s[256];
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += 64) {
    s[threadIdx.x] = A[j];
    __syncthreads();
    acc += s[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
  }
  C[threadIdx.x] = acc;
}
