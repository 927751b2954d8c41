// expect: output-unwritten-on-path
// contract: {"kernel_name": "relu_no_else", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "n", "type": "int"}]}
// The store depends on the loaded value and has no else: negative inputs leave Y unwritten.
#include "cusched_device.cuh"
extern "C" __global__ void relu_no_else(const float* __restrict__ X, float* __restrict__ Y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (X[i] > 0.0f) Y[i] = X[i];
  }
}
