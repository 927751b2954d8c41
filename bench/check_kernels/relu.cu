// A hand-written ReLU for `cusched check --problem relu`: one float4 per thread.
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const long long n4 = 16LL * 64 * 256 * 256 / 4;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = reinterpret_cast<const float4*>(X)[i];
    v.x = fmaxf(v.x, 0.f);
    v.y = fmaxf(v.y, 0.f);
    v.z = fmaxf(v.z, 0.f);
    v.w = fmaxf(v.w, 0.f);
    reinterpret_cast<float4*>(Y)[i] = v;
  }
}
// cusched-launch size=bench grid=65536,1,1 block=256,1,1
