#!/usr/bin/env python3
"""Writes matmul_wgmma.cu: a hand-written TF32 warpgroup-MMA (wgmma) probe for the
4096^3 matmul, measured with `cusched check -p matmul --precision tf32`. Two warpgroups
per block, each computing 64 x 256 of a 128 x 256 tile with m64n256k8 wgmmas from
128-byte-swizzled shared tiles; A is copied with cp.async, B (row-major, N contiguous)
is loaded to registers and stored transposed (tf32 wgmma reads both operands K-major);
a 4-stage pipeline. With --inflight 1 each k-step leaves its wgmmas running while the
next k-step's are issued (wgmma.wait_group 1), and the copies run STAGES - 2 k-steps
ahead so that they never overwrite a stage an unfinished wgmma reads.
Usage: gen_matmul_wgmma.py OUT.cu [--inflight 0|1]"""
import sys

from wgmma_probe_common import arg, fill

src = r'''// problem: matmul
// Hand-written probe (bench/experiments/handwritten/gen_matmul_wgmma.py).
#define M 4096
#define N 4096
#define K 4096
#define BM 128
#define BN 256
#define BK 32
#define STAGES 4
#define A_STAGE_BYTES (BM * BK * 4)
#define B_STAGE_BYTES (BN * BK * 4)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define KT (K / BK)
#define INFLIGHT_GROUPS @INFLIGHT@
#define AHEAD (STAGES - 1 - INFLIGHT_GROUPS)

@HELPERS@

// Element (row, k) of a K-major tile of 32-float (128-byte) rows, 16-byte chunks XOR-swizzled by row % 8.
__device__ __forceinline__ unsigned swizzled(int row, int k) {
  return static_cast<unsigned>(row * 128 + ((((k >> 2) ^ (row & 7))) << 4) + ((k & 3) << 2));
}

__device__ __forceinline__ void wgmma_tf32(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {ACC}, %128, %129, p, 1, 1;\n}\n"
      : OUTS
      : "l"(da), "l"(db));
}

extern "C" __global__ void __launch_bounds__(256, 1) matmul_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                                                    float* __restrict__ C) {
  extern __shared__ __align__(16) unsigned char raw[];
  const unsigned raw_addr = smem_u32(raw);
  const unsigned pad = ((raw_addr + 1023u) & ~1023u) - raw_addr;
  unsigned char* tiles = raw + pad;
  const unsigned tiles_addr = raw_addr + pad;
  const int tid = threadIdx.x, wg = tid >> 7, warp = tid >> 5, lane = tid & 31;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  float4 breg[8];

  auto load_a = [&](int kt, int s) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int q = tid + i * 256, row = q >> 3, c = q & 7;
      cp_async16(tiles_addr + s * STAGE_BYTES + row * 128 + ((c ^ (row & 7)) << 4), A + static_cast<size_t>(m0 + row) * K + kt * BK + c * 4);
    }
  };
  // Warp w, step i covers 8 k x 16 n: region r = w * 8 + i, k group r % 4, n group r / 4.
  auto load_b = [&](int kt) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = warp * 8 + i, k = (r & 3) * 8 + (lane & 7), n = (r >> 2) * 16 + (lane >> 3) * 4;
      breg[i] = *reinterpret_cast<const float4*>(B + static_cast<size_t>(kt * BK + k) * N + n0 + n);
    }
  };
  auto store_b = [&](int s) {
    unsigned char* bt = tiles + s * STAGE_BYTES + A_STAGE_BYTES;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = warp * 8 + i, k = (r & 3) * 8 + (lane & 7), n = (r >> 2) * 16 + (lane >> 3) * 4;
      *reinterpret_cast<float*>(bt + swizzled(n + 0, k)) = breg[i].x;
      *reinterpret_cast<float*>(bt + swizzled(n + 1, k)) = breg[i].y;
      *reinterpret_cast<float*>(bt + swizzled(n + 2, k)) = breg[i].z;
      *reinterpret_cast<float*>(bt + swizzled(n + 3, k)) = breg[i].w;
    }
  };

#pragma unroll
  for (int s = 0; s < AHEAD; ++s) {
    load_a(s, s);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    load_b(s);
    store_b(s);
  }
  for (int kt = 0; kt < KT; ++kt) {
    const int s = kt % STAGES;
    asm volatile("cp.async.wait_group %0;\n" ::"n"(AHEAD - 1) : "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned a_base = tiles_addr + s * STAGE_BYTES + wg * 64 * 128;
    const unsigned b_base = tiles_addr + s * STAGE_BYTES + A_STAGE_BYTES;
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) wgmma_tf32(d, descriptor(a_base + kk * 32), descriptor(b_base + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    const int next = kt + AHEAD;
    if (next < KT) {
      load_a(next, next % STAGES);
      load_b(next);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    if (next < KT) store_b(next % STAGES);
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(INFLIGHT_GROUPS) : "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  const int row = m0 + wg * 64 + (warp & 3) * 16 + (lane >> 2);
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const int col = n0 + j * 8 + (lane & 3) * 2;
    *reinterpret_cast<float2*>(C + static_cast<size_t>(row) * N + col) = make_float2(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<float2*>(C + static_cast<size_t>(row + 8) * N + col) = make_float2(d[4 * j + 2], d[4 * j + 3]);
  }
}
// cusched-launch size=bench grid=16,32,1 block=256,1,1 smem=197632
'''
open(sys.argv[1], "w").write(fill(src, INFLIGHT=arg("--inflight", 0)))
