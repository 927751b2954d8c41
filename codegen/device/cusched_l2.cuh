#pragma once
// L2 eviction priorities of global loads (the l2_hint primitive, sm_80 and later): a
// cache policy made once per kernel by createpolicy for a fraction of the lines it
// touches, and read-only loads that carry it (ld.global.nc.L2::cache_hint). The policy
// only steers which lines L2 evicts first; the loaded values are those of plain loads.

namespace cusched {

__device__ __forceinline__ unsigned long long l2_policy_evict_last(float fraction) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, %1;" : "=l"(p) : "f"(fraction));
  return p;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_first(float fraction) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, %1;" : "=l"(p) : "f"(fraction));
  return p;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_normal(float fraction) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, %1;" : "=l"(p) : "f"(fraction));
  return p;
}

__device__ __forceinline__ float load_l2(const float* p, unsigned long long policy) {
  float v;
  asm volatile("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ float2 load_l2(const float2* p, unsigned long long policy) {
  float2 v;
  asm volatile("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(v.x), "=f"(v.y) : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ float4 load_l2(const float4* p, unsigned long long policy) {
  float4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

}  // namespace cusched
