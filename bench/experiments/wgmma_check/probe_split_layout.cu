// problem: matmul
// Hand-written probe (bench/experiments/handwritten/gen_matmul_wgmma_ct.py).
#define M 4096
#define N 4096
#define K 4096
#define TN 128
#define TM 256
#define BK 32
#define STAGES 4
#define GROUP 0
#define A_STAGE_BYTES (TM * BK * 4)
#define B_ROW 136
#define B_STAGE_BYTES (BK * B_ROW * 4)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define KT (K / BK)
#define INFLIGHT 1
#define AHEAD (STAGES - 1 - INFLIGHT)

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long descriptor(unsigned addr) {
  unsigned long long d = static_cast<unsigned long long>((addr & 0x3FFFF) >> 4);
  d |= static_cast<unsigned long long>(1) << 16;
  d |= static_cast<unsigned long long>(1024 >> 4) << 32;
  d |= static_cast<unsigned long long>(1) << 62;
  return d;
}

__device__ __forceinline__ void wgmma_tf32_rs(float* d, const unsigned* a, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)) : "memory");
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
    const unsigned a_dst = tiles_addr + s * A_STAGE_BYTES;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int q = tid + i * 256, row = q >> 3, c = q & 7;
      cp_async16(a_dst + row * 128 + ((c ^ (row & 7)) << 4), A + static_cast<size_t>(m0 + row) * K + kt * BK + c * 4);
    }
    const unsigned b_dst = tiles_addr + STAGES * A_STAGE_BYTES + s * B_STAGE_BYTES;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int q = tid + i * 256, k = q >> 5, c = q & 31;
      cp_async16(b_dst + (k * B_ROW + c * 4) * 4, B + static_cast<size_t>(kt * BK + k) * N + n0 + c * 4);
    }
  };
  // Fragment of B^T (rows n, cols k) for warp `warp` of warpgroup `wg`, k8 slices kk = 0..3.
  auto load_frag = [&](int s, unsigned* f) {
    const float* bs = reinterpret_cast<const float*>(tiles + STAGES * A_STAGE_BYTES + s * B_STAGE_BYTES);
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
    const unsigned a_base = tiles_addr + s * A_STAGE_BYTES;
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
// cusched-launch size=bench grid=32,16,1 block=256,1,1 smem=201728
