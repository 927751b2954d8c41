// expect: thread-exit
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  if (A[threadIdx.x] != A[threadIdx.x]) __trap();
  C[threadIdx.x] = A[threadIdx.x];
}
