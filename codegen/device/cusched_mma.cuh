#pragma once
// Tensor-core wrappers (sm_80 and later, row-major A, column-major B, f32
// accumulators). Fragments are per-thread registers in the PTX ISA's layouts:
//   m16n8k8 tf32:        a[4], b[2] (one tf32 per register), c/d[4] f32
//   m16n8k16 bf16 / f16: a[4], b[2] (two 16-bit values per register), c/d[4] f32
// `d` may alias `c` (accumulate in place). The mma statements touch registers only, so
// they are not volatile: the compiler may share the operand loads around them (ldmatrix,
// which reads shared memory, stays volatile).
#include "cusched_numeric.cuh"

namespace cusched {

__device__ __forceinline__ void mma_m16n8k8_tf32(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  asm(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

// The same with f32 operands: the tensor core reads their top 19 bits (truncation to tf32).
__device__ __forceinline__ void mma_m16n8k8_tf32(float* d, const float* a, const float* b, const float* c) {
  const unsigned int ua[4] = {__float_as_uint(a[0]), __float_as_uint(a[1]), __float_as_uint(a[2]),
                              __float_as_uint(a[3])};
  const unsigned int ub[2] = {__float_as_uint(b[0]), __float_as_uint(b[1])};
  mma_m16n8k8_tf32(d, ua, ub, c);
}

// 3xTF32: f32 operands split into their TF32 rounding and the TF32 rounding of the rest;
// lo*hi + hi*lo + hi*hi restores nearly f32 accuracy (the lo*lo term is dropped).
__device__ __forceinline__ void mma_m16n8k8_3xtf32(float* d, const float* a, const float* b, const float* c) {
  float a_hi[4], a_lo[4], b_hi[2], b_lo[2];
  for (int i = 0; i < 4; ++i) {
    a_hi[i] = round_tf32(a[i]);
    a_lo[i] = round_tf32(a[i] - a_hi[i]);
  }
  for (int i = 0; i < 2; ++i) {
    b_hi[i] = round_tf32(b[i]);
    b_lo[i] = round_tf32(b[i] - b_hi[i]);
  }
  mma_m16n8k8_tf32(d, a_lo, b_hi, c);
  mma_m16n8k8_tf32(d, a_hi, b_lo, d);
  mma_m16n8k8_tf32(d, a_hi, b_hi, d);
}

__device__ __forceinline__ void mma_m16n8k16_bf16(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

__device__ __forceinline__ void mma_m16n8k16_f16(float* d, const unsigned int* a, const unsigned int* b, const float* c) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

// Packs two f32 values into one register of two 16-bit operands (lo in the low half).
__device__ __forceinline__ unsigned int pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned int*>(&v);
}
__device__ __forceinline__ unsigned int pack_f16x2(float lo, float hi) {
  const __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned int*>(&v);
}

// `word` with its low (half 0) or high (half 1) 16 bits replaced by `bits`, or by v
// rounded to bf16 (f16): how a 16-bit wgmma A fragment is filled one element at a time.
__device__ __forceinline__ unsigned int with_half_bits(unsigned int word, unsigned short bits, int half) {
  return half ? (word & 0xffffu) | (static_cast<unsigned int>(bits) << 16) : (word & 0xffff0000u) | bits;
}
__device__ __forceinline__ unsigned int with_bf16_half(unsigned int word, float v, int half) {
  return with_half_bits(word, __bfloat16_as_ushort(__float2bfloat16_rn(v)), half);
}
__device__ __forceinline__ unsigned int with_f16_half(unsigned int word, float v, int half) {
  return with_half_bits(word, __half_as_ushort(__float2half_rn(v)), half);
}

// The shared-memory address space offset of a generic pointer to shared memory.
__device__ __forceinline__ unsigned int shared_address(const void* p) {
  return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}

// One, two or four 8x8 matrices of 16-byte rows from shared memory; thread t supplies
// the address of row t % 8 of matrix t / 8 (16-byte aligned) and receives one 32-bit
// word of each matrix: word t % 4 of row t / 4 (codegen/ldmatrix.h). The _trans forms
// transpose 16-bit matrices: thread t receives column t / 4 of rows 2 (t % 4) and
// 2 (t % 4) + 1.
__device__ __forceinline__ void ldmatrix_x1(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(shared_address(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x2(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x1_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(shared_address(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x2_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned int* r, const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}

}  // namespace cusched
