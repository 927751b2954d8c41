// contract: {"kernel_name": "matmul", "params": [{"name": "A", "type": "const float*"}, {"name": "B", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}, {"name": "M", "type": "int"}, {"name": "N", "type": "int"}, {"name": "K", "type": "int"}]}
// dynamic-smem: 0
#include "cusched_device.cuh"

// 64x64 block tile, 32-deep K tiles, double-buffered with cp.async; 4 warps,
// each computing 32x32 with m16n8k8 TF32 mma. M, N, K are multiples of 64/32.
constexpr int BM = 64, BN = 64, BK = 32, PAD = 4;

extern "C" __global__ void __launch_bounds__(128) matmul(const float* __restrict__ A, const float* __restrict__ B,
                                                         float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[2][BM][BK + PAD];
  __shared__ __align__(16) float Bs[2][BK][BN + PAD];
  int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  float acc[2][4][4] = {};

  auto load_tile = [&](int stage, int k0) {
    for (int e = tid; e < BM * BK / 4; e += 128) {
      int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
      cusched::cp_async_16(&As[stage][r][c], A + static_cast<long long>(bm + r) * K + k0 + c);
    }
    for (int e = tid; e < BK * BN / 4; e += 128) {
      int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      cusched::cp_async_16(&Bs[stage][r][c], B + static_cast<long long>(k0 + r) * N + bn + c);
    }
    cusched::cp_async_commit();
  };

  int tiles = K / BK;
  load_tile(0, 0);
  for (int t = 0; t < tiles; ++t) {
    int stage = t & 1;
    if (t + 1 < tiles) {
      load_tile(stage ^ 1, (t + 1) * BK);
      cusched::cp_async_wait<1>();
    } else {
      cusched::cp_async_wait<0>();
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      unsigned a[2][4], b[4][2];
      int g = lane >> 2, q = lane & 3;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        a[i][0] = cusched::to_tf32(As[stage][wm + i * 16 + g][kk + q]);
        a[i][1] = cusched::to_tf32(As[stage][wm + i * 16 + g + 8][kk + q]);
        a[i][2] = cusched::to_tf32(As[stage][wm + i * 16 + g][kk + q + 4]);
        a[i][3] = cusched::to_tf32(As[stage][wm + i * 16 + g + 8][kk + q + 4]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        b[j][0] = cusched::to_tf32(Bs[stage][kk + q][wn + j * 8 + g]);
        b[j][1] = cusched::to_tf32(Bs[stage][kk + q + 4][wn + j * 8 + g]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) cusched::mma_tf32_16x8x8(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int r = bm + wm + i * 16 + g, c = bn + wn + j * 8 + q * 2;
      C[static_cast<long long>(r) * N + c] = acc[i][j][0];
      C[static_cast<long long>(r) * N + c + 1] = acc[i][j][1];
      C[static_cast<long long>(r + 8) * N + c] = acc[i][j][2];
      C[static_cast<long long>(r + 8) * N + c + 1] = acc[i][j][3];
    }
}
