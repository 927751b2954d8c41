// expect: output-unwritten
// contract: {"kernel_name": "k", "params": [{"name": "A", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}, {"name": "W", "type": "float*"}]}
// Computes into the workspace only; C keeps whatever an earlier run left there.
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C, float* __restrict__ W) {
  W[threadIdx.x] = A[threadIdx.x] * 2.0f;
}
