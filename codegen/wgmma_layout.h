#pragma once
// The layouts of the warpgroup tensor-core instruction wgmma.mma_async m64nNk8 with
// tf32 operands and f32 accumulators (PTX ISA, asynchronous warpgroup MMA), that the
// IR's Wgmma statement stands for. Thread t of a warpgroup (0..127) is in warp w = t / 32,
// with group g = (t % 32) / 4 and quad q = t % 4:
//   A element i (0..3), A being 64 x 8:  row 16 w + g + 8 (i % 2), column q + 4 (i / 2)
//   accumulator j (0..N/2-1), D 64 x N:  row 16 w + g + 8 ((j / 2) % 2), column 8 (j / 4) + 2 q + j % 2
//   B (8 x N) in shared memory, K-major with the 128-byte swizzle: element (k, n) lies at
//   the byte address S + 1024 (n / 8) + 128 (n % 8) + 4 k, with bits 4-6 of that address
//   XORed with its bits 7-9, where S is the descriptor's start address.
// Lowering gives each thread its operands and accumulators by it, the interpreter
// assembles the warpgroup's matrices by it, the emitter builds the descriptor by it.
#include <cstdint>

namespace cusched {

constexpr int kWgmmaThreads = 128;
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 8;
constexpr int kWgmmaMaxN = 256;
constexpr int kWgmmaAElements = 4;
constexpr int64_t kWgmmaSwizzleRowBytes = 128;    // one K-major row: 32 tf32 elements
constexpr int64_t kWgmmaSwizzleAtomBytes = 1024;  // 8 rows: the swizzle pattern repeats

struct WgmmaElement {
  int row, col;
};

WgmmaElement wgmma_a_element(int thread, int i);
WgmmaElement wgmma_accumulator(int thread, int j);
// The byte address of B's element (k, n) for a descriptor starting at byte address `start`.
int64_t wgmma_b_address(int64_t start, int k, int n);

}  // namespace cusched
