// expect: device-host-api
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  float* tmp = static_cast<float*>(malloc(256 * sizeof(float)));
  tmp[threadIdx.x] = A[threadIdx.x];
  C[threadIdx.x] = tmp[threadIdx.x];
  free(tmp);
}
