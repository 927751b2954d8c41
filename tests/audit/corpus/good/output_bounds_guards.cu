// contract: {"kernel_name": "bias_relu_2d", "params": [{"name": "X", "type": "const float*"}, {"name": "bias", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "rows", "type": "int"}, {"name": "cols", "type": "int"}]}
// dynamic-smem: 0
// Outputs skipped only by bounds guards: an early return on the row, a guarded
// store on the column, data-dependent values on both sides of every branch.
#include "cusched_device.cuh"
extern "C" __global__ void bias_relu_2d(const float* __restrict__ X, const float* __restrict__ bias,
                                        float* __restrict__ Y, int rows, int cols) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  if (col >= cols || col < 0) return;
  float v = X[static_cast<long long>(row) * cols + col] + bias[col];
  float* y = Y + static_cast<long long>(row) * cols;
  if (v > 0.0f) {
    y[col] = v;
  } else {
    y[col] = 0.0f;
  }
  if (row == 0 && col < 4 && col < warpSize) y[col] = v > 0.0f ? v : 0.0f;
}
