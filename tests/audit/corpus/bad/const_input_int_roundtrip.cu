// expect: const-input-write
// No cast drops const in the source: the pointer goes through an integer.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  int i = threadIdx.x;
  unsigned long long bits = reinterpret_cast<unsigned long long>(A) + i * sizeof(float);
  float* p = reinterpret_cast<float*>(bits);
  C[i] = *p;
  atomicAdd(p, 1.0f);
}
