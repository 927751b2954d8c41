// contract: {"kernel_name": "softmax", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "rows", "type": "int"}, {"name": "cols", "type": "int"}]}
// dynamic-smem: 0
#include "cusched_device.cuh"

// One block per row; the early return depends only on blockIdx, so it is uniform.
extern "C" __global__ void softmax(const float* __restrict__ X, float* __restrict__ Y, int rows, int cols) {
  __shared__ float scratch[32];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = X + static_cast<long long>(row) * cols;
  float* y = Y + static_cast<long long>(row) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = cusched::warp_max(m);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = m;
  __syncthreads();
  if (warp == 0) {
    m = lane < (blockDim.x >> 5) ? scratch[lane] : -INFINITY;
    m = cusched::warp_max(m);
    if (lane == 0) scratch[0] = m;
  }
  __syncthreads();
  m = scratch[0];
  __syncthreads();
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(x[c] - m);
  s = cusched::block_sum(s, scratch);
  float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = __expf(x[c] - m) * inv;
}
