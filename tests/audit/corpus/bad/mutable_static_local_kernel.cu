// expect: mutable-device-global
// A static inside the kernel itself keeps a flag from one launch to the next.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  static bool done;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!done) C[i] = A[i] * 2.0f;
  done = true;
}
