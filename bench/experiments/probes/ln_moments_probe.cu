// Standalone timing probe (nvcc, no cusched): LayerNorm's moments kernel (k0 of the
// best schedule, 16 x 64 x 256 x 256 floats) in variants, against plain read streams
// of the same 268 MB. L2 flushed before each run (a 512 MB memset), median of 30.
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a ln_moments_probe.cu -o probe
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "probe_common.cuh"

constexpr long long kElems = 16LL * 64 * 256 * 256;

__device__ __forceinline__ float4 ld_hint(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

// MODE 0: loads interleaved with the sums (as emitted); 1: the 8 loads of a step first;
// 2: as 1 with the L2::256B / no-L1 hint.
template <int MODE>
__global__ void __launch_bounds__(256) moments(const float* __restrict__ X, float* __restrict__ out) {
  const int rcb = blockIdx.x, rt = threadIdx.x;
  const float* base = X + (rcb % 16) * 4194304LL + (rcb / 16) * 65536 + (rt % 64) * 4 + (rt / 64) * 256;
  const float s = X[(rcb % 16) * 4194304LL];
  float a0 = 0.f, a1 = 0.f, a2 = 0.f;
  for (int rhoo = 0; rhoo < 8; ++rhoo) {
    if (MODE == 0) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const float4 v = *reinterpret_cast<const float4*>(base + rhoo * 8192 + u * 1024);
        a0 = a0 + v.x; a0 = a0 + v.y; a0 = a0 + v.z; a0 = a0 + v.w;
        a1 = a1 + (v.x - s); a1 = a1 + (v.y - s); a1 = a1 + (v.z - s); a1 = a1 + (v.w - s);
        a2 = a2 + (v.x - s) * (v.x - s); a2 = a2 + (v.y - s) * (v.y - s);
        a2 = a2 + (v.z - s) * (v.z - s); a2 = a2 + (v.w - s) * (v.w - s);
      }
    } else {
      float4 r[8];
#pragma unroll
      for (int u = 0; u < 8; ++u)
        r[u] = MODE == 2 ? ld_hint(reinterpret_cast<const float4*>(base + rhoo * 8192 + u * 1024))
                         : *reinterpret_cast<const float4*>(base + rhoo * 8192 + u * 1024);
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const float4 v = r[u];
        a0 = a0 + v.x; a0 = a0 + v.y; a0 = a0 + v.z; a0 = a0 + v.w;
        a1 = a1 + (v.x - s); a1 = a1 + (v.y - s); a1 = a1 + (v.z - s); a1 = a1 + (v.w - s);
        a2 = a2 + (v.x - s) * (v.x - s); a2 = a2 + (v.y - s) * (v.y - s);
        a2 = a2 + (v.z - s) * (v.z - s); a2 = a2 + (v.w - s) * (v.w - s);
      }
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

// A grid-stride read of the same bytes, UNROLL float4 loads in flight per thread.
template <int UNROLL>
__global__ void read_stream(const float4* __restrict__ src, float* __restrict__ out, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n; i += stride) acc += src[i].x + src[i].y + src[i].z + src[i].w;
  if (acc == 12345.f) out[0] = acc;
}

int main() {
  float *X, *out;
  void* flush;
  const size_t bytes = kElems * 4, flush_bytes = 512ull << 20;
  cudaMalloc(&X, bytes);
  cudaMalloc(&out, 1 << 20);
  cudaMalloc(&flush, flush_bytes);
  std::vector<float> h(kElems);
  for (long long i = 0; i < kElems; ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int i = 0; i < 100; ++i) moments<0><<<1024, 256>>>(X, out);  // clocks up
  cudaDeviceSynchronize();
  std::vector<float> ref(3072), got(3072);
  moments<0><<<1024, 256>>>(X, out);
  cudaMemcpy(ref.data(), out, 3072 * 4, cudaMemcpyDeviceToHost);
  auto report = [&](const char* name, float ms, bool check) {
    bool same = true;
    if (check) {
      cudaMemcpy(got.data(), out, 3072 * 4, cudaMemcpyDeviceToHost);
      same = std::equal(ref.begin(), ref.end(), got.begin());
    }
    printf("%-34s %.4f ms  %6.0f GB/s%s\n", name, ms, bytes / ms / 1e6, same ? "" : "  (sums differ)");
  };
  report("moments as emitted", median_ms([&] { moments<0><<<1024, 256>>>(X, out); }, flush, flush_bytes), true);
  report("moments loads first", median_ms([&] { moments<1><<<1024, 256>>>(X, out); }, flush, flush_bytes), true);
  report("moments loads first + L2::256B", median_ms([&] { moments<2><<<1024, 256>>>(X, out); }, flush, flush_bytes), true);
  const long long n4 = kElems / 4;
  for (int per_sm : {4, 8, 16}) {
    char name[64];
    snprintf(name, sizeof name, "read stream x4, %d blocks/SM", per_sm);
    report(name, median_ms([&] { read_stream<4><<<sms * per_sm, 256>>>(reinterpret_cast<float4*>(X), out, n4); }, flush, flush_bytes), false);
    snprintf(name, sizeof name, "read stream x8, %d blocks/SM", per_sm);
    report(name, median_ms([&] { read_stream<8><<<sms * per_sm, 256>>>(reinterpret_cast<float4*>(X), out, n4); }, flush, flush_bytes), false);
  }
  // Launch overhead: an empty-ish kernel timed the same way.
  report("read stream, 1 element (overhead)", median_ms([&] { read_stream<1><<<1, 32>>>(reinterpret_cast<float4*>(X), out, 1); }, flush, flush_bytes), false);
  return 0;
}
