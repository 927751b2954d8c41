// expect: output-unwritten-on-path
// contract: {"kernel_name": "masked_sum", "params": [{"name": "X", "type": "const float*"}, {"name": "mask", "type": "const int*"}, {"name": "total", "type": "float*", "is_output": true}, {"name": "n", "type": "int"}]}
// The only write to the output is an atomic under a condition on loaded data.
#include "cusched_device.cuh"
extern "C" __global__ void masked_sum(const float* __restrict__ X, const int* __restrict__ mask, float* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? X[i] : 0.0f;
  v = cusched::warp_sum(v);
  bool any = i < n && mask[i] != 0;
  if ((threadIdx.x & 31) == 0 && any) atomicAdd(total, v);
}
