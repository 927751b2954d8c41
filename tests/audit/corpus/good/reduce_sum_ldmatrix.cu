// contract: {"kernel_name": "sum_dim1", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "outer", "type": "int"}, {"name": "reduce", "type": "int"}, {"name": "inner", "type": "int"}]}
// dynamic-smem: 0
#include "cusched_device.cuh"

// Sum over the middle axis of (outer, reduce, inner); each thread owns one
// (outer, inner) column. Also exercises ldmatrix and a counted named barrier
// that only the first two warps use.
extern "C" __global__ void sum_dim1(const float* __restrict__ X, float* __restrict__ Y, int outer, int reduce,
                                    int inner) {
  __shared__ __align__(16) unsigned short tile[8 * 8 * 4];
  long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int e = threadIdx.x; e < 8 * 8 * 4; e += blockDim.x) tile[e] = 0;
  __syncthreads();
  if ((threadIdx.x >> 5) < 2) {
    unsigned r[4];
    cusched::ldmatrix_x4(r, &tile[(threadIdx.x & 31) * 8]);
    asm volatile("bar.sync 1, 64;\n" ::: "memory");
    if (r[0] != 0 && col < 0) Y[0] = 0.0f;
  }
  if (col >= static_cast<long long>(outer) * inner) return;
  long long o = col / inner, i = col % inner;
  const float* x = X + o * reduce * inner + i;
  float s = 0.0f;
  for (int k = 0; k < reduce; ++k) s += __ldg(x + static_cast<long long>(k) * inner);
  Y[col] = s;
}
