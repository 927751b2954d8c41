#pragma once
// All-reductions across the threads of a block. A group is the `width` threads
// that differ only in their index on one thread axis (consecutive along that axis,
// aligned to multiples of `width`); every thread of the group receives the combined
// value. Combination orders are fixed, so all threads of a group get the same bits.
#include "cusched_numeric.cuh"

namespace cusched {

struct SumOp {
  template <typename T>
  __device__ __forceinline__ static T combine(T a, T b) { return a + b; }
};
struct ProductOp {
  template <typename T>
  __device__ __forceinline__ static T combine(T a, T b) { return a * b; }
};
struct MinOp {
  template <typename T>
  __device__ __forceinline__ static T combine(T a, T b) { return min_of(a, b); }
};
struct MaxOp {
  template <typename T>
  __device__ __forceinline__ static T combine(T a, T b) { return max_of(a, b); }
};

// Pair reductions: `merge(av, ai, bv, bi)` combines the pair (bv, bi) into (av, ai).
// Argmin / argmax keep the preferred pair: `prefer(bv, bi, av, ai)` is true when the
// candidate (bv, bi) replaces (av, ai). NaN ranks above every number for argmax and
// below every number for argmin (as torch does: a NaN wins); among equal values the
// smaller index wins. This is a total order, so every combination order gives the same
// result.
template <typename Op>
struct KeepPreferredPair {
  template <typename T, typename I>
  __device__ __forceinline__ static void merge(T& av, I& ai, T bv, I bi) {
    if (Op::prefer(bv, bi, av, ai)) {
      av = bv;
      ai = bi;
    }
  }
};
struct ArgMinOp : KeepPreferredPair<ArgMinOp> {
  template <typename T, typename I>
  __device__ __forceinline__ static bool prefer(T bv, I bi, T av, I ai) {
    const bool bnan = bv != bv, anan = av != av;
    if (bnan || anan) return bnan && (!anan || bi < ai);
    return bv < av || (bv == av && bi < ai);
  }
};
struct ArgMaxOp : KeepPreferredPair<ArgMaxOp> {
  template <typename T, typename I>
  __device__ __forceinline__ static bool prefer(T bv, I bi, T av, I ai) {
    const bool bnan = bv != bv, anan = av != av;
    if (bnan || anan) return bnan && (!anan || bi < ai);
    return bv > av || (bv == av && bi < ai);
  }
};

// Logsumexp: the pair (m, s) stands for s * exp(m): a running maximum and the sum of
// exp(v - m). Two pairs combine at the larger maximum, each sum scaled by
// exp(its maximum - the larger) (exactly 1 where they are equal, so infinite maxima
// stay finite); a NaN maximum makes both NaN. The expression is symmetric, so the two
// partners of a shuffle compute the same bits.
struct LogSumExpOp {
  __device__ __forceinline__ static float scale(float s, float m, float mx) { return m == mx ? s : s * expf(m - mx); }
  __device__ __forceinline__ static double scale(double s, double m, double mx) { return m == mx ? s : s * exp(m - mx); }
  template <typename T>
  __device__ __forceinline__ static void merge(T& am, T& as, T bm, T bs) {
    if (am != am || bm != bm) {
      am = as = am + bm;
      return;
    }
    const T mx = am > bm ? am : bm;
    as = scale(as, am, mx) + scale(bs, bm, mx);
    am = mx;
  }
};

// Variance: the triple (mean, squares, n) of n values, squares the sum of their squared
// deviations from the mean. Two triples combine by Chan's rule: with d the difference of
// the means and n = na + nb, mean = ma + d nb / n and squares = sa + sb + d^2 na nb / n.
// The operands are put in one order first (the larger count, then the smaller mean, then
// the smaller squares, first), so the two partners of a shuffle compute the same bits;
// two empty triples stay empty.
struct VarianceOp {
  template <typename T>
  __device__ __forceinline__ static void merge(T& am, T& as, T& an, T bm, T bs, T bn) {
    const bool swap = bn > an || (bn == an && (bm < am || (bm == am && bs < as)));
    const T xm = swap ? bm : am, xs = swap ? bs : as, xn = swap ? bn : an;
    const T ym = swap ? am : bm, ys = swap ? as : bs, yn = swap ? an : bn;
    const T n = xn + yn;
    if (n == T(0)) return;
    const T d = ym - xm, f = yn / n;
    am = xm + d * f;
    as = xs + ys + d * d * xn * f;
    an = n;
  }
};

// The lanes of this thread's group of `width` (a power of two <= 32) lanes.
__device__ __forceinline__ unsigned int group_lane_mask(int width) {
  if (width >= 32) return 0xffffffffu;
  const int lane = linear_thread_index() & 31;
  return ((1u << width) - 1u) << (lane & ~(width - 1));
}

// Butterfly over the `width` lanes of a group (threadIdx.x groups, width a power of
// two <= 32 that divides blockDim.x).
template <typename Op, typename T>
__device__ __forceinline__ T warp_allreduce(T v, int width) {
  const unsigned int mask = group_lane_mask(width);
  for (int offset = width / 2; offset > 0; offset /= 2) v = Op::combine(v, __shfl_xor_sync(mask, v, offset, width));
  return v;
}

template <typename Op, typename T, typename I>
__device__ __forceinline__ void warp_allreduce_pair(T& v, I& i, int width) {
  const unsigned int mask = group_lane_mask(width);
  for (int offset = width / 2; offset > 0; offset /= 2) {
    const T ov = __shfl_xor_sync(mask, v, offset, width);
    const I oi = __shfl_xor_sync(mask, i, offset, width);
    Op::merge(v, i, ov, oi);
  }
}

template <typename Op, typename T>
__device__ __forceinline__ void warp_allreduce_triple(T& v, T& s, T& n, int width) {
  const unsigned int mask = group_lane_mask(width);
  for (int offset = width / 2; offset > 0; offset /= 2) {
    const T ov = __shfl_xor_sync(mask, v, offset, width);
    const T os = __shfl_xor_sync(mask, s, offset, width);
    const T on = __shfl_xor_sync(mask, n, offset, width);
    Op::merge(v, s, n, ov, os, on);
  }
}

// Groups along threadIdx.x of `width` threads, a multiple of 32 that divides
// blockDim.x: each warp reduces by shuffles, lane 0 stores the warp's value in
// `scratch` (one element per warp of the block), and every thread combines its
// group's warps in order. Every thread of the block must call it.
template <typename Op, typename T>
__device__ __forceinline__ T block_allreduce(T v, int width, T* scratch) {
  const int tid = linear_thread_index();
  v = warp_allreduce<Op>(v, 32);
  if ((tid & 31) == 0) scratch[tid >> 5] = v;
  __syncthreads();
  const int first = (tid - static_cast<int>(threadIdx.x) % width) >> 5;
  T r = scratch[first];
  for (int w = 1; w < width / 32; ++w) r = Op::combine(r, scratch[first + w]);
  __syncthreads();
  return r;
}

template <typename Op, typename T, typename I>
__device__ __forceinline__ void block_allreduce_pair(T& v, I& i, int width, T* value_scratch, I* index_scratch) {
  const int tid = linear_thread_index();
  warp_allreduce_pair<Op>(v, i, 32);
  if ((tid & 31) == 0) {
    value_scratch[tid >> 5] = v;
    index_scratch[tid >> 5] = i;
  }
  __syncthreads();
  const int first = (tid - static_cast<int>(threadIdx.x) % width) >> 5;
  T rv = value_scratch[first];
  I ri = index_scratch[first];
  for (int w = 1; w < width / 32; ++w) Op::merge(rv, ri, value_scratch[first + w], index_scratch[first + w]);
  __syncthreads();
  v = rv;
  i = ri;
}

template <typename Op, typename T>
__device__ __forceinline__ void block_allreduce_triple(T& v, T& s, T& n, int width, T* value_scratch, T* second_scratch,
                                                       T* third_scratch) {
  const int tid = linear_thread_index();
  warp_allreduce_triple<Op>(v, s, n, 32);
  if ((tid & 31) == 0) {
    value_scratch[tid >> 5] = v;
    second_scratch[tid >> 5] = s;
    third_scratch[tid >> 5] = n;
  }
  __syncthreads();
  const int first = (tid - static_cast<int>(threadIdx.x) % width) >> 5;
  T rv = value_scratch[first], rs = second_scratch[first], rn = third_scratch[first];
  for (int w = 1; w < width / 32; ++w)
    Op::merge(rv, rs, rn, value_scratch[first + w], second_scratch[first + w], third_scratch[first + w]);
  __syncthreads();
  v = rv;
  s = rs;
  n = rn;
}

// Groups along any thread axis: `axis_index` is this thread's index on the axis,
// `stride` the distance in linear thread index between neighbours on it (1 for x,
// blockDim.x for y, blockDim.x * blockDim.y for z). `scratch` holds one element per
// thread of the block. Every thread of the block must call it.
template <typename Op, typename T>
__device__ __forceinline__ T block_allreduce_strided(T v, int axis_index, int width, int stride, T* scratch) {
  const int tid = linear_thread_index();
  scratch[tid] = v;
  __syncthreads();
  const int first = tid - (axis_index % width) * stride;
  T r = scratch[first];
  for (int k = 1; k < width; ++k) r = Op::combine(r, scratch[first + k * stride]);
  __syncthreads();
  return r;
}

template <typename Op, typename T, typename I>
__device__ __forceinline__ void block_allreduce_pair_strided(T& v, I& i, int axis_index, int width, int stride,
                                                            T* value_scratch, I* index_scratch) {
  const int tid = linear_thread_index();
  value_scratch[tid] = v;
  index_scratch[tid] = i;
  __syncthreads();
  const int first = tid - (axis_index % width) * stride;
  T rv = value_scratch[first];
  I ri = index_scratch[first];
  for (int k = 1; k < width; ++k) Op::merge(rv, ri, value_scratch[first + k * stride], index_scratch[first + k * stride]);
  __syncthreads();
  v = rv;
  i = ri;
}

template <typename Op, typename T>
__device__ __forceinline__ void block_allreduce_triple_strided(T& v, T& s, T& n, int axis_index, int width, int stride,
                                                               T* value_scratch, T* second_scratch, T* third_scratch) {
  const int tid = linear_thread_index();
  value_scratch[tid] = v;
  second_scratch[tid] = s;
  third_scratch[tid] = n;
  __syncthreads();
  const int first = tid - (axis_index % width) * stride;
  T rv = value_scratch[first], rs = second_scratch[first], rn = third_scratch[first];
  for (int k = 1; k < width; ++k)
    Op::merge(rv, rs, rn, value_scratch[first + k * stride], second_scratch[first + k * stride],
              third_scratch[first + k * stride]);
  __syncthreads();
  v = rv;
  s = rs;
  n = rn;
}

}  // namespace cusched
