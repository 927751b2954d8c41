// expect: kernel-signature
// contract: {"kernel_name": "k", "params": [{"name": "A", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}, {"name": "n", "type": "int"}]}
#include "cusched_device.cuh"
extern "C" __global__ void k(float* __restrict__ C, const float* __restrict__ A, int n) {
  if (threadIdx.x < n) C[threadIdx.x] = A[threadIdx.x];
}
