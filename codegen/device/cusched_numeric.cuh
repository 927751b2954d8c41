#pragma once
// Numeric helpers of generated kernels: infinities and NaN without CUDART macros,
// conversions between element types (including __half and __nv_bfloat16), the
// operand-precision rounding functions and typed min / max.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cusched {

__device__ __forceinline__ float inf_f32() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ float nan_f32() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double inf_f64() { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ double nan_f64() { return __longlong_as_double(0x7ff8000000000000LL); }

// The linear index of this thread within its block (x fastest), as the IR's "tid".
__device__ __forceinline__ int linear_thread_index() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

// Conversion to `To`; 16-bit float types go through float (exact) or, from double,
// round once with the CUDA double-to-16-bit intrinsics.
template <typename To>
struct Converter {
  template <typename From>
  __device__ __forceinline__ static To from(From v) { return static_cast<To>(v); }
  __device__ __forceinline__ static To from(__half v) { return static_cast<To>(__half2float(v)); }
  __device__ __forceinline__ static To from(__nv_bfloat16 v) { return static_cast<To>(__bfloat162float(v)); }
};

template <>
struct Converter<__half> {
  template <typename From>
  __device__ __forceinline__ static __half from(From v) { return __float2half_rn(static_cast<float>(v)); }
  __device__ __forceinline__ static __half from(double v) { return __double2half(v); }
  __device__ __forceinline__ static __half from(__half v) { return v; }
  __device__ __forceinline__ static __half from(__nv_bfloat16 v) { return __float2half_rn(__bfloat162float(v)); }
};

template <>
struct Converter<__nv_bfloat16> {
  template <typename From>
  __device__ __forceinline__ static __nv_bfloat16 from(From v) { return __float2bfloat16_rn(static_cast<float>(v)); }
  __device__ __forceinline__ static __nv_bfloat16 from(double v) { return __double2bfloat16(v); }
  __device__ __forceinline__ static __nv_bfloat16 from(__half v) { return __float2bfloat16_rn(__half2float(v)); }
  __device__ __forceinline__ static __nv_bfloat16 from(__nv_bfloat16 v) { return v; }
};

template <typename To, typename From>
__device__ __forceinline__ To convert(From v) { return Converter<To>::from(v); }

// Rounds an f32 value to the precision of a tensor-core operand, keeping it in f32.
// tf32: nearest, ties away from zero (cvt.rna); bf16 and f16: nearest, ties to even.
__device__ __forceinline__ float round_tf32(float x) {
  unsigned int bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}
__device__ __forceinline__ float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
__device__ __forceinline__ float round_f16(float x) { return __half2float(__float2half_rn(x)); }

// Typed minimum / maximum (floats: fminf / fmaxf semantics, a NaN operand loses).
__device__ __forceinline__ float min_of(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ float max_of(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double min_of(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ double max_of(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ int min_of(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int max_of(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ long long min_of(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ long long max_of(long long a, long long b) { return a > b ? a : b; }
__device__ __forceinline__ __half min_of(__half a, __half b) { return __float2half_rn(fminf(__half2float(a), __half2float(b))); }
__device__ __forceinline__ __half max_of(__half a, __half b) { return __float2half_rn(fmaxf(__half2float(a), __half2float(b))); }
__device__ __forceinline__ __nv_bfloat16 min_of(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16_rn(fminf(__bfloat162float(a), __bfloat162float(b)));
}
__device__ __forceinline__ __nv_bfloat16 max_of(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16_rn(fmaxf(__bfloat162float(a), __bfloat162float(b)));
}

}  // namespace cusched
