// expect: const-input-write
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  int i = threadIdx.x;
  C[i] = A[i] * 2.0f;
  const_cast<float*>(A)[i] = 0.0f;
}
