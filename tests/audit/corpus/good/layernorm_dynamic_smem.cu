// contract: {"kernel_name": "layernorm", "params": [{"name": "X", "type": "const float*"}, {"name": "gamma", "type": "const float*"}, {"name": "beta", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "cols", "type": "int"}]}
// dynamic-smem: 65536
#include "cusched_device.cuh"

// The row is staged in dynamic shared memory; the launch plan requests it.
extern "C" __global__ void layernorm(const float* __restrict__ X, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, float* __restrict__ Y, int cols) {
  extern __shared__ float row_buf[];
  __shared__ float scratch[32];
  const float* x = X + static_cast<long long>(blockIdx.x) * cols;
  float* y = Y + static_cast<long long>(blockIdx.x) * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = x[c];
    row_buf[c] = v;
    s += v;
  }
  float mean = cusched::block_sum(s, scratch) / cols;
  float q = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = row_buf[c] - mean;
    q += d * d;
  }
  float rstd = rsqrtf(cusched::block_sum(q, scratch) / cols + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = (row_buf[c] - mean) * rstd * gamma[c] + beta[c];
}
