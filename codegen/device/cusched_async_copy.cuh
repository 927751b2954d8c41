#pragma once
// Asynchronous global-to-shared copies (cp.async, sm_80 and later). Copies issued by
// a thread are grouped with cp_async_commit(); cp_async_wait<N>() blocks until at most
// N of this thread's groups are still in flight. A __syncthreads() is still needed
// before other threads read the copied data.
#include "cusched_mma.cuh"

namespace cusched {

// Copies 16 bytes (both addresses 16-byte aligned), bypassing L1.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(smem)),
               "l"(__cvta_generic_to_global(gmem))
               : "memory");
}

// Copies 4 bytes (both addresses 4-byte aligned) through L1.
__device__ __forceinline__ void cp_async_4(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address(smem)), "l"(__cvta_generic_to_global(gmem))
               : "memory");
}

// Copies the first `src_bytes` (0 .. 16) bytes and fills the rest of the 16 with zeros:
// a guarded tail load is a copy with src_bytes = 0.
__device__ __forceinline__ void cp_async_16_zfill(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem)),
               "l"(__cvta_generic_to_global(gmem)), "r"(src_bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

}  // namespace cusched
