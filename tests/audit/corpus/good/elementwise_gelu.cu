// contract: {"kernel_name": "gelu", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "n", "type": "long long"}]}
// dynamic-smem: 0
#include "cusched_device.cuh"

extern "C" __global__ void gelu(const float* __restrict__ X, float* __restrict__ Y, long long n) {
  long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    float4 v = *reinterpret_cast<const float4*>(X + i);
    float4 r;
    r.x = 0.5f * v.x * (1.0f + erff(v.x * 0.70710678f));
    r.y = 0.5f * v.y * (1.0f + erff(v.y * 0.70710678f));
    r.z = 0.5f * v.z * (1.0f + erff(v.z * 0.70710678f));
    r.w = 0.5f * v.w * (1.0f + erff(v.w * 0.70710678f));
    *reinterpret_cast<float4*>(Y + i) = r;
  } else {
    for (long long j = i; j < n; ++j) Y[j] = 0.5f * X[j] * (1.0f + erff(X[j] * 0.70710678f));
  }
}
