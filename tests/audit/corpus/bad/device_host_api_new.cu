// expect: device-host-api
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  float* buf = new float[4];
  buf[0] = A[threadIdx.x];
  C[threadIdx.x] = buf[0];
  delete[] buf;
}
