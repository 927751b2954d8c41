// contract: {"kernel_name": "scaled_copy", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "Z", "type": "float*", "is_output": true}, {"name": "n", "type": "long long"}]}
// dynamic-smem: 0
// Grid-stride loops with bounds checks, a data-dependent loop and branches that
// only change values, an atomic under a lane check and a store through a lambda.
#include "cusched_device.cuh"
extern "C" __global__ void scaled_copy(const float* __restrict__ X, float* __restrict__ Y, float* __restrict__ Z,
                                       long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  float local_max = 0.0f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    float v = X[i];
    int halvings = 0;
    while (v > 1.0f && halvings < 8) {
      v *= 0.5f;
      ++halvings;
    }
    if (v > local_max) local_max = v;
    auto store = [&](long long at, float value) { Y[at] = value; };
    store(i, v);
  }
  for (int k = 0; k < 4; ++k) {
    if (k >= static_cast<int>(blockDim.x)) break;
    if (local_max > 0.5f) local_max *= 0.5f;
  }
  local_max = cusched::warp_max(local_max);
  if ((threadIdx.x & 31) == 0) atomicAdd(Z, local_max);
}
