// expect: mutable-device-global
// expect: clang-parse
// Clang 19 ignores the managed attribute in CUDA mode and then rejects the
// use of the variable in device code (a Clang/NVRTC difference); the
// preprocessor still sees __managed__.
#include "cusched_device.cuh"
__managed__ unsigned long long launches;
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  if (threadIdx.x == 0) atomicAdd(&launches, 1ull);
  C[threadIdx.x] = A[threadIdx.x];
}
