#pragma once
// Hopper's asynchronous warpgroup tensor-core instruction (wgmma.mma_async, sm_90a): the
// ordering statements around it and the shared-memory matrix descriptor. The
// instruction itself, whose operand list grows with N, is written into each generated
// source that uses it (one function per N).
//   wgmma_fence()        the thread's register writes are seen by the next wgmma
//   wgmma_commit()       closes the warpgroup's open group of wgmma instructions
//   wgmma_wait<N>()      waits until at most N groups are in flight
//   async_proxy_fence()  the thread's shared-memory writes are seen by wgmma reads
//   hold_register(x)     x's register (a 32-bit word) is used here: the compiler keeps it
//                        unchanged until this point (an in-flight wgmma reads it)
//   wgmma_descriptor_sw128(p)  descriptor of a K-major operand of 128-byte rows with the
//                        128-byte swizzle, rows in groups of 8 that are 1024 bytes apart,
//                        starting at shared address p
#include "cusched_numeric.cuh"

namespace cusched {

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void async_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

__device__ __forceinline__ void hold_register(unsigned int& x) { asm volatile("" : "+r"(x)); }

__device__ __forceinline__ unsigned long long wgmma_descriptor_sw128(const void* p) {
  const unsigned long long address = static_cast<unsigned long long>(__cvta_generic_to_shared(p));
  unsigned long long d = (address & 0x3FFFFull) >> 4;  // start address, 16-byte units
  d |= 1ull << 16;                                     // leading byte offset (unused when swizzled): 16 bytes
  d |= (1024ull >> 4) << 32;                           // stride byte offset: 8-row groups 1024 bytes apart
  d |= 1ull << 62;                                     // 128-byte swizzle
  return d;
}

}  // namespace cusched
