// expect: output-unwritten-on-path
// contract: {"kernel_name": "relu_skip", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "n", "type": "int"}]}
// Threads whose input is negative return before storing, so Y keeps stale
// values exactly where ReLU should write zeros.
#include "cusched_device.cuh"
extern "C" __global__ void relu_skip(const float* __restrict__ X, float* __restrict__ Y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = X[i];
  if (v < 0.0f) return;
  Y[i] = v;
}
