#pragma once
// The layouts of the warpgroup tensor-core instruction wgmma.mma_async with f32
// accumulators (PTX ISA, asynchronous warpgroup MMA), that the IR's Wgmma statement
// stands for: m64nNk8 with tf32 operands and m64nNk16 with bf16 or f16 operands. Thread
// t of a warpgroup (0..127) is in warp w = t / 32, with group g = (t % 32) / 4 and quad
// q = t % 4:
//   k8, A element i (0..3), A 64 x 8:    row 16 w + g + 8 (i % 2), column q + 4 (i / 2)
//   k16, A element i (0..7), A 64 x 16:  row 16 w + g + 8 ((i / 2) % 2), column 2 q + i % 2 + 8 (i / 4)
//     (elements 2m and 2m + 1 share the m-th 32-bit register, the first in its low half)
//   accumulator j (0..N/2-1), D 64 x N:  row 16 w + g + 8 ((j / 2) % 2), column 8 (j / 4) + 2 q + j % 2
//   B (K x N) in shared memory, K-major with the 128-byte swizzle: element (k, n) of
//   e-byte elements lies at the byte address S + 1024 (n / 8) + 128 (n % 8) + e k, with
//   bits 4-6 of that address XORed with its bits 7-9, where S is the descriptor's start
//   address; a row holds 128 bytes of k (32 tf32 or 64 16-bit elements).
// Lowering gives each thread its operands and accumulators by it, the interpreter
// assembles the warpgroup's matrices by it, the emitter builds the descriptor by it.
#include <cstdint>

#include "dsl/dtype.h"
#include "dsl/precision.h"

namespace cusched {

constexpr int kWgmmaThreads = 128;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 8;     // tf32
constexpr int kWgmmaK16 = 16;  // bf16, f16
constexpr int kWgmmaMaxN = 256;
constexpr int kWgmmaAElements = 4;                // tf32
constexpr int kWgmmaAElements16 = 8;              // bf16, f16
constexpr int64_t kWgmmaSwizzleRowBytes = 128;    // one K-major row: 32 tf32 elements
constexpr int64_t kWgmmaSwizzleAtomBytes = 1024;  // 8 rows: the swizzle pattern repeats

struct WgmmaElement {
  int row, col;
};

// A element i of `thread` for operands of `precision` (tf32: k8; bf16, f16: k16).
WgmmaElement wgmma_a_element(int thread, int i, Precision precision = Precision::tf32);
WgmmaElement wgmma_accumulator(int thread, int j);
// The byte address of B's element (k, n), of `element_bytes` bytes, for a descriptor
// starting at byte address `start`.
int64_t wgmma_b_address(int64_t start, int k, int n, int element_bytes = 4);

// The instruction's K (8 or 16), A elements per thread (4 or 8) and the element type of
// its operands' registers and shared copy (f32, bf16, f16) for its operands' precision
// (tf32 and 3xtf32's parts: k8; bf16, f16: k16).
int wgmma_k(Precision precision);
int wgmma_a_elements(Precision precision);
DType wgmma_operand_type(Precision precision);

}  // namespace cusched
