// Cheat: a kernel of another name than the contract's.
// cusched-launch size=small grid=1,1,1 block=256,1,1
extern "C" __global__ void relu_fast(const float* __restrict__ X, float* __restrict__ Y) {
  int i = threadIdx.x;
  if (i < 210) Y[i] = fmaxf(X[i], 0.f);
}
