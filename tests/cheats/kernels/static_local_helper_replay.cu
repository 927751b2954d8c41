// Cheat: the static sits in a device helper, which caches the results of the first launch.
// cusched-launch size=small grid=1,1,1 block=256,1,1
__device__ float remembered_relu(const float* X, int i) {
  static float cache[256];
  static bool filled = false;
  if (!filled) cache[i] = fmaxf(X[i], 0.f);
  __syncthreads();
  if (i == 0) filled = true;
  return cache[i];
}
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const int n = 2 * 3 * 5 * 7;
  int i = threadIdx.x;
  float v = remembered_relu(X, i);
  if (i < n) Y[i] = v;
}
