// What the standalone LayerNorm probes share: a block's sum of one float per thread, and
// the timing protocol (the L2 flushed by a 512 MB memset before each run, CUDA events,
// 3 warm-up runs, the median of 30).
#pragma once
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  float t = 0.f;
  for (int w = 0; w < blockDim.x / 32; ++w) t += red[w];
  return t;
}

template <typename F>
inline float median_ms(F launch, void* flush, size_t flush_bytes) {
  std::vector<float> t;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 33; ++i) {
    cudaMemsetAsync(flush, i, flush_bytes);
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 3) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
