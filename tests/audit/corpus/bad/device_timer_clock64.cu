// expect: device-timer
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  long long t0 = clock64();
  float v = A[threadIdx.x] * 2.0f;
  C[threadIdx.x] = v + static_cast<float>(clock64() - t0) * 0.0f;
}
