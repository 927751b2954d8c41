// expect: inline-asm-allowlist
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  float v = A[threadIdx.x];
  asm volatile("st.global.f32 [%0], %1;" ::"l"(C + threadIdx.x), "f"(v) : "memory");
}
