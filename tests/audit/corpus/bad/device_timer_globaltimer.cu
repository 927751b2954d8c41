// expect: device-timer
#include "cusched_device.cuh"
__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  C[threadIdx.x] = A[threadIdx.x] + (now() & 1);
}
