#pragma once
// The Hopper bulk copy engine (sm_90 and later) and the memory barriers (mbarrier)
// that track its copies. One thread initialises a barrier for a number of arrivals
// per phase; the thread that issues a stage's copies arrives on the barrier and
// announces the bytes they will write (mbarrier_arrive_expect_tx), then issues them
// (bulk_copy_global_to_shared); the phase completes when every arrival happened and
// every announced byte has landed. Each consumer waits on the phase's parity.
#include "cusched_mma.cuh"

namespace cusched {

// Sets up the barrier at `bar` (8 bytes of shared memory, 8-byte aligned) for `arrivals`
// arrivals per phase and makes it visible to the bulk copy engine. A __syncthreads()
// must follow before other threads use the barrier.
__device__ __forceinline__ void mbarrier_init(void* bar, unsigned int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Arrives once on the barrier and adds `bytes` to the bytes its current phase waits for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(void* bar, unsigned int bytes) {
  asm volatile(
      "{\n"
      "  .reg .b64 state;\n"
      "  mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(bytes)
      : "memory");
}

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to
// shared memory on the bulk copy engine; the barrier's current phase counts them.
__device__ __forceinline__ void bulk_copy_global_to_shared(void* smem, const void* gmem, unsigned int bytes, void* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   shared_address(smem)),
               "l"(__cvta_generic_to_global(gmem)), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

// Returns once the barrier's phase with parity `parity` (0 or 1) has completed; the
// data its copies wrote is then visible to this thread.
__device__ __forceinline__ void mbarrier_wait_parity(void* bar, unsigned int parity) {
  unsigned int done = 0;
  do {
    asm volatile(
        "{\n"
        "  .reg .pred complete;\n"
        "  mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "  selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

}  // namespace cusched
