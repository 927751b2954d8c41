// Honest control: softmax over rows of 300 with the row maximum subtracted; one block per row.
// cusched-launch size=small grid=8,1,1 block=256,1,1
#include "cusched_device.cuh"
extern "C" __global__ void softmax_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const int D = 300;
  __shared__ float red[256];
  const float* x = X + blockIdx.x * D;
  float* y = Y + blockIdx.x * D;
  float m = -3.4e38f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) sum += expf(x[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  sum = red[0];
  for (int j = threadIdx.x; j < D; j += blockDim.x) y[j] = expf(x[j] - m) / sum;
}
