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

// Tuple reductions (argmax's value and index, logsumexp's maximum and sum, variance's
// count, mean and squared deviations) carry each part in its own register:
// Op::merge(parts..., other parts...) folds the other's parts into these.
template <typename Op, typename... T>
__device__ __forceinline__ void warp_allreduce_parts(int width, T&... parts) {
  const unsigned int mask = group_lane_mask(width);
  for (int offset = width / 2; offset > 0; offset /= 2) Op::merge(parts..., __shfl_xor_sync(mask, parts, offset, width)...);
}

// A part of a tuple reduction with its shared scratch array.
template <typename T>
struct ReducePart {
  T& value;
  T* scratch;
};

template <typename T>
__device__ __forceinline__ ReducePart<T> reduce_part(T& value, T* scratch) {
  return {value, scratch};
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

template <typename Op, typename... T>
__device__ __forceinline__ void block_allreduce_parts(int width, ReducePart<T>... parts) {
  const int tid = linear_thread_index();
  warp_allreduce_parts<Op>(32, parts.value...);
  if ((tid & 31) == 0) ((parts.scratch[tid >> 5] = parts.value), ...);
  __syncthreads();
  const int first = (tid - static_cast<int>(threadIdx.x) % width) >> 5;
  ((parts.value = parts.scratch[first]), ...);
  for (int w = 1; w < width / 32; ++w) Op::merge(parts.value..., parts.scratch[first + w]...);
  __syncthreads();
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

template <typename Op, typename... T>
__device__ __forceinline__ void block_allreduce_parts_strided(int axis_index, int width, int stride,
                                                             ReducePart<T>... parts) {
  const int tid = linear_thread_index();
  ((parts.scratch[tid] = parts.value), ...);
  __syncthreads();
  const int first = tid - (axis_index % width) * stride;
  ((parts.value = parts.scratch[first]), ...);
  for (int k = 1; k < width; ++k) Op::merge(parts.value..., parts.scratch[first + k * stride]...);
  __syncthreads();
}

}  // namespace cusched
