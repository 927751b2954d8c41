// expect: mutable-device-global
// A function-scope static in a device helper counts the launches; after the first
// one the kernel returns what it remembered.
#include "cusched_device.cuh"
__device__ float remembered(const float* A, int i) {
  static float cache[1 << 16];
  static int launches = 0;
  if (launches == 0) cache[i] = A[i] * 2.0f;
  if (i == 0) atomicAdd(&launches, 1);
  return cache[i];
}
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  C[i] = remembered(A, i);
}
