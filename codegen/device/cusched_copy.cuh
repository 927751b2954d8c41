#pragma once
// The Hopper bulk copy engine and tensor memory accelerator (sm_90 and later) and the
// memory barriers (mbarrier) that track their copies. One thread initialises a barrier
// for a number of arrivals per phase; the thread that issues a stage's copies arrives on
// the barrier and announces the bytes they will write (mbarrier_arrive_expect_tx), then
// issues them (bulk_copy_global_to_shared, tensor_copy_Nd); the phase completes when
// every arrival happened and every announced byte has landed. Each consumer waits on the phase's parity.
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

// A tensor map (the driver's CUtensorMap: 128 opaque bytes, 64-byte aligned), passed by
// value as a __grid_constant__ kernel parameter.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// Copies the box of the map's tensor whose first element is at coordinates c0 (innermost)
// .. c4 into shared memory at `smem` (128-byte aligned; 1024 with the 128-byte swizzle) on
// the tensor memory accelerator; elements outside the tensor are zeros. The barrier's
// current phase counts the box's bytes.
__device__ __forceinline__ void tensor_copy_1d(void* smem, const TensorMap& map, int c0, void* bar) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];\n" ::"r"(
          shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tensor_copy_2d(void* smem, const TensorMap& map, int c0, int c1, void* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
      "[%4];\n" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tensor_copy_3d(void* smem, const TensorMap& map, int c0, int c1, int c2, void* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tensor_copy_4d(void* smem, const TensorMap& map, int c0, int c1, int c2, int c3,
                                               void* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(shared_address(bar))
      : "memory");
}

__device__ __forceinline__ void tensor_copy_5d(void* smem, const TensorMap& map, int c0, int c1, int c2, int c3,
                                               int c4, void* bar) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, "
      "%6}], [%7];\n" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4),
      "r"(shared_address(bar))
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
