// Honest control: relu at the small size (2*3*5*7 elements).
// cusched-launch size=small grid=1,1,1 block=256,1,1
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const int n = 2 * 3 * 5 * 7;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.f);
}
