#pragma once
// All-reductions across the blocks of a thread-block cluster (sm_90): each thread (or,
// when every thread of a block holds the same value, one thread) leaves its value in a
// shared slot of its block, the cluster synchronises, and the slots of all blocks are
// combined through distributed shared memory. Each reduction ends with this thread's
// arrival at the cluster barrier that keeps the slots alive until every block has read
// them; the matching wait (cluster_settle) comes at the next cluster reduction or at the
// kernel's end, so the blocks do not stop there. Every thread of every block must call
// these, with the kernel's one `pending` flag, and call cluster_settle before it ends.
#include "cusched_reduce.cuh"

namespace cusched {

__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_barrier() {
  cluster_arrive();
  cluster_wait();
}
// Completes this thread's arrival left by the previous cluster reduction.
__device__ __forceinline__ void cluster_settle(bool& pending) {
  if (pending) cluster_wait();
  pending = false;
}

// The address of the same shared variable in block `rank` of the cluster.
template <typename T>
__device__ __forceinline__ const T* cluster_peer(const T* local, unsigned int rank) {
  unsigned long long remote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(reinterpret_cast<unsigned long long>(local)), "r"(rank));
  return reinterpret_cast<const T*>(remote);
}

// Every thread combines the slots of its own thread index in all blocks, in rank order.
template <typename Op, typename T>
__device__ __forceinline__ T cluster_allreduce(T v, int blocks, T* scratch, bool& pending) {
  const int tid = linear_thread_index();
  cluster_settle(pending);
  scratch[tid] = v;
  cluster_barrier();
  T r = *cluster_peer(&scratch[tid], 0);
  for (int b = 1; b < blocks; ++b) r = Op::combine(r, *cluster_peer(&scratch[tid], b));
  cluster_arrive();
  pending = true;
  return r;
}

template <typename Op, typename T, typename I>
__device__ __forceinline__ void cluster_allreduce_arg(T& v, I& i, int blocks, T* value_scratch, I* index_scratch, bool& pending) {
  const int tid = linear_thread_index();
  cluster_settle(pending);
  value_scratch[tid] = v;
  index_scratch[tid] = i;
  cluster_barrier();
  T rv = *cluster_peer(&value_scratch[tid], 0);
  I ri = *cluster_peer(&index_scratch[tid], 0);
  for (int b = 1; b < blocks; ++b) {
    const T bv = *cluster_peer(&value_scratch[tid], b);
    const I bi = *cluster_peer(&index_scratch[tid], b);
    if (Op::prefer(bv, bi, rv, ri)) {
      rv = bv;
      ri = bi;
    }
  }
  cluster_arrive();
  pending = true;
  v = rv;
  i = ri;
}

// When every thread of the block holds the same value: thread 0 leaves it in the
// block's one slot, the cluster synchronises, thread 0 reads the `Blocks` ranks' slots
// (an unrolled loop of independent loads) and combines them in rank order, and the block reads the
// total from `total`. The slot and the total are not written again before the next
// cluster barrier, which every thread reaches only after reading them.
template <typename Op, int Blocks, typename T>
__device__ __forceinline__ T cluster_allreduce_uniform(T v, T* slot, T* total, bool& pending) {
  const int tid = linear_thread_index();
  cluster_settle(pending);
  if (tid == 0) *slot = v;
  cluster_barrier();
  if (tid == 0) {
    T part[Blocks];
#pragma unroll
    for (int b = 0; b < Blocks; ++b) part[b] = *cluster_peer(slot, b);
    T r = part[0];
#pragma unroll
    for (int b = 1; b < Blocks; ++b) r = Op::combine(r, part[b]);
    *total = r;
  }
  __syncthreads();
  const T r = *total;
  cluster_arrive();
  pending = true;
  return r;
}

template <typename Op, int Blocks, typename T, typename I>
__device__ __forceinline__ void cluster_allreduce_arg_uniform(T& v, I& i, T* slot, I* index_slot, T* total, I* index_total,
                                                              bool& pending) {
  const int tid = linear_thread_index();
  cluster_settle(pending);
  if (tid == 0) {
    *slot = v;
    *index_slot = i;
  }
  cluster_barrier();
  if (tid == 0) {
    T pv[Blocks];
    I pi[Blocks];
#pragma unroll
    for (int b = 0; b < Blocks; ++b) {
      pv[b] = *cluster_peer(slot, b);
      pi[b] = *cluster_peer(index_slot, b);
    }
    T rv = pv[0];
    I ri = pi[0];
#pragma unroll
    for (int b = 1; b < Blocks; ++b)
      if (Op::prefer(pv[b], pi[b], rv, ri)) {
        rv = pv[b];
        ri = pi[b];
      }
    *total = rv;
    *index_total = ri;
  }
  __syncthreads();
  v = *total;
  i = *index_total;
  cluster_arrive();
  pending = true;
}

}  // namespace cusched
