// expect: output-unwritten-on-path
// contract: {"kernel_name": "clip_rows", "params": [{"name": "X", "type": "const float*"}, {"name": "lengths", "type": "const int*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "rows", "type": "int"}, {"name": "cols", "type": "int"}]}
// A grid-stride loop whose store is skipped for elements past a length read
// from memory, and a condition that puts the loaded value first.
#include "cusched_device.cuh"
extern "C" __global__ void clip_rows(const float* __restrict__ X, const int* __restrict__ lengths,
                                     float* __restrict__ Y, int rows, int cols) {
  int row = blockIdx.x;
  if (row >= rows) return;
  int len = lengths[row];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float* y = Y + static_cast<long long>(row) * cols;
    if (len > c && c < cols) y[c] = X[static_cast<long long>(row) * cols + c];
  }
}
