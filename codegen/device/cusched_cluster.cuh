#pragma once
// All-reductions across the blocks of a thread-block cluster (sm_90): each thread
// leaves its value in a shared slot of its block, the cluster synchronises, and every
// thread combines the slots of the same thread index in all blocks of the cluster, in
// rank order, through distributed shared memory. A second cluster barrier keeps the
// slots alive until every block has read them (a block must not exit while another
// still reads its shared memory). Every thread of every block must call these.
#include "cusched_reduce.cuh"

namespace cusched {

__device__ __forceinline__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The address of the same shared variable in block `rank` of the cluster.
template <typename T>
__device__ __forceinline__ const T* cluster_peer(const T* local, unsigned int rank) {
  unsigned long long remote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(reinterpret_cast<unsigned long long>(local)), "r"(rank));
  return reinterpret_cast<const T*>(remote);
}

template <typename Op, typename T>
__device__ __forceinline__ T cluster_allreduce(T v, int blocks, T* scratch) {
  const int tid = linear_thread_index();
  scratch[tid] = v;
  cluster_barrier();
  T r = *cluster_peer(&scratch[tid], 0);
  for (int b = 1; b < blocks; ++b) r = Op::combine(r, *cluster_peer(&scratch[tid], b));
  cluster_barrier();
  return r;
}

template <typename Op, typename T, typename I>
__device__ __forceinline__ void cluster_allreduce_arg(T& v, I& i, int blocks, T* value_scratch, I* index_scratch) {
  const int tid = linear_thread_index();
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
  cluster_barrier();
  v = rv;
  i = ri;
}

}  // namespace cusched
