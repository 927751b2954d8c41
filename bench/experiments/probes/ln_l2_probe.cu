// Standalone timing probe (nvcc, no cusched): LayerNorm's moments kernel followed by its
// normalisation kernel (the best schedule's k0 and k2 at 16 x 64 x 256 x 256), with and
// without L2 eviction-priority hints: the moments kernel marks a fraction of X's lines
// evict_last (createpolicy.fractional) so that the normalisation finds them in L2, and the
// normalisation reads X and writes Y evict_first; or only the blocks of the last
// channels the moments kernel reads mark their lines evict_last, and the normalisation reads
// those channels first. L2 flushed before each pair, median of 30.
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a ln_l2_probe.cu -o probe
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "probe_common.cuh"

constexpr long long kElems = 16LL * 64 * 256 * 256;

__device__ __forceinline__ unsigned long long policy_last(float fraction) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %0, %1;" : "=l"(p) : "f"(fraction));
  return p;
}
__device__ __forceinline__ unsigned long long policy_first() {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ float4 ld_policy(const float* p, unsigned long long pol) {
  float4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  return v;
}
__device__ __forceinline__ void st_policy(float* p, float4 v, unsigned long long pol) {
  asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol)
               : "memory");
}

// fraction < 0: plain loads; else loads under an evict_last policy for that fraction of lines,
// in the blocks of channels from_channel .. 63.
__global__ void __launch_bounds__(256) moments(const float* __restrict__ X, float* __restrict__ out, float fraction,
                                               int from_channel = 0) {
  const int rcb = blockIdx.x, rt = threadIdx.x;
  if (rcb / 16 < from_channel) fraction = -1.f;
  const float* base = X + (rcb % 16) * 4194304LL + (rcb / 16) * 65536 + (rt % 64) * 4 + (rt / 64) * 256;
  const float s = X[(rcb % 16) * 4194304LL];
  const unsigned long long pol = fraction >= 0.f ? policy_last(fraction) : 0ull;
  float a0 = 0.f, a1 = 0.f, a2 = 0.f;
  for (int rhoo = 0; rhoo < 8; ++rhoo) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const float* p = base + rhoo * 8192 + u * 1024;
      const float4 v = fraction >= 0.f ? ld_policy(p, pol) : *reinterpret_cast<const float4*>(p);
      a0 = a0 + v.x + v.y + v.z + v.w;
      a1 = a1 + (v.x - s) + (v.y - s) + (v.z - s) + (v.w - s);
      a2 = a2 + (v.x - s) * (v.x - s) + (v.y - s) * (v.y - s) + (v.z - s) * (v.z - s) + (v.w - s) * (v.w - s);
    }
  }
  __shared__ float red[8];
  a0 = block_sum(a0, red);
  a1 = block_sum(a1, red);
  a2 = block_sum(a2, red);
  if (rt == 0) {
    out[rcb * 3] = a0;
    out[rcb * 3 + 1] = a1;
    out[rcb * 3 + 2] = a2;
  }
}

// The normalisation: block (ho, c), each thread one float4 of a row chunk over the 16 rows.
// first: X loads and Y stores evict_first. reverse: channels in reverse order.
__global__ void __launch_bounds__(256) normalise(const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ Bs,
                                                 const float* __restrict__ mom, float* __restrict__ Y, int first, int reverse) {
  const int c = reverse ? 63 - blockIdx.y : blockIdx.y, ho = blockIdx.x, t = threadIdx.x;
  const long long off = (t % 64) * 4 + (t / 64) * 256 + c * 65536 + ho * 1024;
  const float4 w = *reinterpret_cast<const float4*>(W + off), bb = *reinterpret_cast<const float4*>(Bs + off);
  const unsigned long long pol = first ? policy_first() : 0ull;
  for (int bo = 0; bo < 4; ++bo) {
#pragma unroll
    for (int bu = 0; bu < 4; ++bu) {
      const int b = bo * 4 + bu;
      const float* xp = X + off + b * 4194304LL;
      const float4 x = first ? ld_policy(xp, pol) : *reinterpret_cast<const float4*>(xp);
      const float mean = mom[b * 3] / 4194304.0f, md = mom[b * 3 + 1] / 4194304.0f;
      const float r = rsqrtf(mom[b * 3 + 2] / 4194304.0f - md * md + 1e-5f);
      const float4 y = make_float4((x.x - mean) * r * w.x + bb.x, (x.y - mean) * r * w.y + bb.y, (x.z - mean) * r * w.z + bb.z,
                                   (x.w - mean) * r * w.w + bb.w);
      float* yp = Y + off + b * 4194304LL;
      if (first) st_policy(yp, y, pol);
      else *reinterpret_cast<float4*>(yp) = y;
    }
  }
}

int main() {
  float *X, *Y, *W, *Bs, *mom, *part;
  void* flush;
  const size_t bytes = kElems * 4, flush_bytes = 512ull << 20, wbytes = 64ull * 256 * 256 * 4;
  cudaMalloc(&X, bytes);
  cudaMalloc(&Y, bytes);
  cudaMalloc(&W, wbytes);
  cudaMalloc(&Bs, wbytes);
  cudaMalloc(&part, 1 << 20);
  cudaMalloc(&mom, 4096);
  cudaMalloc(&flush, flush_bytes);
  cudaMemset(X, 0, bytes);
  cudaMemset(W, 0, wbytes);
  cudaMemset(Bs, 0, wbytes);
  std::vector<float> hm(48, 1.0f);
  cudaMemcpy(mom, hm.data(), 48 * 4, cudaMemcpyHostToDevice);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { printf("setup: %s\n", cudaGetErrorString(e)); return 1; }
  for (int i = 0; i < 50; ++i) moments<<<1024, 256>>>(X, part, -1.f);
  cudaDeviceSynchronize();
  auto pair = [&](float fraction, int first, int reverse, int from_channel = 0) {
    moments<<<1024, 256>>>(X, part, fraction, from_channel);
    normalise<<<dim3(64, 64), 256>>>(X, W, Bs, mom, Y, first, reverse);
  };
  printf("%-44s %.4f ms\n", "moments alone", median_ms([&] { moments<<<1024, 256>>>(X, part, -1.f); }, flush, flush_bytes));
  printf("%-44s %.4f ms\n", "normalise alone", median_ms([&] { normalise<<<dim3(64, 64), 256>>>(X, W, Bs, mom, Y, 0, 0); }, flush, flush_bytes));
  printf("%-44s %.4f ms\n", "pair, no hints", median_ms([&] { pair(-1.f, 0, 0); }, flush, flush_bytes));
  printf("%-44s %.4f ms\n", "pair, normalise reversed", median_ms([&] { pair(-1.f, 0, 1); }, flush, flush_bytes));
  for (float f : {0.05f, 0.1f, 0.15f, 0.2f, 0.3f}) {
    char name[80];
    snprintf(name, sizeof name, "pair, evict_last %.2f", f);
    printf("%-44s %.4f ms\n", name, median_ms([&] { pair(f, 0, 0); }, flush, flush_bytes));
    snprintf(name, sizeof name, "pair, evict_last %.2f + evict_first", f);
    printf("%-44s %.4f ms\n", name, median_ms([&] { pair(f, 1, 0); }, flush, flush_bytes));
  }
  printf("%-44s %.4f ms\n", "pair, evict_first only", median_ms([&] { pair(-1.f, 1, 0); }, flush, flush_bytes));
  for (int channels : {2, 4, 6, 8, 12}) {
    char name[80];
    snprintf(name, sizeof name, "pair, last %d channels evict_last, reversed", channels);
    printf("%-44s %.4f ms\n", name, median_ms([&] { pair(1.f, 0, 1, 64 - channels); }, flush, flush_bytes));
    snprintf(name, sizeof name, "  the same, normalisation evict_first");
    printf("%-44s %.4f ms\n", name, median_ms([&] { pair(1.f, 1, 1, 64 - channels); }, flush, flush_bytes));
  }
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) printf("error: %s\n", cudaGetErrorString(e));
  return 0;
}
