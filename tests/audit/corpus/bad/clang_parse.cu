// expect: clang-parse
// Stands for a construct NVRTC accepts and Clang 19 rejects: an identifier
// only NVRTC's own headers declare.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  C[threadIdx.x] = __nvrtc_only_intrinsic(A[threadIdx.x]);
}
