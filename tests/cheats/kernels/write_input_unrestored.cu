// Cheat: clamps its input in place (as if relu were allowed to run in place) and copies
// it to the output; the input is left changed.
// cusched-launch size=small grid=1,1,1 block=256,1,1
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  const int n = 2 * 3 * 5 * 7;
  int i = threadIdx.x;
  if (i < n) {
    float* inout = const_cast<float*>(X);
    inout[i] = fmaxf(inout[i], 0.f);
    Y[i] = inout[i];
  }
}
