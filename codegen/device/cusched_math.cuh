#pragma once
// The math functions of the language that CUDA's math library does not have
// (dsl/math_function.h gives their meaning), and the fast forms that a stage with
// precision math "fast" calls: built from __expf, __logf and __fdividef.

namespace cusched {

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// PyTorch's softplus: beta 1, threshold 20.
__device__ __forceinline__ float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
__device__ __forceinline__ double softplus(double x) { return x > 20.0 ? x : log1p(exp(x)); }

// torch.sign: (0 < x) - (x < 0); a NaN gives 0.
__device__ __forceinline__ float sign(float x) { return static_cast<float>((0.0f < x) - (x < 0.0f)); }
__device__ __forceinline__ double sign(double x) { return static_cast<double>((0.0 < x) - (x < 0.0)); }
__device__ __forceinline__ int sign(int x) { return (0 < x) - (x < 0); }
__device__ __forceinline__ long long sign(long long x) { return static_cast<long long>((0 < x) - (x < 0)); }

// torch.clamp: max(x, lo), then min(., hi); a NaN x stays NaN.
template <typename T>
__device__ __forceinline__ T clamp(T x, T lo, T hi) {
  T r = x < lo ? lo : x;
  return r > hi ? hi : r;
}

// Fast forms (f32): approximate exp, log, tanh and division.
__device__ __forceinline__ float fast_sigmoid(float x) { return __fdividef(1.0f, 1.0f + __expf(-x)); }
__device__ __forceinline__ float fast_softplus(float x) { return x > 20.0f ? x : __logf(1.0f + __expf(x)); }
__device__ __forceinline__ float fast_log1p(float x) { return __logf(1.0f + x); }
__device__ __forceinline__ float fast_expm1(float x) { return __expf(x) - 1.0f; }
// The multi-function unit's tanh (tanh.approx.f32, relative error about 2^-11).
__device__ __forceinline__ float fast_tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace cusched
