#pragma once
// All-reductions across the blocks of a thread-block cluster (sm_90), through
// distributed shared memory. When every thread of a block holds the same value, each
// block pushes it into a slot of every block and the cluster synchronises once
// (cluster_allreduce_uniform_push). Otherwise each thread leaves its value in a shared
// slot of its block, the cluster synchronises, and every thread reads the slots of its
// own index in all blocks (cluster_allreduce); that reduction ends with this thread's
// arrival at the cluster barrier that keeps the slots alive until every block has read
// them, and the matching wait (cluster_settle) comes at the next cluster reduction or at
// the kernel's end, so the blocks do not stop there. Every thread of every block must
// call these, with the kernel's one `pending` flag and `phase` counter, and call
// cluster_settle before it ends.
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

template <typename T>
__device__ __forceinline__ T* cluster_peer(T* local, unsigned int rank) {
  return const_cast<T*>(cluster_peer(static_cast<const T*>(local), rank));
}

// This block's rank in its cluster of `Blocks`: clusters run along x (blockIdx.x).
template <int Blocks>
__device__ __forceinline__ unsigned int cluster_rank() { return blockIdx.x % Blocks; }

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

// Tuple reductions (argmax's value and index, logsumexp's maximum and sum, variance's
// mean, squares and count): every part pulled as cluster_allreduce pulls one value, the
// blocks' parts folded in rank order with Op::merge.
template <typename Op, typename... T>
__device__ __forceinline__ void cluster_allreduce_parts(int blocks, bool& pending, ReducePart<T>... parts) {
  const int tid = linear_thread_index();
  cluster_settle(pending);
  ((parts.scratch[tid] = parts.value), ...);
  cluster_barrier();
  ((parts.value = *cluster_peer(&parts.scratch[tid], 0u)), ...);
  for (int b = 1; b < blocks; ++b) Op::merge(parts.value..., *cluster_peer(&parts.scratch[tid], static_cast<unsigned int>(b))...);
  cluster_arrive();
  pending = true;
}

// Settles the previous reduction's arrival; before the kernel's first push, when no
// cluster barrier has completed yet, synchronises the cluster once, since a block may
// write into a peer's shared memory only after that peer has started (a completed
// cluster barrier guarantees it).
__device__ __forceinline__ void cluster_start_before_first_push(unsigned int phase, bool& pending) {
  const bool synchronised = pending;  // an earlier pull reduction's barrier, completed by the settle
  cluster_settle(pending);
  if (phase == 0 && !synchronised) cluster_barrier();
}

// When every thread of the block holds the same value, pushed instead of pulled: the
// block writes its value into slot `rank` of every block's slots (one thread per block
// written to), the cluster synchronises once, and every thread combines its own block's
// `Blocks` slots in rank order. `slots` holds two phases of `Blocks` values, taken in
// turn by the kernel's `phase` counter, so that a block running ahead writes the next
// reduction's values into the other phase: it writes a phase again only after another
// cluster barrier, which every block reaches after reading that phase. No block reads
// another's shared memory after the barrier, so none has to wait for the others to end.
template <typename Op, int Blocks, typename T>
__device__ __forceinline__ T cluster_allreduce_uniform_push(T v, T* slots, unsigned int& phase, bool& pending) {
  const int tid = linear_thread_index();
  const int threads = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  cluster_start_before_first_push(phase, pending);
  T* own = slots + (phase & 1u) * Blocks;
  const unsigned int rank = cluster_rank<Blocks>();
  for (int b = tid; b < Blocks; b += threads) *cluster_peer(own + rank, static_cast<unsigned int>(b)) = v;
  cluster_barrier();
  T r = own[0];
#pragma unroll
  for (int b = 1; b < Blocks; ++b) r = Op::combine(r, own[b]);
  ++phase;
  return r;
}

// The tuple form of cluster_allreduce_uniform_push: each part's `scratch` holds two
// phases of `Blocks` values.
template <typename Op, int Blocks, typename... T>
__device__ __forceinline__ void cluster_allreduce_parts_uniform_push(unsigned int& phase, bool& pending, ReducePart<T>... parts) {
  const int tid = linear_thread_index();
  const int threads = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  cluster_start_before_first_push(phase, pending);
  const unsigned int p = (phase & 1u) * Blocks, rank = cluster_rank<Blocks>();
  for (int b = tid; b < Blocks; b += threads)
    ((*cluster_peer(parts.scratch + p + rank, static_cast<unsigned int>(b)) = parts.value), ...);
  cluster_barrier();
  ((parts.value = parts.scratch[p]), ...);
#pragma unroll
  for (int b = 1; b < Blocks; ++b) Op::merge(parts.value..., parts.scratch[p + b]...);
  ++phase;
}

}  // namespace cusched
