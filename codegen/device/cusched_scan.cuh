#pragma once
// Exclusive scans (prefix sums and products) across the threads of a block. A group is
// the `width` threads that differ only in threadIdx.x (aligned to multiples of
// `width`, which divides blockDim.x): each thread receives the combination of the
// values of the threads before it in its group (the identity for the first) and the
// group's total. Combination orders are fixed, so every thread of a group receives the
// same total bits.
#include "cusched_reduce.cuh"

namespace cusched {

// Inclusive scan over groups of `width` lanes (a power of two <= 32): log2(width)
// shuffles up, each lane combining the value `offset` lanes before it.
template <typename Op, typename T>
__device__ __forceinline__ T warp_inclusive_scan(T v, int width) {
  const unsigned int mask = group_lane_mask(width);
  const int lane = linear_thread_index() & (width - 1);
  for (int offset = 1; offset < width; offset *= 2) {
    const T before = __shfl_up_sync(mask, v, offset, width);
    if (lane >= offset) v = Op::combine(before, v);
  }
  return v;
}

// Exclusive scan over groups of `width` lanes (a power of two <= 32); `total` receives
// the group's combination of all its values.
template <typename Op, typename T>
__device__ __forceinline__ T warp_exclusive_scan(T v, T identity, int width, T& total) {
  const unsigned int mask = group_lane_mask(width);
  const int lane = linear_thread_index() & (width - 1);
  const T inclusive = warp_inclusive_scan<Op>(v, width);
  total = __shfl_sync(mask, inclusive, width - 1, width);
  const T before = __shfl_up_sync(mask, inclusive, 1, width);
  return lane == 0 ? identity : before;
}

// Exclusive scan over groups of `width` threads along threadIdx.x, a multiple of 32
// that divides blockDim.x: each warp scans by shuffles, its last lane stores the warp's
// total in `scratch` (one element per warp of the block), every warp scans its group's
// warp totals by shuffles and adds the prefix of the warps before it. Two barriers:
// one publishes the warp totals, one lets the next call reuse `scratch`. Every thread
// of the block must call it.
template <typename Op, typename T>
__device__ __forceinline__ T block_exclusive_scan(T v, T identity, int width, T& total, T* scratch) {
  const int tid = linear_thread_index();
  const int lane = tid & 31, warp = tid >> 5;
  const T inclusive = warp_inclusive_scan<Op>(v, 32);
  if (lane == 31) scratch[warp] = inclusive;
  __syncthreads();
  const int warps = width / 32;
  const int first = (tid - static_cast<int>(threadIdx.x) % width) >> 5;  // the group's first warp
  T totals = lane < warps ? scratch[first + lane] : identity;
  totals = warp_inclusive_scan<Op>(totals, 32);
  const int in_group = warp - first;
  const T warps_before = __shfl_sync(0xffffffffu, totals, in_group > 0 ? in_group - 1 : 0);
  total = __shfl_sync(0xffffffffu, totals, warps - 1);
  const T lanes_before = __shfl_up_sync(0xffffffffu, inclusive, 1);
  __syncthreads();
  const T within = lane == 0 ? identity : lanes_before;
  return in_group == 0 ? within : (lane == 0 ? warps_before : Op::combine(warps_before, within));
}

}  // namespace cusched
