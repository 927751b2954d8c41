// expect: device-host-api
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  if (threadIdx.x == 0) printf("block %d\n", blockIdx.x);
  C[threadIdx.x] = A[threadIdx.x];
}
