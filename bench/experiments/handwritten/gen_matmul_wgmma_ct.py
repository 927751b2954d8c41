#!/usr/bin/env python3
"""Writes a hand-written TF32 wgmma probe for the 4096^3 matmul that computes C^T = B^T A^T,
so that neither operand needs a transposed copy: the wgmma's A operand (64 rows of n x 8 k per
warpgroup) comes from registers, loaded from B's shared tile kept as B is laid out ([k][n],
rows padded to 136 floats so that the fragment loads hit 32 banks); its B operand is A's
shared tile, K-major with the 128-byte swizzle, through a matrix descriptor. Each block
computes 128 n x 256 m with two warpgroups of m64n256k8 wgmmas; the copies are cp.async
16-byte chunks, STAGES deep, AHEAD k-steps ahead; a k-step's wgmmas stay in flight while the
next k-step's fragments load (wait_group 1; --inflight 0 waits for each k-step), fragments
double-buffered.
Measured with `cusched check -p matmul --precision tf32`.
Usage: gen_matmul_wgmma_ct.py OUT.cu [--stages S] [--group G] [--inflight 0|1] [--split-layout 0|1]
  --group G: blocks walk the m tiles in groups of G n-tiles wide (L2 rasterisation); 0 = plain.
  --split-layout 1: all A buffers first, then all B buffers (the generated kernel's layout)
    instead of each stage's A and B together."""
import sys

from wgmma_probe_common import arg, fill

stages = arg("--stages", 4)
src = r'''// problem: matmul
// Hand-written probe (bench/experiments/handwritten/gen_matmul_wgmma_ct.py).
#define M 4096
#define N 4096
#define K 4096
#define TN 128
#define TM 256
#define BK 32
#define STAGES @STAGES@
#define GROUP @GROUP@
#define A_STAGE_BYTES (TM * BK * 4)
#define B_ROW 136
#define B_STAGE_BYTES (BK * B_ROW * 4)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define KT (K / BK)
#define INFLIGHT @INFLIGHT@
#define AHEAD (STAGES - 1 - INFLIGHT)
#if @SPLIT@
#define A_OFFSET(s) ((s) * A_STAGE_BYTES)
#define B_OFFSET(s) (STAGES * A_STAGE_BYTES + (s) * B_STAGE_BYTES)
#else
#define A_OFFSET(s) ((s) * STAGE_BYTES)
#define B_OFFSET(s) ((s) * STAGE_BYTES + A_STAGE_BYTES)
#endif

@HELPERS@

__device__ __forceinline__ void wgmma_tf32_rs(float* d, const unsigned* a, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {ACC}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
      : OUTS
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

__device__ __forceinline__ unsigned tf32_bits(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

extern "C" __global__ void __launch_bounds__(256, 1) matmul_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                                                    float* __restrict__ C) {
  extern __shared__ __align__(16) unsigned char raw[];
  const unsigned raw_addr = smem_u32(raw);
  const unsigned pad = ((raw_addr + 1023u) & ~1023u) - raw_addr;
  unsigned char* tiles = raw + pad;
  const unsigned tiles_addr = raw_addr + pad;
  const int tid = threadIdx.x, wg = tid >> 7, warp = (tid >> 5) & 3, lane = tid & 31;
  int bn = blockIdx.x, bm = blockIdx.y;
  if (GROUP > 0) {
    // Tiles numbered in groups of GROUP n-tiles: within a group, m fastest.
    const int id = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP * (M / TM);
    const int g = id / (per_group > 0 ? per_group : 1), r = id % (per_group > 0 ? per_group : 1);
    bn = g * GROUP + r / (M / TM);
    bm = r % (M / TM);
  }
  const int n0 = bn * TN, m0 = bm * TM;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  unsigned frag[2][16];

  auto load_stage = [&](int kt, int s) {
    const unsigned a_dst = tiles_addr + A_OFFSET(s);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int q = tid + i * 256, row = q >> 3, c = q & 7;
      cp_async16(a_dst + row * 128 + ((c ^ (row & 7)) << 4), A + static_cast<size_t>(m0 + row) * K + kt * BK + c * 4);
    }
    const unsigned b_dst = tiles_addr + B_OFFSET(s);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int q = tid + i * 256, k = q >> 5, c = q & 31;
      cp_async16(b_dst + (k * B_ROW + c * 4) * 4, B + static_cast<size_t>(kt * BK + k) * N + n0 + c * 4);
    }
  };
  // Fragment of B^T (rows n, cols k) for warp `warp` of warpgroup `wg`, k8 slices kk = 0..3.
  auto load_frag = [&](int s, unsigned* f) {
    const float* bs = reinterpret_cast<const float*>(tiles + B_OFFSET(s));
    const int n = wg * 64 + warp * 16 + (lane >> 2), k = lane & 3;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      f[kk * 4 + 0] = tf32_bits(bs[(kk * 8 + k) * B_ROW + n]);
      f[kk * 4 + 1] = tf32_bits(bs[(kk * 8 + k) * B_ROW + n + 8]);
      f[kk * 4 + 2] = tf32_bits(bs[(kk * 8 + k + 4) * B_ROW + n]);
      f[kk * 4 + 3] = tf32_bits(bs[(kk * 8 + k + 4) * B_ROW + n + 8]);
    }
  };

#pragma unroll
  for (int s = 0; s < AHEAD; ++s) {
    load_stage(s, s);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  // One k-step: fragments into `cur`, its wgmmas issued; with INFLIGHT 1 they stay in flight
  // and `prev` (the fragments of the k-step before, whose wgmmas are now done) is declared
  // used here, so that the compiler keeps those registers untouched until then.
  auto step = [&](int kt, unsigned* cur, unsigned* prev) {
    const int s = kt % STAGES;
    asm volatile("cp.async.wait_group %0;\n" ::"n"(AHEAD - 1) : "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const int next = kt + AHEAD;
    if (next < KT) load_stage(next, next % STAGES);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    load_frag(s, cur);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned a_base = tiles_addr + A_OFFSET(s);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) wgmma_tf32_rs(d, cur + kk * 4, descriptor(a_base + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(INFLIGHT) : "memory");
#pragma unroll
    for (int i = 0; i < 16; ++i) asm volatile("" : "+r"(prev[i]));
  };
#pragma unroll 1
  for (int kt = 0; kt < KT; kt += 2) {
    step(kt, frag[0], frag[1]);
    step(kt + 1, frag[1], frag[0]);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  // d holds C^T: row (n) = 16 * warp + lane / 4 (+ 8), column (m) = 8 j + 2 (lane % 4) (+ 1).
  const int n = n0 + wg * 64 + warp * 16 + (lane >> 2);
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const int m = m0 + j * 8 + (lane & 3) * 2;
    C[static_cast<size_t>(m) * N + n] = d[4 * j];
    C[static_cast<size_t>(m + 1) * N + n] = d[4 * j + 1];
    C[static_cast<size_t>(m) * N + n + 8] = d[4 * j + 2];
    C[static_cast<size_t>(m + 1) * N + n + 8] = d[4 * j + 3];
  }
}
// cusched-launch size=bench grid=32,16,1 block=256,1,1 smem=@SMEM@
'''
open(sys.argv[1], "w").write(fill(src, STAGES=stages, GROUP=arg("--group", 0), INFLIGHT=arg("--inflight", 1),
                                 SPLIT=arg("--split-layout", 0), SMEM=stages * (256 * 32 * 4 + 32 * 136 * 4) + 1024))
