// Cheat: a vectorised store that rounds the element count up and writes past the output.
// cusched-launch size=small grid=1,1,1 block=64,1,1
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const int n = 2 * 3 * 5 * 7;
  int i = threadIdx.x * 4;
  if (i < n) {
    for (int k = 0; k < 4; ++k) Y[i + k] = i + k < n ? fmaxf(X[i + k], 0.f) : 0.f;
  }
}
