// A faulty ReLU for `cusched check --problem relu`: its bound leaves the last 1024
// elements unwritten, which the poisoned outputs must catch.
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 16LL * 64 * 256 * 256 - 1024) Y[i] = fmaxf(X[i], 0.f);
}
// cusched-launch size=bench grid=262144,1,1 block=256,1,1
