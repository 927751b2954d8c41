// expect: divergent-barrier
// The barrier hides in a helper that is not inlined, called by some threads only.
#include "cusched_device.cuh"
__device__ __noinline__ void exchange(float* s, float v) {
  s[threadIdx.x] = v;
  __syncthreads();
}
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  __shared__ float s[256];
  float v = A[threadIdx.x];
  if (v > 0.0f) exchange(s, v);
  C[threadIdx.x] = s[threadIdx.x ^ 1];
}
