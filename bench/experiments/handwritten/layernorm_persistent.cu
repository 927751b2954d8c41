// Hand-written LayerNorm probe: one persistent grid (2 blocks of 512 threads per SM)
// holds a whole row (16 MB) in registers, each thread 8 float4 of it; per row the blocks
// write their shifted partial moments, meet at a grid barrier (a counter and a
// generation in global memory; all 264 blocks are co-resident), read every block's
// partials and normalise from registers. X is read once. Measured with `cusched check`.
#define ROWS 16
#define N4 1048576
#define NB 264
#define T 512
#define K 8
#define NW (T / 32)

__device__ float ln_partials[ROWS][NB][2];
__device__ unsigned int ln_count;
__device__ unsigned int ln_gen;

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

extern "C" __global__ void __launch_bounds__(T, 2) layernorm_kernel(const float* __restrict__ X, const float* __restrict__ weight,
                                                                     const float* __restrict__ bias, float* __restrict__ Y) {
  __shared__ float red1[NW], red2[NW], stats[2];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int base = blockIdx.x * T + tid;
  unsigned gen = 0;
  if (tid == 0) gen = *reinterpret_cast<volatile unsigned*>(&ln_gen);
  for (int r = 0; r < ROWS; ++r) {
    const float4* x4 = reinterpret_cast<const float4*>(X + static_cast<size_t>(r) * 4 * N4);
    const float shift = __ldg(X + static_cast<size_t>(r) * 4 * N4);
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = base + k * NB * T;
      v[k] = i < N4 ? __ldcs(x4 + i) : make_float4(shift, shift, shift, shift);
    }
    float s1 = 0.f, s2 = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const float a = v[k].x - shift, b = v[k].y - shift, c = v[k].z - shift, d = v[k].w - shift;
      s1 += (a + b) + (c + d);
      s2 += (a * a + b * b) + (c * c + d * d);
    }
    s1 = warp_sum(s1);
    s2 = warp_sum(s2);
    if (lane == 0) {
      red1[warp] = s1;
      red2[warp] = s2;
    }
    __syncthreads();
    if (tid == 0) {
      float t1 = 0.f, t2 = 0.f;
      for (int w = 0; w < NW; ++w) {
        t1 += red1[w];
        t2 += red2[w];
      }
      ln_partials[r][blockIdx.x][0] = t1;
      ln_partials[r][blockIdx.x][1] = t2;
      __threadfence();
      if (atomicAdd(&ln_count, 1u) == NB - 1) {
        ln_count = 0;
        __threadfence();
        atomicAdd(&ln_gen, 1u);
      } else {
        while (*reinterpret_cast<volatile unsigned*>(&ln_gen) == gen) {
        }
      }
      ++gen;
      __threadfence();
    }
    __syncthreads();
    float p1 = 0.f, p2 = 0.f;
    if (tid < NB) {
      p1 = __ldcg(&ln_partials[r][tid][0]);
      p2 = __ldcg(&ln_partials[r][tid][1]);
    }
    p1 = warp_sum(p1);
    p2 = warp_sum(p2);
    __syncthreads();
    if (lane == 0) {
      red1[warp] = p1;
      red2[warp] = p2;
    }
    __syncthreads();
    if (tid == 0) {
      float t1 = 0.f, t2 = 0.f;
      for (int w = 0; w < NW; ++w) {
        t1 += red1[w];
        t2 += red2[w];
      }
      const float n = 4.f * N4;
      const float md = t1 / n;
      stats[0] = shift + md;
      stats[1] = rsqrtf(t2 / n - md * md + 1e-5f);
    }
    __syncthreads();
    const float mean = stats[0], rstd = stats[1];
    float4* y4 = reinterpret_cast<float4*>(Y + static_cast<size_t>(r) * 4 * N4);
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = base + k * NB * T;
      if (i < N4) {
        const float4 w = __ldg(w4 + i), b = __ldg(b4 + i);
        __stcs(y4 + i, make_float4((v[k].x - mean) * rstd * w.x + b.x, (v[k].y - mean) * rstd * w.y + b.y,
                                   (v[k].z - mean) * rstd * w.z + b.z, (v[k].w - mean) * rstd * w.w + b.w));
      }
    }
  }
}
// cusched-launch size=bench grid=264,1,1 block=512,1,1 smem=0
