// expect: inline-asm-allowlist
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  unsigned ballot;
  asm volatile("{\n .reg .pred p;\n setp.ne.f32 p, %1, 0f00000000;\n vote.sync.ballot.b32 %0, p, 0xffffffff;\n}"
               : "=r"(ballot) : "f"(A[threadIdx.x]));
  C[threadIdx.x] = static_cast<float>(__popc(ballot));
}
